// Pod validation as the kubelet runs it on a static pod before accepting it: the subset of
// ValidatePodCreate (k/k pkg/apis/core/validation/validation.go) that decides whether a pod can run
// on a node, with the field paths and the wording of apimachinery's field.Error, so that a message
// here reads exactly like the one `kubectl apply` or the kubelet's log would print. The static
// pod API-reference rule (PreventStaticPodAPIReferences, k/k pkg/api/pod/util.go) is separate.
import { isIP } from "node:net";
import type { AppArmorProfile, Container, EnvVar, HTTPGetAction, Pod, PodSpec, Probe, ResourceRequirements, SeccompProfile, Volume } from "kubernetes-types/core/v1";
import { APPARMOR_ANNOTATION_LOCALHOST_PREFIX, APPARMOR_ANNOTATION_PREFIX, APPARMOR_ANNOTATION_RUNTIME_DEFAULT, APPARMOR_ANNOTATION_UNCONFINED } from "./apparmor";
import { podReferences } from "./pod-references";
import { Quantity, tryParseQuantity } from "./quantity";

/** apimachinery field.ErrorType, by the name of its constructor. */
export type FieldErrorType = "Required" | "Invalid" | "Duplicate" | "NotFound" | "NotSupported" | "TooLong" | "Forbidden";

export interface FieldError {
  /** The field path as Kubernetes prints it: spec.containers[0].image, metadata.labels[app]. */
  field: string;
  type: FieldErrorType;
  /** The offending value (printed for Invalid, Duplicate, NotFound and NotSupported). */
  value?: unknown;
  /** The explanation after the value, e.g. "must be between 1 and 65535, inclusive". */
  detail?: string;
  /** The whole error as field.Error.Error() formats it: "spec.containers[0].image: Required value". */
  message: string;
}

export interface PodValidationOptions {
  /**
   * RelaxedEnvironmentVariableValidation (GA in 1.34, on since 1.32): any printable ASCII but '='.
   * When false, the older C-identifier-like rule applies. Default true.
   */
  relaxedEnvVarNames?: boolean;
}

const TYPE_TEXT: Record<FieldErrorType, string> = {
  Required: "Required value",
  Invalid: "Invalid value",
  Duplicate: "Duplicate value",
  NotFound: "Not found",
  NotSupported: "Unsupported value",
  TooLong: "Too long",
  Forbidden: "Forbidden",
};

/** Go's strconv.Quote, which %q uses: printable runes as they are, the rest escaped. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\t") out += "\\t";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\x07") out += "\\a";
    else if (ch === "\b") out += "\\b";
    else if (ch === "\f") out += "\\f";
    else if (ch === "\v") out += "\\v";
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, "0")}`;
    else if (/^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(ch)) out += ch;
    else if (cp <= 0xffff) out += `\\u${cp.toString(16).padStart(4, "0")}`;
    else out += `\\U${cp.toString(16).padStart(8, "0")}`;
  }
  return out + '"';
}

/** How field.Error prints a bad value: %v for numbers and booleans, %q for strings, %#v otherwise. */
function formatValue(value: unknown): string {
  if (value === undefined || value === null) return "null";
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return String(value);
  if (typeof value === "string") return goQuote(value);
  // A resource.Quantity passed by value is printed through its String() method.
  if (value instanceof Quantity) return value.toString();
  if (Array.isArray(value) && value.every((v) => typeof v === "string")) {
    return `[]string{${value.map((v) => goQuote(v as string)).join(", ")}}`;
  }
  try {
    return JSON.stringify(value) ?? "null";
  } catch {
    return String(value);
  }
}

/** field.Error.ErrorBody(): the message without the field path. */
export function fieldErrorBody(e: Pick<FieldError, "type" | "value" | "detail">): string {
  let s = TYPE_TEXT[e.type];
  // Required, Forbidden and TooLong never print the value.
  if (e.type !== "Required" && e.type !== "Forbidden" && e.type !== "TooLong") s += `: ${formatValue(e.value)}`;
  if (e.detail) s += `: ${e.detail}`;
  return s;
}

/** field.Error.Error(): "<field>: <body>". */
export function fieldErrorMessage(e: Pick<FieldError, "field" | "type" | "value" | "detail">): string {
  return `${e.field}: ${fieldErrorBody(e)}`;
}

function makeError(field: string, type: FieldErrorType, value: unknown, detail: string): FieldError {
  const e: FieldError = { field, type, message: "" };
  if (type !== "Required" && type !== "Forbidden") e.value = value;
  if (detail) e.detail = detail;
  e.message = fieldErrorMessage(e);
  return e;
}

const required = (field: string, detail = ""): FieldError => makeError(field, "Required", undefined, detail);
const invalid = (field: string, value: unknown, detail: string): FieldError => makeError(field, "Invalid", value, detail);
const duplicate = (field: string, value: unknown): FieldError => makeError(field, "Duplicate", value, "");
const notFound = (field: string, value: unknown): FieldError => makeError(field, "NotFound", value, "");
const forbidden = (field: string, detail: string): FieldError => makeError(field, "Forbidden", undefined, detail);
const tooLong = (field: string, max: number): FieldError => makeError(field, "TooLong", undefined, `must have at most ${max} bytes`);
function notSupported(field: string, value: unknown, supported: readonly string[]): FieldError {
  const detail = supported.length > 0 ? `supported values: ${supported.map(goQuote).join(", ")}` : "";
  return makeError(field, "NotSupported", value, detail);
}

const child = (path: string, name: string): string => (path ? `${path}.${name}` : name);
const index = (path: string, i: number): string => `${path}[${i}]`;
const key = (path: string, k: string): string => `${path}[${k}]`;

// ---- apimachinery pkg/util/validation: names and their messages ----------------------------------

function maxLenError(n: number): string {
  return `must be no more than ${n} characters`;
}

/** RegexError: msg + " (e.g. 'a',  or 'b', regex used for validation is 'fmt')" (sic, two spaces). */
function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  let s = `${msg} (e.g. `;
  examples.forEach((ex, i) => {
    if (i > 0) s += " or ";
    s += `'${ex}', `;
  });
  return `${s}regex used for validation is '${fmt}')`;
}

const DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS1123_LABEL_RE = new RegExp(`^${DNS1123_LABEL_FMT}$`);
const DNS1123_SUBDOMAIN_RE = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);

export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push(maxLenError(63));
  if (!DNS1123_LABEL_RE.test(value)) {
    if (DNS1123_SUBDOMAIN_RE.test(value)) errs.push("must not contain dots");
    else errs.push(regexError(DNS1123_LABEL_MSG, DNS1123_LABEL_FMT, "my-name", "123-abc"));
  }
  return errs;
}

export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push(maxLenError(253));
  if (!DNS1123_SUBDOMAIN_RE.test(value)) errs.push(regexError(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, "example.com"));
  return errs;
}

