// A container's env and envFrom as ValidateEnv and ValidateEnvFrom check them: names (the relaxed or
// the older rule), and exactly one valueFrom source with a field path, resource or key it may name.
import type { Container, EnvVar } from "kubernetes-types/core/v1";
import { child, type FieldError, index, invalid, notSupported, required } from "./field-error";
import { isConfigMapKey, isDNS1123Subdomain, isEnvVarName, isQualifiedName, isRelaxedEnvVarName } from "./name-validation";

export interface PodValidationOptions {
  /**
   * RelaxedEnvironmentVariableValidation (GA in 1.34, on since 1.32): any printable ASCII but '='.
   * When false, the older C-identifier-like rule applies. Default true.
   */
  relaxedEnvVarNames?: boolean;
}

const ENV_FIELD_PATHS = [
  "metadata.name",
  "metadata.namespace",
  "metadata.uid",
  "spec.nodeName",
  "spec.serviceAccountName",
  "status.hostIP",
  "status.hostIPs",
  "status.podIP",
  "status.podIPs",
];
/** The labels ConvertDownwardAPIFieldLabel knows for v1 pods; others fail conversion. */
const CONVERTIBLE_FIELD_PATHS = new Set([
  ...ENV_FIELD_PATHS,
  "metadata.annotations",
  "metadata.labels",
  "spec.restartPolicy",
  "spec.schedulerName",
  "status.phase",
]);
const RESOURCE_FIELD_PATHS = ["limits.cpu", "limits.ephemeral-storage", "limits.memory", "requests.cpu", "requests.ephemeral-storage", "requests.memory"];

export function validateEnv(env: EnvVar[], path: string, opts: Required<PodValidationOptions>, errs: FieldError[]): void {
  env.forEach((ev, i) => {
    const idx = index(path, i);
    if (!ev.name) errs.push(required(child(idx, "name")));
    else {
      const msgs = opts.relaxedEnvVarNames ? isRelaxedEnvVarName(ev.name) : isEnvVarName(ev.name);
      for (const m of msgs) errs.push(invalid(child(idx, "name"), ev.name, m));
    }
    const from = ev.valueFrom;
    if (!from) return;
    const fromPath = child(idx, "valueFrom");
    let sources = 0;
    if (from.fieldRef) {
      sources++;
      const fr = from.fieldRef;
      const frPath = child(fromPath, "fieldRef");
      if (!fr.apiVersion) errs.push(required(child(frPath, "apiVersion")));
      else if (!fr.fieldPath) errs.push(required(child(frPath, "fieldPath")));
      else {
        const sub = /^(metadata\.(?:labels|annotations))\['(.*)'\]$/.exec(fr.fieldPath);
        if (fr.apiVersion !== "v1") {
          errs.push(invalid(child(frPath, "fieldPath"), fr.fieldPath, `error converting fieldPath: unsupported pod version: ${fr.apiVersion}`));
        } else if (sub) {
          const k = sub[1] === "metadata.annotations" ? sub[2]!.toLowerCase() : sub[2]!;
          for (const m of isQualifiedName(k)) errs.push(invalid(frPath, k, m));
        } else if (!CONVERTIBLE_FIELD_PATHS.has(fr.fieldPath)) {
          errs.push(invalid(child(frPath, "fieldPath"), fr.fieldPath, `error converting fieldPath: field label not supported: ${fr.fieldPath}`));
        } else if (!ENV_FIELD_PATHS.includes(fr.fieldPath)) {
          errs.push(notSupported(child(frPath, "fieldPath"), fr.fieldPath, [...ENV_FIELD_PATHS].sort()));
        }
      }
    }
    if (from.resourceFieldRef) {
      sources++;
      const rf = from.resourceFieldRef;
      const rfPath = child(fromPath, "resourceFieldRef");
      if (!rf.resource) errs.push(required(child(rfPath, "resource")));
      else if (!RESOURCE_FIELD_PATHS.includes(rf.resource) && !/^(requests|limits)\.hugepages-/.test(rf.resource)) {
        errs.push(notSupported(child(rfPath, "resource"), rf.resource, RESOURCE_FIELD_PATHS));
      }
    }
    for (const [name, ref] of [
      ["configMapKeyRef", from.configMapKeyRef],
      ["secretKeyRef", from.secretKeyRef],
    ] as const) {
      if (!ref) continue;
      sources++;
      const refPath = child(fromPath, name);
      for (const m of isDNS1123Subdomain(ref.name ?? "")) errs.push(invalid(child(refPath, "name"), ref.name ?? "", m));
      if (!ref.key) errs.push(required(child(refPath, "key")));
      else for (const m of isConfigMapKey(ref.key)) errs.push(invalid(child(refPath, "key"), ref.key, m));
    }
    if (sources === 0) {
      errs.push(invalid(fromPath, "", "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`"));
    } else if (ev.value) {
      errs.push(invalid(fromPath, "", "may not be specified when `value` is not empty"));
    } else if (sources > 1) {
      errs.push(invalid(fromPath, "", "may not have more than one field specified at a time"));
    }
  });
}

export function validateEnvFrom(c: Container, path: string, opts: Required<PodValidationOptions>, errs: FieldError[]): void {
  (c.envFrom ?? []).forEach((ef, i) => {
    const idx = index(path, i);
    if (ef.prefix) {
      const msgs = opts.relaxedEnvVarNames ? isRelaxedEnvVarName(ef.prefix) : isEnvVarName(ef.prefix);
      for (const m of msgs) errs.push(invalid(child(idx, "prefix"), ef.prefix, m));
    }
    let sources = 0;
    for (const [name, ref] of [
      ["configMapRef", ef.configMapRef],
      ["secretRef", ef.secretRef],
    ] as const) {
      if (!ref) continue;
      sources++;
      if (!ref.name) errs.push(required(child(child(idx, name), "name")));
      else for (const m of isDNS1123Subdomain(ref.name)) errs.push(invalid(child(child(idx, name), "name"), ref.name, m));
    }
    // Upstream reports these two at the envFrom list, not at the item.
    if (sources === 0) errs.push(invalid(path, "", "must specify one of: `configMapRef` or `secretRef`"));
    else if (sources > 1) errs.push(invalid(path, "", "may not have more than one field specified at a time"));
  });
}
