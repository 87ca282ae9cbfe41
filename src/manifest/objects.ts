// ConfigMap and Secret manifests for --local-objects (issue 15, "Standalone mode"): a file's text →
// the objects it holds, or every reason it holds none, each at a file, line and column with the
// field. A file may hold one object, several YAML documents (`---`), or a v1 List of them. Each
// object is checked as the API server would check it on create (k/k@1.24.1
// pkg/apis/core/validation ValidateConfigMap / ValidateSecret: name, namespace, keys, the 1 MiB
// limit, data and binaryData keys not shared), and turned into what the server would store: the
// namespace defaulted to "default", a Secret's stringData merged into data (base64) and its type
// defaulted to Opaque. A file with any error gives no objects (the caller keeps its last good ones).
import type { ConfigMap, Secret } from "kubernetes-types/core/v1";
import { fieldErrorMessage, isConfigMapKey, isDNS1123Label, isDNS1123Subdomain, jsonKind, type FieldError } from "../api";
import { parseManifest } from "./decode";
import type { ManifestError } from "./types";

export type LocalObject = ConfigMap | Secret;

export type ObjectsResult = { ok: true; objects: Array<{ object: LocalObject; line: number }> } | { ok: false; errors: ManifestError[] };

/** The API server's limit on a ConfigMap's or Secret's data (MaxSecretSize, the configMap total). */
export const MAX_OBJECT_DATA_BYTES = 1024 * 1024;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** One YAML document of a file: its text and the line it starts on (1-based). */
function splitDocuments(text: string): Array<{ text: string; firstLine: number }> {
  const lines = text.split("\n");
  const docs: Array<{ text: string; firstLine: number }> = [];
  let start = 0;
  for (let i = 0; i <= lines.length; i++) {
    // A document marker at the start of a line ends the document before it (YAML 1.1 §9.1).
    if (i === lines.length || /^---(\s|$)/.test(lines[i]!)) {
      const body = lines.slice(start, i).join("\n");
      if (body.replace(/#.*$/gm, "").trim() !== "") docs.push({ text: body, firstLine: start + 1 });
      if (i < lines.length) {
        // Content after the marker on its own line ("--- {a: 1}") belongs to the next document.
        const rest = lines[i]!.slice(3);
        lines[i] = rest.trim() === "" ? "" : " ".repeat(3) + rest;
        start = i;
      }
    }
  }
  return docs;
}

/** Decodes and checks every ConfigMap and Secret of a file. */
export function loadObjects(text: string, file: string): ObjectsResult {
  const errors: ManifestError[] = [];
  const objects: Array<{ object: LocalObject; line: number }> = [];
  const docs = splitDocuments(text);
  if (docs.length === 0) return { ok: false, errors: [{ file, line: 1, column: 1, field: "", message: "empty file: no ConfigMap or Secret in it" }] };
  for (const doc of docs) {
    const shift = (e: ManifestError): ManifestError => ({ ...e, line: e.line + doc.firstLine - 1 });
    const decoded = parseManifest(doc.text);
    if (decoded.problems.length) {
      // As decodeDocument: a document that cannot be turned into data is reported alone only when nothing else was wrong.
      const others = decoded.problems.filter((p) => p.code !== "undecodable");
      for (const p of others.length ? others : decoded.problems) errors.push(shift({ file, line: p.line, column: p.column, field: "", message: p.message }));
      continue;
    }
    const at = (where: string, part: "key" | "value", message: string, field: string): ManifestError => {
      const p = decoded.locate(where, part);
      return { file, line: p.line + doc.firstLine - 1, column: p.column, field, message };
    };
    const value = decoded.value;
    const items: Array<[unknown, string]> =
      isRecord(value) && value.kind === "List" && value.apiVersion === "v1" && Array.isArray(value.items)
        ? value.items.map((v, i) => [v, `items[${i}]`])
        : [[value, ""]];
    for (const [item, prefix] of items) {
      const checked = checkObject(item, prefix);
      if ("errors" in checked)
        errors.push(...checked.errors.map((e) => (e.at ? at(e.at, "key", e.message, e.field) : at(e.field, "value", e.message, e.field))));
      else objects.push({ object: checked.object, line: decoded.positionOf(prefix).line + doc.firstLine - 1 });
    }
  }
  return errors.length ? { ok: false, errors } : { ok: true, objects };
}

const path = (prefix: string, field: string) => (prefix ? `${prefix}.${field}` : field);
/** An error: the field Kubernetes names, its message, and where it is best shown when that differs (a key). */
interface ObjectError {
  field: string;
  message: string;
  at?: string;
}
const err = (field: string, message: string, at?: string): ObjectError => ({ field, message, ...(at ? { at } : {}) });
const fieldErr = (e: Pick<FieldError, "field" | "type" | "value" | "detail">, at?: string) => err(e.field, fieldErrorMessage(e).slice(e.field.length + 2), at);

/** One object: checked and normalised, or its errors (field paths with the prefix, messages without them). */
function checkObject(value: unknown, prefix: string): { object: LocalObject } | { errors: ObjectError[] } {
  if (!isRecord(value)) return { errors: [err(prefix, `a ConfigMap or Secret must be a mapping, not ${jsonKind(value)}`)] };
  const { kind, apiVersion } = value;
  if ((kind !== "ConfigMap" && kind !== "Secret") || apiVersion !== "v1") {
    const field = kind !== "ConfigMap" && kind !== "Secret" ? "kind" : "apiVersion";
    return {
      errors: [
        err(
          path(prefix, field),
          `--local-objects serves only kind ConfigMap and Secret in apiVersion v1, not kind ${JSON.stringify(kind ?? "")} in apiVersion ${JSON.stringify(apiVersion ?? "")}`,
        ),
      ],
    };
  }
  const errors: ObjectError[] = [];
  const meta = isRecord(value.metadata) ? value.metadata : {};
  const name = typeof meta.name === "string" ? meta.name : "";
  if (!name) errors.push(err(path(prefix, "metadata.name"), "Required value: name or generateName is required"));
  else for (const m of isDNS1123Subdomain(name)) errors.push(fieldErr({ field: path(prefix, "metadata.name"), type: "Invalid", value: name, detail: m }));
  const namespace = meta.namespace === undefined || meta.namespace === "" ? "default" : meta.namespace;
  if (typeof namespace !== "string") errors.push(err(path(prefix, "metadata.namespace"), `must be a string, not ${jsonKind(namespace)}`));
  else
    for (const m of isDNS1123Label(namespace))
      errors.push(fieldErr({ field: path(prefix, "metadata.namespace"), type: "Invalid", value: namespace, detail: m }));

  const maps: Record<string, Record<string, string>> = {};
  const mapFields = kind === "ConfigMap" ? ["data", "binaryData"] : ["data", "stringData"];
  for (const f of mapFields) {
    const v = value[f];
    if (v === undefined || v === null) continue;
    if (!isRecord(v)) {
      errors.push(err(path(prefix, f), `must be a map of strings, not ${jsonKind(v)}`));
      continue;
    }
    maps[f] = {};
    for (const [k, s] of Object.entries(v)) {
      const field = `${path(prefix, f)}[${k}]`;
      if (typeof s !== "string") {
        errors.push(err(field, `must be a string, not ${jsonKind(s)}${typeof s === "number" || typeof s === "boolean" ? " (quote it)" : ""}`));
        continue;
      }
      for (const m of isConfigMapKey(k)) errors.push(fieldErr({ field: path(prefix, f), type: "Invalid", value: k, detail: m }, field));
      const base64 = (kind === "Secret" && f === "data") || f === "binaryData";
      if (base64 && !/^[A-Za-z0-9+/]*={0,2}$/.test(s.replace(/\s+/g, ""))) errors.push(err(field, "must be base64-encoded (illegal base64 data)"));
      maps[f]![k] = s;
    }
  }
  if (kind === "ConfigMap") {
    for (const k of Object.keys(maps.binaryData ?? {})) {
      if (maps.data && k in maps.data)
        errors.push(
          fieldErr(
            { field: path(prefix, "binaryData"), type: "Invalid", value: k, detail: "duplicate of key present in data" },
            `${path(prefix, "binaryData")}[${k}]`,
          ),
        );
    }
  }
  const type = value.type === undefined || value.type === "" ? "Opaque" : value.type;
  if (kind === "Secret" && typeof type !== "string") errors.push(err(path(prefix, "type"), `must be a string, not ${jsonKind(type)}`));
  if (errors.length) return { errors };

  const metadata = { ...meta, name, namespace: namespace as string };
  if (kind === "ConfigMap") {
    const cm: ConfigMap = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata,
      ...(maps.data ? { data: maps.data } : {}),
      ...(maps.binaryData ? { binaryData: maps.binaryData } : {}),
    };
    if (value.immutable === true) cm.immutable = true;
    const size =
      Object.entries(cm.data ?? {}).reduce((n, [k, v]) => n + k.length + Buffer.byteLength(v), 0) +
      Object.entries(cm.binaryData ?? {}).reduce((n, [k, v]) => n + k.length + Buffer.from(v, "base64").length, 0);
    if (size > MAX_OBJECT_DATA_BYTES) return { errors: [err(prefix, `Too long: must have at most ${MAX_OBJECT_DATA_BYTES} bytes`)] };
    return { object: cm };
  }
  const data: Record<string, string> = { ...maps.data };
  for (const [k, v] of Object.entries(maps.stringData ?? {})) data[k] = Buffer.from(v).toString("base64");
  const secret: Secret = { apiVersion: "v1", kind: "Secret", metadata, type: type as string, data };
  if (value.immutable === true) secret.immutable = true;
  const size = Object.entries(data).reduce((n, [k, v]) => n + k.length + Buffer.from(v, "base64").length, 0);
  if (size > MAX_OBJECT_DATA_BYTES) return { errors: [err(path(prefix, "data"), `Too long: must have at most ${MAX_OBJECT_DATA_BYTES} bytes`)] };
  return { object: secret };
}