/** The longest pod UID accepted: a Kubernetes UUID has 36 characters, the static pod hash 32. */
export const MAX_POD_UID_LENGTH = 128;
const POD_UID_PATTERN = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;

/**
 * Why `uid` cannot identify a pod on this node, or undefined when it can. The agent writes UIDs into
 * paths (<root-dir>/pods/<uid>, the pod's log folder, its cgroup), so one is accepted only as a plain
 * name: lowercase letters, digits and '-', starting and ending with a letter or digit, at most 128
 * characters. API server UUIDs (RFC 4122, lowercase) and the 32 hex digits of staticPodUID pass.
 * The kubelet trusts the API server's UUIDs and takes a file's uid as written; nodeagent also has
 * sources anyone with a token or a URL can feed, hence the check (issue 12).
 */
export function podUIDProblem(uid: string): string | undefined {
  if (uid.length === 0) return "must not be empty";
  if (uid.length > MAX_POD_UID_LENGTH) return `must have at most ${MAX_POD_UID_LENGTH} characters`;
  if (!POD_UID_PATTERN.test(uid)) {
    return "must consist of lowercase letters, digits and '-', and start and end with a letter or digit (a UUID such as 8f2d7c4e-1b3a-4c5d-9e6f-0a1b2c3d4e5f)";
  }
  return undefined;
}

const QUALIFIED_NAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const QUALIFIED_NAME_MSG = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const QUALIFIED_NAME_RE = new RegExp(`^${QUALIFIED_NAME_FMT}$`);

export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split("/");
  let name: string;
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push("prefix part must be non-empty");
    else for (const m of isDNS1123Subdomain(prefix)) errs.push(`prefix part ${m}`);
  } else {
    return [
      `a qualified name ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")}` +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errs.push("name part must be non-empty");
  else if (name.length > 63) errs.push(`name part ${maxLenError(63)}`);
  if (!QUALIFIED_NAME_RE.test(name)) errs.push(`name part ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")}`);
  return errs;
}

const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
const LABEL_VALUE_RE = new RegExp(`^${LABEL_VALUE_FMT}$`);
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push(maxLenError(63));
  if (!LABEL_VALUE_RE.test(value)) errs.push(regexError(LABEL_VALUE_MSG, LABEL_VALUE_FMT, "MyValue", "my_value", "12345"));
  return errs;
}

/** IsValidPortName: an IANA_SVC_NAME. */
export function isValidPortName(port: string): string[] {
  const errs: string[] = [];
  if (port.length > 15) errs.push(maxLenError(15));
  if (!/^[-a-z0-9]+$/.test(port)) errs.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  if (!/[a-z]/.test(port)) errs.push("must contain at least one letter (a-z)");
  if (port.includes("--")) errs.push("must not contain consecutive hyphens");
  if (port.length > 0 && (port.startsWith("-") || port.endsWith("-"))) errs.push("must not begin or end with a hyphen");
  return errs;
}

const inclusiveRangeError = (lo: number, hi: number): string => `must be between ${lo} and ${hi}, inclusive`;

export function isValidPortNum(port: number): string[] {
  return Number.isInteger(port) && port >= 1 && port <= 65535 ? [] : [inclusiveRangeError(1, 65535)];
}

const ENV_VAR_NAME_FMT = "[-._a-zA-Z][-._a-zA-Z0-9]*";
const ENV_VAR_NAME_RE = new RegExp(`^${ENV_VAR_NAME_FMT}$`);

/**
 * IsEnvVarName, the rule before RelaxedEnvironmentVariableValidation; also the kubelet's check of
 * envFrom keys (k/k@1.24.1 makeEnvironmentVariables). Empty when valid, else the messages.
 */
export function isEnvVarName(value: string): string[] {
  const errs: string[] = [];
  if (!ENV_VAR_NAME_RE.test(value)) {
    errs.push(
      regexError(
        "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit",
        ENV_VAR_NAME_FMT,
        "my.env-name",
        "MY_ENV.NAME",
        "MyEnvName1",
      ),
    );
  }
  errs.push(...hasChDirPrefix(value));
  return errs;
}

function hasChDirPrefix(value: string): string[] {
  if (value === ".") return ["must not be '.'"];
  if (value === "..") return ["must not be '..'"];
  if (value.startsWith("..")) return ["must not start with '..'"];
  return [];
}

/** IsRelaxedEnvVarName: printable ASCII other than '='. */
function isRelaxedEnvVarName(value: string): string[] {
  const errs: string[] = [];
  if (value.length === 0) errs.push("environment variable name must be non-empty");
  for (const ch of value) {
    const cp = ch.codePointAt(0)!;
    if (cp > 0x7f || cp < 0x20 || cp === 0x7f || ch === "=") {
      errs.push("a valid environment variable name must consist only of printable ASCII characters other than '='");
      break;
    }
  }
  return errs;
}

const CONFIG_MAP_KEY_FMT = "[-._a-zA-Z0-9]+";

export function isConfigMapKey(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push(maxLenError(253));
  if (!new RegExp(`^${CONFIG_MAP_KEY_FMT}$`).test(value)) {
    errs.push(
      regexError("a valid config key must consist of alphanumeric characters, '-', '_' or '.'", CONFIG_MAP_KEY_FMT, "key.name", "KEY_NAME", "key-name"),
    );
  }
  errs.push(...hasChDirPrefix(value));
  return errs;
}

// ---- metadata ------------------------------------------------------------------------------------

const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

function validateLabels(labels: Record<string, string> | undefined, path: string, errs: FieldError[]): void {
  for (const [k, v] of Object.entries(labels ?? {})) {
    for (const m of isQualifiedName(k)) errs.push(invalid(path, k, m));
    for (const m of isValidLabelValue(v)) errs.push(invalid(key(path, k), v, m));
  }
}

