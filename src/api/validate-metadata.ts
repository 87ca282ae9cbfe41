// The pod's metadata as ValidateObjectMeta checks it: name, namespace, label keys and values,
// annotation keys and their total size.
import type { Pod } from "kubernetes-types/core/v1";
import { type FieldError, invalid, key, required, tooLong } from "./field-error";
import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue } from "./name-validation";

const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

export function validateLabels(labels: Record<string, string> | undefined, path: string, errs: FieldError[]): void {
  for (const [k, v] of Object.entries(labels ?? {})) {
    for (const m of isQualifiedName(k)) errs.push(invalid(path, k, m));
    for (const m of isValidLabelValue(v)) errs.push(invalid(key(path, k), v, m));
  }
}

export function validateMetadata(pod: Pod, errs: FieldError[]): void {
  const meta = pod.metadata ?? {};
  if (meta.generateName) for (const m of isDNS1123Subdomain(meta.generateName)) errs.push(invalid("metadata.generateName", meta.generateName, m));
  if (!meta.name) errs.push(required("metadata.name", "name or generateName is required"));
  else for (const m of isDNS1123Subdomain(meta.name)) errs.push(invalid("metadata.name", meta.name, m));
  if (!meta.namespace) errs.push(required("metadata.namespace"));
  else for (const m of isDNS1123Label(meta.namespace)) errs.push(invalid("metadata.namespace", meta.namespace, m));
  validateLabels(meta.labels, "metadata.labels", errs);
  let size = 0;
  for (const [k, v] of Object.entries(meta.annotations ?? {})) {
    for (const m of isQualifiedName(k.toLowerCase())) errs.push(invalid("metadata.annotations", k, m));
    size += Buffer.byteLength(k) + Buffer.byteLength(v);
  }
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT) errs.push(tooLong("metadata.annotations", TOTAL_ANNOTATION_SIZE_LIMIT));
}
