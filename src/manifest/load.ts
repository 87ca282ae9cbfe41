// The loader every pod source uses: manifest text → the static pods the kubelet would run, or the
// reasons it would not, each at a line and column. It follows tryDecodeSinglePod and tryDecodePodList
// (k/k pkg/kubelet/config/common.go): decode, check the kind, "name is needed for the pod", defaults,
// the kubelet's applyDefaults, ValidatePodCreate, then PreventStaticPodAPIReferences.
import type { Pod } from "kubernetes-types/core/v1";
import {
  applyPodDefaults,
  decodePodFields,
  fieldErrorBody,
  fieldErrorMessage,
  jsonKind,
  staticPodApiReferenceErrors,
  validatePod,
  type FieldError,
  type UnknownField,
} from "../api";
import { errorMessage } from "../util";
import { decodeDocument, type SourcePosition } from "./decode";
import { keepsManifestUID, podUIDProblem, toStaticPod } from "./static-pod";
import type { LoadResult, ManifestError, PodLoader, PodOrigin } from "./types";

const KUBELET_DECODE = "the kubelet cannot decode the pod";
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Why the kubelet would not run a pod, by the step of tryDecodeSinglePod that finds it. */
export type PodProblemStage = "kind" | "type" | "name" | "validation" | "api-reference";

export interface PodProblem {
  stage: PodProblemStage;
  /** The field the problem is about, as Kubernetes prints it ("kind" for a missing kind). */
  field: string;
  /** The field whose position shows the problem best: the field itself, or its closest ancestor. */
  at: string;
  /** The message without the field path (ManifestError keeps the two apart). */
  message: string;
  /** For validation and API-reference problems: the error as ValidatePodCreate returns it. */
  error?: FieldError;
}

export interface PodCheck {
  problems: PodProblem[];
  /** Fields the Pod has no place for; the kubelet drops them without a word. */
  unknownFields: UnknownField[];
  /** The pod decoded and API-defaulted, named as written: present unless a value had the wrong type. */
  pod?: Pod;
  /** The same pod after the kubelet's applyDefaults (name suffix, namespace, node, annotations). */
  staticPod?: Pod;
}

/**
 * The kubelet checks a manifest's node-derived name only on the node. A caller that checks a manifest
 * elsewhere (the linter without --node-name) passes an empty node name: the name is then validated as
 * written and this stands in for the node the pod is bound to.
 */
const UNKNOWN_NODE = "node";
const UNHASHED_UID = "0".repeat(32);

export interface PodCheckOptions {
  /** The pod's path inside a PodList ("items[0]"), prefixed to every field. */
  prefix?: string;
  /** Whether the caller wants PodCheck.staticPod (its UID hashes the whole pod); default true. */
  staticPod?: boolean;
  /** --local-objects: references to ConfigMaps and Secrets are allowed (StaticPodReferenceOptions). */
  localObjects?: boolean;
}

/** The kind and apiVersion checks the legacy decoder makes before it decodes anything else. */
export function checkManifestKind(value: unknown, origin: PodOrigin): PodProblem[] | "Pod" | "PodList" {
  const problem = (field: string, at: string, message: string): PodProblem[] => [{ stage: "kind", field, at, message }];
  if (!isRecord(value)) {
    const message =
      value === null
        ? "empty manifest (the kubelet says: couldn't parse as pod(Object 'Kind' is missing in 'null'))"
        : `a manifest must be a mapping with apiVersion, kind, metadata and spec, not ${jsonKind(value)}`;
    return problem("", "", message);
  }
  const { kind, apiVersion } = value;
  if (kind === undefined || kind === null || kind === "") return problem("kind", "", `Object 'Kind' is missing (the manifest needs "kind: Pod")`);
  if (typeof kind !== "string") return problem("kind", "kind", `must be a string, not ${jsonKind(kind)} (${KUBELET_DECODE})`);
  if (apiVersion === undefined || apiVersion === null || apiVersion === "") {
    return problem("apiVersion", "", `Object 'apiVersion' is missing (the manifest needs "apiVersion: v1")`);
  }
  if (typeof apiVersion !== "string") return problem("apiVersion", "apiVersion", `must be a string, not ${jsonKind(apiVersion)} (${KUBELET_DECODE})`);
  const listAllowed = origin.source === "http";
  if (apiVersion === "v1" && (kind === "Pod" || (kind === "PodList" && listAllowed))) return kind;
  const wanted = listAllowed ? "kind Pod or PodList" : "kind Pod";
  const field = apiVersion !== "v1" ? "apiVersion" : "kind";
  let message = `the kubelet runs only ${wanted} in apiVersion v1, not kind ${JSON.stringify(kind)} in apiVersion ${JSON.stringify(apiVersion)}`;
  if (kind === "PodList" && apiVersion === "v1") message = "a PodList is accepted only from a manifest URL; a static pod file holds a single Pod";
  return problem(field, field, message);
}

/**
 * One pod as the kubelet takes it after decoding: the Go types, "name is needed for the pod", the API
 * defaults, the static pod naming, ValidatePodCreate, then the API references. The kubelet stops at
 * the first failing step; validation and API references are both reported here, so that one edit can
 * fix everything.
 */