function validateMetadata(pod: Pod, errs: FieldError[]): void {
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

// ---- volumes -------------------------------------------------------------------------------------

/** validateVolumeSource's order, with the child names it uses in "more than 1 volume type" errors. */
const VOLUME_SOURCES: ReadonlyArray<readonly [string, string]> = [
  ["emptyDir", "emptyDir"], ["hostPath", "hostPath"], ["gitRepo", "gitRepo"], ["gcePersistentDisk", "gcePersistentDisk"],
  ["awsElasticBlockStore", "awsElasticBlockStore"], ["secret", "secret"], ["nfs", "nfs"], ["iscsi", "iscsi"],
  ["glusterfs", "glusterfs"], ["flocker", "flocker"], ["persistentVolumeClaim", "persistentVolumeClaim"], ["rbd", "rbd"],
  ["cinder", "cinder"], ["cephfs", "cephFS"], ["quobyte", "quobyte"], ["downwardAPI", "downwarAPI" /* sic, upstream */],
  ["fc", "fc"], ["flexVolume", "flexVolume"], ["configMap", "configMap"], ["azureFile", "azureFile"],
  ["vsphereVolume", "vsphereVolume"], ["photonPersistentDisk", "photonPersistentDisk"], ["portworxVolume", "portworxVolume"],
  ["azureDisk", "azureDisk"], ["storageos", "storageos"], ["projected", "projected"], ["scaleIO", "scaleIO"], ["csi", "csi"],
  ["ephemeral", "ephemeral"], ["image", "image"],
];

const HOST_PATH_TYPES = ["", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"];

function validatePathNoBacksteps(target: string, path: string): FieldError[] {
  return target.split("/").includes("..") ? [invalid(path, target, "must not contain '..'")] : [];
}

function validateLocalDescendingPath(target: string, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (target.startsWith("/")) errs.push(invalid(path, target, "must be a relative path"));
  errs.push(...validatePathNoBacksteps(target, path));
  return errs;
}

function validateVolumeSource(v: Record<string, unknown>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let count = 0;
  for (const [k, childName] of VOLUME_SOURCES) {
    const source = v[k];
    if (source === undefined || source === null) continue;
    if (count > 0) {
      errs.push(forbidden(child(path, childName), "may not specify more than 1 volume type"));
      continue;
    }
    count++;
    const src = source as Record<string, unknown>;
    if (k === "hostPath") {
      const p = typeof src.path === "string" ? src.path : "";
      if (!p) errs.push(required(child(path, "hostPath.path")));
      else {
        errs.push(...validatePathNoBacksteps(p, child(path, "hostPath.path")));
        const t = src.type;
        if (typeof t === "string" && !HOST_PATH_TYPES.includes(t)) errs.push(notSupported(child(path, "hostPath.type"), t, HOST_PATH_TYPES));
      }
    } else if (k === "emptyDir" && src.sizeLimit !== undefined && src.sizeLimit !== null) {
      const q = tryParseQuantity(src.sizeLimit as string | number);
      if (q instanceof Quantity && q.sign() < 0) {
        errs.push(forbidden(child(path, "emptyDir.sizeLimit"), "SizeLimit field must be a valid resource quantity"));
      }
    } else if (k === "nfs") {
      if (!src.server) errs.push(required(child(path, "nfs.server")));
      if (!src.path) errs.push(required(child(path, "nfs.path")));
      else if (typeof src.path === "string" && !src.path.startsWith("/")) errs.push(invalid(child(path, "nfs.path"), src.path, "must be an absolute path"));
    } else if (k === "image" && !src.reference) {
      errs.push(required(child(path, "image.reference")));
    }
  }
  if (count === 0) errs.push(required(path, "must specify a volume type"));
  return errs;
}

/** ValidateVolumes: returns the names of the valid volumes, which volumeMounts may refer to. */
function validateVolumes(volumes: Volume[], path: string, errs: FieldError[]): Map<string, Record<string, unknown>> {
  const valid = new Map<string, Record<string, unknown>>();
  volumes.forEach((vol, i) => {
    const idx = index(path, i);
    const namePath = child(idx, "name");
    const record = vol as unknown as Record<string, unknown>;
    const el = validateVolumeSource(record, idx);
    const name = vol.name ?? "";
    if (!name) el.push(required(namePath));
    else for (const m of isDNS1123Label(name)) el.push(invalid(namePath, name, m));
    if (valid.has(name)) el.push(duplicate(namePath, name));
    if (el.length === 0) valid.set(name, record);
    else errs.push(...el);
  });
  return valid;
}

// ---- containers ----------------------------------------------------------------------------------

const PORT_PROTOCOLS = ["SCTP", "TCP", "UDP"];
const PULL_POLICIES = ["Always", "IfNotPresent", "Never"];
const TERMINATION_MESSAGE_POLICIES = ["File", "FallbackToLogsOnError"];
const MOUNT_PROPAGATION_MODES = ["Bidirectional", "HostToContainer", "None"];

function validatePorts(c: Container, path: string, errs: FieldError[]): void {
  const names = new Set<string>();
  (c.ports ?? []).forEach((port, i) => {
    const idx = index(path, i);
    if (port.name) {
      const msgs = isValidPortName(port.name);
      if (msgs.length > 0) for (const m of msgs) errs.push(invalid(child(idx, "name"), port.name, m));
      else if (names.has(port.name)) errs.push(duplicate(child(idx, "name"), port.name));
      else names.add(port.name);
    }
    if (!port.containerPort) errs.push(required(child(idx, "containerPort")));
    else for (const m of isValidPortNum(port.containerPort)) errs.push(invalid(child(idx, "containerPort"), port.containerPort, m));
    if (port.hostPort) for (const m of isValidPortNum(port.hostPort)) errs.push(invalid(child(idx, "hostPort"), port.hostPort, m));
    if (!port.protocol) errs.push(required(child(idx, "protocol")));
    else if (!PORT_PROTOCOLS.includes(port.protocol)) errs.push(notSupported(child(idx, "protocol"), port.protocol, PORT_PROTOCOLS));
  });
}

const ENV_FIELD_PATHS = [
  "metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName",
  "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs",
];
/** The labels ConvertDownwardAPIFieldLabel knows for v1 pods; others fail conversion. */
const CONVERTIBLE_FIELD_PATHS = new Set([
  ...ENV_FIELD_PATHS, "metadata.annotations", "metadata.labels", "spec.restartPolicy", "spec.schedulerName", "status.phase",
]);
const RESOURCE_FIELD_PATHS = [
  "limits.cpu", "limits.ephemeral-storage", "limits.memory", "requests.cpu", "requests.ephemeral-storage", "requests.memory",
];

function validateEnv(env: EnvVar[], path: string, opts: Required<PodValidationOptions>, errs: FieldError[]): void {
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
    for (const [name, ref] of [["configMapKeyRef", from.configMapKeyRef], ["secretKeyRef", from.secretKeyRef]] as const) {
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

function validateEnvFrom(c: Container, path: string, opts: Required<PodValidationOptions>, errs: FieldError[]): void {
  (c.envFrom ?? []).forEach((ef, i) => {
    const idx = index(path, i);
    if (ef.prefix) {
      const msgs = opts.relaxedEnvVarNames ? isRelaxedEnvVarName(ef.prefix) : isEnvVarName(ef.prefix);
      for (const m of msgs) errs.push(invalid(child(idx, "prefix"), ef.prefix, m));
    }
    let sources = 0;
    for (const [name, ref] of [["configMapRef", ef.configMapRef], ["secretRef", ef.secretRef]] as const) {
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

function validateVolumeMounts(c: Container, volumes: Map<string, Record<string, unknown>>, path: string, errs: FieldError[]): void {
  const mountPoints = new Set<string>();
  (c.volumeMounts ?? []).forEach((m, i) => {
    const idx = index(path, i);
    if (!m.name) errs.push(required(child(idx, "name")));
    const vol = volumes.get(m.name ?? "");
    if (!vol) errs.push(notFound(child(idx, "name"), m.name ?? ""));
    if (!m.mountPath) errs.push(required(child(idx, "mountPath")));
    if (mountPoints.has(m.mountPath ?? "")) errs.push(invalid(child(idx, "mountPath"), m.mountPath ?? "", "must be unique"));
    mountPoints.add(m.mountPath ?? "");
    if (vol && vol.image !== undefined && vol.image !== null) {
      if (m.subPath) errs.push(invalid(child(idx, "subPath"), m.subPath, "not allowed in image volume sources"));
      if (m.subPathExpr) errs.push(invalid(child(idx, "subPathExpr"), m.subPathExpr, "not allowed in image volume sources"));
    }
    // Upstream passes the list path, not the item path, for these two (validateLocalDescendingPath).
    if (m.subPath) errs.push(...validateLocalDescendingPath(m.subPath, child(path, "subPath")));
    if (m.subPathExpr) {
      if (m.subPath) errs.push(invalid(child(idx, "subPathExpr"), m.subPathExpr, "subPathExpr and subPath are mutually exclusive"));
      errs.push(...validateLocalDescendingPath(m.subPathExpr, child(path, "subPathExpr")));
    }
    if (m.mountPropagation !== undefined && m.mountPropagation !== null) {
      const propPath = child(path, "mountPropagation");
      if (!MOUNT_PROPAGATION_MODES.includes(m.mountPropagation)) {
        errs.push(notSupported(propPath, m.mountPropagation, MOUNT_PROPAGATION_MODES));
      } else if (m.mountPropagation === "Bidirectional" && c.securityContext?.privileged !== true) {
        errs.push(forbidden(propPath, "Bidirectional mount propagation is available only to privileged containers"));
      }
    }
  });
}

const STANDARD_CONTAINER_RESOURCES = new Set(["cpu", "memory", "ephemeral-storage"]);

const isHugePages = (name: string): boolean => name.startsWith("hugepages-");
const isNativeResource = (name: string): boolean => !name.includes("/") || name.startsWith("kubernetes.io/");
/** Only native, non-hugepages resources may be overcommitted (requests < limits). */
const isOvercommitAllowed = (name: string): boolean => isNativeResource(name) && !isHugePages(name);
const isExtendedResource = (name: string): boolean =>
  !isNativeResource(name) && !name.startsWith("requests.") && isQualifiedName(`requests.${name}`).length === 0;

function validateResourceName(name: string, path: string, errs: FieldError[]): void {
  for (const m of isQualifiedName(name)) errs.push(invalid(path, name, m));
  if (!name.includes("/")) {
    if (!STANDARD_CONTAINER_RESOURCES.has(name) && !isHugePages(name)) errs.push(invalid(path, name, "must be a standard resource for containers"));
  } else if (!isNativeResource(name) && !isExtendedResource(name)) {
    errs.push(invalid(path, name, "doesn't follow extended resource name standard"));
  }
}

/** A quantity as the API server holds it after SetDefaults_ResourceList: rounded up to milli-units. */
function defaultedQuantity(v: unknown): Quantity | undefined {
  if (typeof v !== "string" && typeof v !== "number") return undefined;
  const q = tryParseQuantity(v);
  return q instanceof Quantity ? q.roundUp(-3) : undefined;
}

function hugePageDivisible(name: string, q: Quantity): boolean {
  const size = defaultedQuantity(name.slice("hugepages-".length));
  if (!size || size.sign() <= 0 || size.milli() % 1000 !== 0) return false;
  return q.value() % size.value() === 0;
}

function validateQuantityValue(name: string, q: Quantity, path: string, errs: FieldError[]): void {
  if (q.sign() < 0) errs.push(invalid(path, q.toString(), "must be greater than or equal to 0"));
  // Extended resources are counted in whole units (IsIntegerResourceName).
  if (isExtendedResource(name) && q.milli() % 1000 !== 0) errs.push(invalid(path, q, "must be an integer"));
}

function validateResources(res: ResourceRequirements | undefined, path: string, errs: FieldError[]): void {
  const limPath = child(path, "limits");
  const reqPath = child(path, "requests");
  const limits = res?.limits ?? {};
  const requests = res?.requests ?? {};
  let cpuOrMemory = false;
  let hugePages = false;
  const parsedLimits = new Map<string, Quantity>();
  for (const name of Object.keys(limits).sort()) {
    const p = key(limPath, name);
    validateResourceName(name, p, errs);
    const q = defaultedQuantity(limits[name]);
    if (!q) {
      errs.push(invalid(p, String(limits[name]), quantityErrorDetail(limits[name])));
      continue;
    }
    parsedLimits.set(name, q);
    validateQuantityValue(name, q, p, errs);
    if (isHugePages(name)) {
      hugePages = true;
      if (!hugePageDivisible(name, q)) errs.push(invalid(p, q.toString(), `${q} is not positive integer multiple of ${name}`));
    }
    if (name === "cpu" || name === "memory") cpuOrMemory = true;
  }
  for (const name of Object.keys(requests).sort()) {
    const p = key(reqPath, name);
    validateResourceName(name, p, errs);
    const q = defaultedQuantity(requests[name]);
    if (!q) {
      errs.push(invalid(p, String(requests[name]), quantityErrorDetail(requests[name])));
      continue;
    }
    validateQuantityValue(name, q, p, errs);
    const limit = parsedLimits.get(name);
    if (limit) {
      // Not-overcommittable resources must request exactly their limit. Upstream reports both at
      // the requests map, not at the key.
      if (q.cmp(limit) !== 0 && !isOvercommitAllowed(name)) {
        errs.push(invalid(reqPath, q.toString(), `must be equal to ${name} limit of ${limit}`));
      } else if (q.cmp(limit) > 0) {
        errs.push(invalid(reqPath, q.toString(), `must be less than or equal to ${name} limit of ${limit}`));
      }
    } else if (!(name in limits) && !isOvercommitAllowed(name)) {
      errs.push(required(limPath, "Limit must be set for non overcommitable resources"));
    }
    if (isHugePages(name)) {
      hugePages = true;
      if (!hugePageDivisible(name, q)) errs.push(invalid(p, q.toString(), `${q} is not positive integer multiple of ${name}`));
    }
    if (name === "cpu" || name === "memory") cpuOrMemory = true;
  }
  if (hugePages && !cpuOrMemory) errs.push(forbidden(path, "HugePages require cpu or memory"));
}

function quantityErrorDetail(v: unknown): string {
  if (typeof v !== "string" && typeof v !== "number") return "must be a quantity";
  const q = tryParseQuantity(v);
  return q instanceof Quantity ? "must be a quantity" : q.message;
}

const HTTP_SCHEMES = ["HTTP", "HTTPS"];

function validatePortNumOrName(port: number | string | undefined, path: string, errs: FieldError[]): void {
  if (typeof port === "string") for (const m of isValidPortName(port)) errs.push(invalid(path, port, m));
  else for (const m of isValidPortNum(port ?? 0)) errs.push(invalid(path, port ?? 0, m));
}

function validateHTTPGet(h: HTTPGetAction, path: string, errs: FieldError[]): void {
  if (!h.path) errs.push(required(child(path, "path")));
  validatePortNumOrName(h.port, child(path, "port"), errs);
  if (!HTTP_SCHEMES.includes(h.scheme ?? "")) errs.push(notSupported(child(path, "scheme"), h.scheme ?? "", HTTP_SCHEMES));
  for (const header of h.httpHeaders ?? []) {
    if (!/^[-A-Za-z0-9]+$/.test(header.name ?? "")) {
      errs.push(
        invalid(child(path, "httpHeaders"), header.name ?? "", regexError("a valid HTTP header must consist of alphanumeric characters or '-'", "[-A-Za-z0-9]+", "X-Header-Name")),
      );
    }
  }
}

interface Handler {
  exec?: { command?: string[] } | undefined;
  httpGet?: HTTPGetAction | undefined;
  tcpSocket?: { port: number | string } | undefined;
  grpc?: { port: number } | undefined;
  sleep?: { seconds: number } | undefined;
}

/** validateHandler: exactly one of exec, httpGet, tcpSocket, grpc (probes) or sleep (lifecycle). */
function validateHandler(h: Handler, gracePeriod: number | undefined, path: string, errs: FieldError[]): void {
  let n = 0;
  const more = (name: string): boolean => {
    if (n > 0) {
      errs.push(forbidden(child(path, name), "may not specify more than 1 handler type"));
      return true;
    }
    n++;
    return false;
  };
  if (h.exec && !more("exec") && (h.exec.command ?? []).length === 0) errs.push(required(child(path, "exec.command")));
  if (h.httpGet && !more("httpGet")) validateHTTPGet(h.httpGet, child(path, "httpGet"), errs);
  if (h.tcpSocket && !more("tcpSocket")) validatePortNumOrName(h.tcpSocket.port, child(path, "tcpSocket.port"), errs);
  if (h.grpc && !more("grpc")) validatePortNumOrName(h.grpc.port, child(path, "grpc.port"), errs);
  if (h.sleep && !more("sleep")) {
    // PodLifecycleSleepActionAllowZero (on since 1.33) allows 0.
    const s = h.sleep.seconds;
    if (gracePeriod !== undefined && (s < 0 || s > gracePeriod)) {
      errs.push(invalid(child(path, "sleep"), s, `must be non-negative and less than terminationGracePeriodSeconds (${gracePeriod})`));
    }
  }
  if (n === 0) errs.push(required(path, "must specify a handler type"));
}

function validateProbe(p: Probe, kind: "liveness" | "readiness" | "startup", gracePeriod: number | undefined, path: string, errs: FieldError[]): void {
  validateHandler({ exec: p.exec, httpGet: p.httpGet, tcpSocket: p.tcpSocket, grpc: p.grpc }, gracePeriod, path, errs);
  for (const f of ["initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold"] as const) {
    const v = p[f] ?? 0;
    if (v < 0) errs.push(invalid(child(path, f), v, "must be greater than or equal to 0"));
  }
  const tgps = p.terminationGracePeriodSeconds;
  if (tgps !== undefined && tgps !== null && tgps <= 0) errs.push(invalid(child(path, "terminationGracePeriodSeconds"), tgps, "must be greater than 0"));
  if (kind === "readiness") {
    if (tgps !== undefined && tgps !== null) errs.push(invalid(child(path, "terminationGracePeriodSeconds"), tgps, "must not be set for readinessProbes"));
  } else if ((p.successThreshold ?? 0) !== 1) {
    errs.push(invalid(child(path, "successThreshold"), p.successThreshold ?? 0, "must be 1"));
  }
}

function validateLifecycleAndProbes(c: Container, gracePeriod: number | undefined, path: string, errs: FieldError[]): void {
  if (c.lifecycle?.postStart) validateHandler(c.lifecycle.postStart, gracePeriod, child(path, "lifecycle.postStart"), errs);
  if (c.lifecycle?.preStop) validateHandler(c.lifecycle.preStop, gracePeriod, child(path, "lifecycle.preStop"), errs);
  if (c.livenessProbe) validateProbe(c.livenessProbe, "liveness", gracePeriod, child(path, "livenessProbe"), errs);
  if (c.readinessProbe) validateProbe(c.readinessProbe, "readiness", gracePeriod, child(path, "readinessProbe"), errs);
  if (c.startupProbe) validateProbe(c.startupProbe, "startup", gracePeriod, child(path, "startupProbe"), errs);
}

function validateContainerCommon(
  c: Container,
  volumes: Map<string, Record<string, unknown>>,
  path: string,
  opts: Required<PodValidationOptions>,
  errs: FieldError[],
): void {
  if (!c.name) errs.push(required(child(path, "name")));
  else for (const m of isDNS1123Label(c.name)) errs.push(invalid(child(path, "name"), c.name, m));
  if (!c.image) errs.push(required(child(path, "image")));
  const tmp = c.terminationMessagePolicy;
  if (!tmp) errs.push(required(child(path, "terminationMessagePolicy")));
  else if (!TERMINATION_MESSAGE_POLICIES.includes(tmp)) {
    errs.push(notSupported(child(path, "terminationMessagePolicy"), tmp, TERMINATION_MESSAGE_POLICIES));
  }
  validatePorts(c, child(path, "ports"), errs);
  validateEnv(c.env ?? [], child(path, "env"), opts, errs);
  validateEnvFrom(c, child(path, "envFrom"), opts, errs);
  validateVolumeMounts(c, volumes, child(path, "volumeMounts"), errs);
  const pull = c.imagePullPolicy;
  if (!pull) errs.push(required(child(path, "imagePullPolicy")));
  else if (!PULL_POLICIES.includes(pull)) errs.push(notSupported(child(path, "imagePullPolicy"), pull, PULL_POLICIES));
  validateResources(c.resources, child(path, "resources"), errs);
}

/** AccumulateUniqueHostPorts: "<protocol>/<hostIP>/<hostPort>" must be unique. */
function checkHostPortConflicts(containers: Container[], path: string, errs: FieldError[]): void {
  const seen = new Set<string>();
  containers.forEach((c, ci) => {
    (c.ports ?? []).forEach((p, pi) => {
      if (!p.hostPort) return;
      const k = `${p.protocol ?? ""}/${p.hostIP ?? ""}/${p.hostPort}`;
      if (seen.has(k)) errs.push(duplicate(child(index(child(index(path, ci), "ports"), pi), "hostPort"), k));
      else seen.add(k);
    });
  });
}

function validateContainers(spec: PodSpec, volumes: Map<string, Record<string, unknown>>, opts: Required<PodValidationOptions>, errs: FieldError[]): void {
  const path = "spec.containers";
  const containers = spec.containers ?? [];
  if (containers.length === 0) {
    errs.push(required(path));
    return;
  }
  const names = new Set<string>();
  containers.forEach((c, i) => {
    const idx = index(path, i);
    validateContainerCommon(c, volumes, idx, opts, errs);
    if (names.has(c.name ?? "")) errs.push(duplicate(child(idx, "name"), c.name ?? ""));
    else names.add(c.name ?? "");
    validateLifecycleAndProbes(c, spec.terminationGracePeriodSeconds, idx, errs);
    if (c.restartPolicy !== undefined && c.restartPolicy !== null) errs.push(forbidden(child(idx, "restartPolicy"), "may not be set for non-init containers"));
  });
  checkHostPortConflicts(containers, path, errs);
}

function validateInitContainers(spec: PodSpec, volumes: Map<string, Record<string, unknown>>, opts: Required<PodValidationOptions>, errs: FieldError[]): void {
  const path = "spec.initContainers";
  const names = new Set((spec.containers ?? []).map((c) => c.name ?? ""));
  (spec.initContainers ?? []).forEach((c, i) => {
    const idx = index(path, i);
    validateContainerCommon(c, volumes, idx, opts, errs);
    let restartAlways = false;
    if (c.restartPolicy !== undefined && c.restartPolicy !== null) {
      if (c.restartPolicy !== "Always") errs.push(notSupported(child(idx, "restartPolicy"), c.restartPolicy, ["Always"]));
      restartAlways = c.restartPolicy === "Always";
    }
    if (names.has(c.name ?? "")) errs.push(duplicate(child(idx, "name"), c.name ?? ""));
    else if (c.name) names.add(c.name);
    // Init containers run one at a time, so only their own ports can collide.
    checkHostPortConflicts([c], path, errs);
    if (restartAlways) {
      validateLifecycleAndProbes(c, spec.terminationGracePeriodSeconds, idx, errs);
    } else {
      for (const f of ["lifecycle", "livenessProbe", "readinessProbe", "startupProbe"] as const) {
        if (c[f]) errs.push(forbidden(child(idx, f), "may not be set for init containers without restartPolicy=Always"));
      }
    }
  });
}

// ---- security contexts ---------------------------------------------------------------------------

const PROFILE_TYPES = ["Localhost", "RuntimeDefault", "Unconfined"];

/** validateSeccompProfileField (the offending value is printed as the profile name, not Go's struct). */
function validateSeccompProfile(sp: SeccompProfile | undefined, path: string, errs: FieldError[]): void {
  if (!sp) return;
  if (!sp.type) errs.push(required(child(path, "type"), "type is required when seccompProfile is set"));
  else if (!PROFILE_TYPES.includes(sp.type)) errs.push(notSupported(child(path, "type"), sp.type, PROFILE_TYPES));
  const lp = sp.localhostProfile;
  if (sp.type === "Localhost") {
    if (lp === undefined || lp === null) errs.push(required(child(path, "localhostProfile"), "must be set when seccomp type is Localhost"));
    else errs.push(...validateLocalDescendingPath(lp, child(path, "localhostProfile")));
  } else if (lp !== undefined && lp !== null) {
    errs.push(invalid(child(path, "localhostProfile"), lp, "can only be set when seccomp type is Localhost"));
  }
}

/** validateAppArmorProfileField. */
function validateAppArmorProfile(p: AppArmorProfile | undefined, path: string, errs: FieldError[]): void {
  if (!p) return;
  const lp = p.localhostProfile;
  if (p.type === "Localhost") {
    if (lp === undefined || lp === null) errs.push(required(child(path, "localhostProfile"), "must be set when AppArmor type is Localhost"));
    else if (lp.trim() !== lp) errs.push(invalid(child(path, "localhostProfile"), lp, "must not be padded with whitespace"));
    else if (lp === "") errs.push(required(child(path, "localhostProfile"), "must be set when AppArmor type is Localhost"));
  } else if (p.type === "RuntimeDefault" || p.type === "Unconfined") {
    if (lp !== undefined && lp !== null) errs.push(invalid(child(path, "localhostProfile"), lp, "can only be set when AppArmor type is Localhost"));
  } else if (!p.type) {
    errs.push(required(child(path, "type"), "type is required when appArmorProfile is set"));
  } else {
    errs.push(notSupported(child(path, "type"), p.type, PROFILE_TYPES));
  }
}

/**
 * The securityContext rules that decide what a container runs with: the pod's and each container's
 * seccompProfile and appArmorProfile, procMount (Default or Unmasked; Unmasked only with hostUsers:
 * false, which ValidateSecurityContext words "`hostUsers` must be false to use `Unmasked`"), and the
 * deprecated AppArmor annotations (ValidateAppArmorPodAnnotations: a known container, a valid profile).
 */
function validateSecurityContexts(pod: Pod, errs: FieldError[]): void {
  const spec: PodSpec = pod.spec ?? { containers: [] };
  validateSeccompProfile(spec.securityContext?.seccompProfile, "spec.securityContext.seccompProfile", errs);
  validateAppArmorProfile(spec.securityContext?.appArmorProfile, "spec.securityContext.appArmorProfile", errs);
  const hostUsers = spec.hostUsers !== false;
  for (const [list, path] of [[spec.initContainers ?? [], "spec.initContainers"], [spec.containers ?? [], "spec.containers"]] as const) {
    list.forEach((c, i) => {
      const sc = c.securityContext;
      if (!sc) return;
      const scPath = child(index(path, i), "securityContext");
      validateSeccompProfile(sc.seccompProfile, child(scPath, "seccompProfile"), errs);
      validateAppArmorProfile(sc.appArmorProfile, child(scPath, "appArmorProfile"), errs);
      if (sc.procMount !== undefined && sc.procMount !== null) {
        if (sc.procMount !== "Default" && sc.procMount !== "Unmasked") errs.push(notSupported(child(scPath, "procMount"), sc.procMount, ["Default", "Unmasked"]));
        else if (sc.procMount === "Unmasked" && hostUsers) errs.push(invalid(child(scPath, "procMount"), sc.procMount, "`hostUsers` must be false to use `Unmasked`"));
      }
    });
  }
  const names = new Set([...(spec.initContainers ?? []), ...(spec.containers ?? []), ...(spec.ephemeralContainers ?? [])].map((c) => c.name));
  for (const [k, v] of Object.entries(pod.metadata?.annotations ?? {})) {
    if (!k.startsWith(APPARMOR_ANNOTATION_PREFIX)) continue;
    const container = k.slice(APPARMOR_ANNOTATION_PREFIX.length);
    if (!names.has(container)) errs.push(invalid(key("metadata.annotations", k), container, "container not found"));
    const known = v === "" || v === APPARMOR_ANNOTATION_RUNTIME_DEFAULT || v === APPARMOR_ANNOTATION_UNCONFINED || v.startsWith(APPARMOR_ANNOTATION_LOCALHOST_PREFIX);
    if (!known) errs.push(invalid(key("metadata.annotations", k), v, `invalid AppArmor profile name: ${goQuote(v)}`));
  }
}

// ---- pod spec ------------------------------------------------------------------------------------

const RESTART_POLICIES = ["Always", "OnFailure", "Never"];
const DNS_POLICIES = ["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"];
const TAINT_EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"];

function validateTolerations(spec: PodSpec, errs: FieldError[]): void {
  (spec.tolerations ?? []).forEach((t, i) => {
    const idx = index("spec.tolerations", i);
    const k = t.key ?? "";
    if (k) for (const m of isQualifiedName(k)) errs.push(invalid(child(idx, "key"), k, m));
    if (!k && t.operator !== "Exists") {
      errs.push(invalid(child(idx, "operator"), t.operator ?? "", 'operator must be Exists when `key` is empty, which means "match all values and all keys"'));
    }
    if (t.tolerationSeconds !== undefined && t.tolerationSeconds !== null && t.effect !== "NoExecute") {
      errs.push(invalid(child(idx, "effect"), t.effect ?? "", "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    }
    const op = t.operator ?? "";
    if (op === "Equal" || op === "") {
      const msgs = isValidLabelValue(t.value ?? "");
      if (msgs.length > 0) errs.push(invalid(child(idx, "operator"), t.value ?? "", msgs.join(";")));
    } else if (op === "Exists") {
      if (t.value) errs.push(invalid(child(idx, "operator"), t.value, "value must be empty when `operator` is 'Exists'"));
    } else {
      errs.push(notSupported(child(idx, "operator"), op, ["Equal", "Exists"]));
    }
    if (t.effect && !TAINT_EFFECTS.includes(t.effect)) errs.push(notSupported(child(idx, "effect"), t.effect, TAINT_EFFECTS));
  });
}

function validateDNSConfig(spec: PodSpec, errs: FieldError[]): void {
  const path = "spec.dnsConfig";
  const cfg = spec.dnsConfig;
  if (spec.dnsPolicy === "None") {
    if (!cfg) {
      errs.push(required(path, "must provide `dnsConfig` when `dnsPolicy` is None"));
      return;
    }
    if ((cfg.nameservers ?? []).length === 0) {
      errs.push(required(child(path, "nameservers"), "must provide at least one DNS nameserver when `dnsPolicy` is None"));
      return;
    }
  }
  if (!cfg) return;
  const ns = cfg.nameservers ?? [];
  if (ns.length > 3) errs.push(invalid(child(path, "nameservers"), ns, "must not have more than 3 nameservers"));
  ns.forEach((n, i) => {
    if (isIP(n) === 0) errs.push(invalid(index(child(path, "nameservers"), i), n, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"));
  });
  const searches = cfg.searches ?? [];
  if (searches.length > 32) errs.push(invalid(child(path, "searches"), searches, "must not have more than 32 search paths"));
  if (searches.join(" ").length > 2048) {
    errs.push(invalid(child(path, "searches"), searches, "must not have more than 2048 characters (including spaces) in the search list"));
  }
  (cfg.options ?? []).forEach((o, i) => {
    if (!o.name) errs.push(required(index(child(path, "options"), i), "must not be empty"));
  });
}

function validateSpec(pod: Pod, opts: Required<PodValidationOptions>, errs: FieldError[]): void {
  const spec: PodSpec = pod.spec ?? { containers: [] };
  if (spec.terminationGracePeriodSeconds === undefined || spec.terminationGracePeriodSeconds === null) {
    errs.push(required("spec.terminationGracePeriodSeconds"));
  }
  const volumes = validateVolumes(spec.volumes ?? [], "spec.volumes", errs);
  validateContainers(spec, volumes, opts, errs);
  validateInitContainers(spec, volumes, opts, errs);
  validateSecurityContexts(pod, errs);
  // ValidatePodCreate: ephemeral containers are added through a subresource, never on create.
  if ((spec.ephemeralContainers ?? []).length > 0) errs.push(forbidden("spec.ephemeralContainers", "cannot be set on create"));

  // validatePodHostNetworkDeps: a Pod (ResourceIsPod) must have hostPort == containerPort.
  if (spec.hostNetwork) {
    (spec.containers ?? []).forEach((c, i) => {
      (c.ports ?? []).forEach((p, j) => {
        if ((p.hostPort ?? 0) !== p.containerPort) {
          errs.push(invalid(`spec.containers[${i}].ports[${j}].hostPort`, p.hostPort ?? 0, "must match `containerPort` when `hostNetwork` is true"));
        }
      });
    });
  }
  const rp = spec.restartPolicy ?? "";
  if (!rp) errs.push(required("spec.restartPolicy"));
  else if (!RESTART_POLICIES.includes(rp)) errs.push(notSupported("spec.restartPolicy", rp, RESTART_POLICIES));
  const dp = spec.dnsPolicy ?? "";
  if (!dp) errs.push(required("spec.dnsPolicy"));
  else if (!DNS_POLICIES.includes(dp)) errs.push(notSupported("spec.dnsPolicy", dp, DNS_POLICIES));
  validateLabels(spec.nodeSelector, "spec.nodeSelector", errs);
  validateDNSConfig(spec, errs);
  if (spec.serviceAccountName) {
    for (const m of isDNS1123Subdomain(spec.serviceAccountName)) errs.push(invalid("spec.serviceAccountName", spec.serviceAccountName, m));
  }
  if (spec.nodeName) for (const m of isDNS1123Subdomain(spec.nodeName)) errs.push(invalid("spec.nodeName", spec.nodeName, m));
  const ads = spec.activeDeadlineSeconds;
  if (ads !== undefined && ads !== null && (ads < 1 || ads > 2147483647)) {
    errs.push(invalid("spec.activeDeadlineSeconds", ads, inclusiveRangeError(1, 2147483647)));
  }
  if (spec.hostname) for (const m of isDNS1123Label(spec.hostname)) errs.push(invalid("spec.hostname", spec.hostname, m));
  if (spec.subdomain) for (const m of isDNS1123Label(spec.subdomain)) errs.push(invalid("spec.subdomain", spec.subdomain, m));
  validateTolerations(spec, errs);
  if (spec.priorityClassName) {
    for (const m of isDNS1123Subdomain(spec.priorityClassName)) errs.push(invalid("spec.priorityClassName", spec.priorityClassName, m));
  }
  if (spec.runtimeClassName !== undefined && spec.runtimeClassName !== null) {
    for (const m of isDNS1123Subdomain(spec.runtimeClassName)) errs.push(invalid("spec.runtimeClassName", spec.runtimeClassName, m));
  }
  const pp = spec.preemptionPolicy;
  if (pp !== undefined && pp !== null) {
    if (!pp) errs.push(required("spec.preemptionPolicy"));
    else if (pp !== "PreemptLowerPriority" && pp !== "Never") errs.push(notSupported("spec.preemptionPolicy", pp, ["PreemptLowerPriority", "Never"]));
  }
  // ValidatePodCreate: a bound pod may not carry scheduling gates; the kubelet always binds static pods.
  if (spec.nodeName && (spec.schedulingGates ?? []).length > 0) {
    errs.push(forbidden("spec.nodeName", "cannot be set until all schedulingGates have been cleared"));
  }
  // validateContainersOnlyForPod.
  for (const [list, path] of [[spec.containers ?? [], "spec.containers"], [spec.initContainers ?? [], "spec.initContainers"]] as const) {
    list.forEach((c, i) => {
      const image = c.image ?? "";
      if (image !== image.trim()) errs.push(invalid(child(index(path, i), "image"), image, "must not have leading or trailing whitespace"));
    });
  }
}

/**
 * Validates a defaulted pod the way ValidatePodCreate does, in the same order, and returns every
 * error with Kubernetes' field path and wording. For a static pod, call it after the kubelet's own
 * defaulting (name suffix, namespace, nodeName), as the kubelet does.
 */
export function validatePod(pod: Pod, options: PodValidationOptions = {}): FieldError[] {
  const opts: Required<PodValidationOptions> = { relaxedEnvVarNames: options.relaxedEnvVarNames ?? true };
  const errs: FieldError[] = [];
  validateMetadata(pod, errs);
  validateSpec(pod, opts, errs);
  return errs;
}

// ---- PreventStaticPodAPIReferences ----------------------------------------------------------------

/** Volume types that need nothing from the API server (HasAPIObjectReference's allow list). */
const LOCAL_VOLUME_TYPES = [
  "awsElasticBlockStore", "azureDisk", "cephfs", "cinder", "downwardAPI", "emptyDir", "fc", "flexVolume", "flocker",
  "gcePersistentDisk", "gitRepo", "hostPath", "image", "iscsi", "nfs", "photonPersistentDisk", "portworxVolume",
  "quobyte", "rbd", "scaleIO", "storageos", "vsphereVolume",
];
const API_VOLUME_TYPES: ReadonlyArray<readonly [string, string]> = [
  ["configMap", "configmaps (via configmap volumes)"],
  ["secret", "secrets (via secret volumes)"],
  ["csi", "csidrivers (via CSI volumes)"],
  ["glusterfs", "endpoints (via glusterFS volumes)"],
  ["persistentVolumeClaim", "persistentvolumeclaims"],
  ["ephemeral", "persistentvolumeclaims (via ephemeral volumes)"],
  ["azureFile", "secrets (via azureFile volumes)"],
];
const PROJECTED_API_SOURCES: ReadonlyArray<readonly [string, string]> = [
  ["configMap", "configmaps (via projected volumes)"],
  ["secret", "secrets (via projected volumes)"],
  ["serviceAccountToken", "serviceaccounts (via projected volumes)"],
  ["clusterTrustBundle", "clustertrustbundles"],
  ["podCertificate", "podcertificates"],
];

const present = (v: unknown): boolean => v !== undefined && v !== null;

function staticRefError(field: string, resource: string): FieldError {
  const detail = `static pods may not reference ${resource}`;
  // The kubelet returns this as a plain error, not a field.Error: message is its exact text.
  return { field, type: "Forbidden", detail, message: detail };
}

export interface StaticPodReferenceOptions {
  /**
   * The agent runs with --local-objects (nodeagent's own opt-in, past the kubelet): ConfigMaps and
   * Secrets come from files, so static and pushed pods may name them (volumes, projected sources,
   * env, envFrom, imagePullSecrets). Service accounts, resource claims and the other API volumes
   * stay refused.
   */
  localObjects?: boolean;
}

/**
 * The PreventStaticPodAPIReferences check (beta and on by default since 1.34): a static pod may not
 * name a service account, secret, config map, resource claim or any volume that needs the API
 * server. Like the kubelet, it stops at the first reference, checked in the kubelet's order;
 * `field` points at the reference so that it can be positioned.
 */
export function staticPodApiReferenceErrors(pod: Pod, options: StaticPodReferenceOptions = {}): FieldError[] {
  const spec: PodSpec = pod.spec ?? { containers: [] };
  const local = options.localObjects === true;
  if (spec.serviceAccountName) return [staticRefError("spec.serviceAccountName", "serviceaccounts")];
  // The kubelet checks every secret reference before any config map reference (VisitPodSecretNames first).
  const refs = local ? [] : podReferences({ spec });
  const secret = refs.find((r) => r.kind === "Secret");
  if (secret !== undefined) return [staticRefError(secret.field, "secrets")];
  const configMap = refs.find((r) => r.kind === "ConfigMap");
  if (configMap !== undefined) return [staticRefError(configMap.field, "configmaps")];
  if ((spec.resourceClaims ?? []).length > 0) return [staticRefError("spec.resourceClaims", "resourceclaims")];
  const volumes = spec.volumes ?? [];
  for (let i = 0; i < volumes.length; i++) {
    const v = volumes[i] as unknown as Record<string, unknown>;
    const base = `spec.volumes[${i}]`;
    if (LOCAL_VOLUME_TYPES.some((k) => present(v[k]))) continue;
    if (local && (present(v.configMap) || present(v.secret))) continue;
    const api = API_VOLUME_TYPES.find(([k]) => present(v[k]));
    if (api) return [staticRefError(`${base}.${api[0]}`, api[1])];
    if (present(v.projected)) {
      const sources = ((v.projected as { sources?: unknown[] }).sources ?? []) as Array<Record<string, unknown>>;
      for (let j = 0; j < sources.length; j++) {
        const s = sources[j]!;
        if (local && (present(s.configMap) || present(s.secret))) continue;
        const hit = PROJECTED_API_SOURCES.find(([k]) => present(s[k]));
        if (hit) return [staticRefError(`${base}.projected.sources[${j}].${hit[0]}`, hit[1])];
        if (present(s.downwardAPI)) continue;
        const message = `unknown source for projected volume ${goQuote(String(v.name ?? ""))}`;
        return [{ field: `${base}.projected.sources[${j}]`, type: "Forbidden", detail: message, message }];
      }
      continue;
    }
    // Two spaces before %q, as upstream prints it.
    const message = `unknown volume type for volume  ${goQuote(String(v.name ?? ""))}`;
    return [{ field: base, type: "Forbidden", detail: message, message }];
  }
  return [];
}