export function checkPodObject(raw: Record<string, unknown>, origin: PodOrigin, options: PodCheckOptions = {}): PodCheck {
  const prefix = options.prefix ?? "";
  const at = (field: string): string => (prefix ? (field ? `${prefix}.${field}` : prefix) : field);
  const decoded = decodePodFields(raw);
  const unknownFields = decoded.unknownFields.map((u) => ({ ...u, field: at(u.field) }));
  if (decoded.typeErrors.length > 0) {
    const problems = decoded.typeErrors.map((e): PodProblem => ({ stage: "type", field: at(e.field), at: at(e.field), message: e.message }));
    return { problems, unknownFields };
  }
  const pod = decoded.value as Pod;
  if (!pod.metadata?.name) {
    return { problems: [{ stage: "name", field: at("metadata.name"), at: at("metadata.name"), message: "name is needed for the pod" }], unknownFields };
  }
  applyPodDefaults(pod);
  const wanted = options.staticPod ?? true;
  // Validation reads the UID only as the config hash annotation's share of the annotations' size:
  // a placeholder of the hash's length gives the same result without hashing the pod.
  const staticPod = toStaticPod(pod, origin.nodeName ? origin : { ...origin, nodeName: UNKNOWN_NODE }, wanted ? {} : { uid: UNHASHED_UID });
  if (!origin.nodeName) staticPod.metadata!.name = pod.metadata.name;
  const problem = (stage: PodProblemStage, e: FieldError, message: string): PodProblem => ({ stage, field: at(e.field), at: at(e.field), message, error: e });
  const problems = validatePod(staticPod).map((e) => problem("validation", e, fieldErrorBody(e)));
  const uidError = manifestUIDError(pod, origin);
  if (uidError) problems.unshift(problem("validation", uidError, fieldErrorBody(uidError)));
  problems.push(...staticPodApiReferenceErrors(staticPod, { localObjects: options.localObjects }).map((e) => problem("api-reference", e, e.message)));
  return wanted ? { problems, unknownFields, pod, staticPod } : { problems, unknownFields, pod };
}

/**
 * A uid written in a manifest whose source keeps it (a file) must be usable in a path: the agent
 * names the pod's folders and cgroup after it. Where the source ignores it (URL, push) the agent's
 * own hash replaces it, so nothing is said. See podUIDProblem.
 */
function manifestUIDError(pod: Pod, origin: PodOrigin): FieldError | undefined {
  const uid = pod.metadata?.uid;
  if (uid === undefined || uid === "" || !keepsManifestUID(origin.source)) return undefined;
  const detail = podUIDProblem(uid);
  if (!detail) return undefined;
  const e: FieldError = { field: "metadata.uid", type: "Invalid", value: uid, detail, message: "" };
  e.message = fieldErrorMessage(e);
  return e;
}

// ---- loading -------------------------------------------------------------------------------------

interface Located {
  file: string;
  positionOf(field: string): SourcePosition;
}

function located(where: Located, p: PodProblem): ManifestError {
  const pos = where.positionOf(p.at);
  return { file: where.file, line: pos.line, column: pos.column, field: p.field, message: p.message };
}

/** One pod of a manifest: the static pod the kubelet would run, or the errors, positioned. */
function loadPod(
  raw: Record<string, unknown>,
  prefix: string,
  origin: PodOrigin,
  where: Located,
  localObjects: boolean,
): { pod?: Pod; errors: ManifestError[] } {
  const check = checkPodObject(raw, origin, { prefix, localObjects });
  if (check.problems.length > 0 || !check.staticPod) return { errors: check.problems.map((p) => located(where, p)) };
  return { pod: check.staticPod, errors: [] };
}

/**
 * Loads a manifest: one Pod from a file, a Pod or a PodList from a URL (origin.source "http").
 * Never throws; every error names origin.location, a line, a column and a field.
 */
export const loadStaticPods: PodLoader = (text: string, origin: PodOrigin): LoadResult => loadManifest(text, origin, false);

/**
 * The loader of a node started with --local-objects: as loadStaticPods, but a pod may name the
 * ConfigMaps and Secrets that the folder serves (nodeagent's opt-in past PreventStaticPodAPIReferences).
 */
export const loadStaticPodsWithLocalObjects: PodLoader = (text: string, origin: PodOrigin): LoadResult => loadManifest(text, origin, true);

function loadManifest(text: string, origin: PodOrigin, localObjects: boolean): LoadResult {
  const file = origin.location;
  try {
    const decoded = decodeDocument(text, file);
    if (!decoded.ok) return { ok: false, errors: decoded.errors };
    const where: Located = { file, positionOf: decoded.positionOf };
    const value = decoded.value;
    const kind = checkManifestKind(value, origin);
    if (Array.isArray(kind)) return { ok: false, errors: kind.map((p) => located(where, p)) };
    const object = value as Record<string, unknown>;

    if (kind === "Pod") {
      const { pod, errors } = loadPod(object, "", origin, where, localObjects);
      return pod ? { ok: true, pods: [pod] } : { ok: false, errors };
    }
    const items = object.items ?? [];
    const problem = (field: string, message: string): ManifestError => located(where, { stage: "type", field, at: field, message });
    if (!Array.isArray(items)) return { ok: false, errors: [problem("items", `must be a list, not ${jsonKind(items)} (${KUBELET_DECODE})`)] };
    const pods: Pod[] = [];
    const errors: ManifestError[] = [];
    items.forEach((item, i) => {
      if (!isRecord(item)) {
        errors.push(problem(`items[${i}]`, `must be a mapping, not ${jsonKind(item)} (${KUBELET_DECODE})`));
        return;
      }
      const result = loadPod(item, `items[${i}]`, origin, where, localObjects);
      if (result.pod) pods.push(result.pod);
      errors.push(...result.errors);
    });
    // The kubelet rejects the whole list when one pod in it is invalid.
    return errors.length > 0 ? { ok: false, errors } : { ok: true, pods };
  } catch (e) {
    const message = `the manifest cannot be loaded: ${errorMessage(e)}`;
    return { ok: false, errors: [{ file, line: 1, column: 1, field: "", message }] };
  }
}
