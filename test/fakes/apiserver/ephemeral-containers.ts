// The pods/<name>/ephemeralcontainers subresource, as kube-apiserver 1.36 serves it
// (pkg/registry/core/pod/storage EphemeralContainersREST with podEphemeralContainersStrategy, and
// pkg/apis/core/validation ValidatePodEphemeralContainersUpdate): an update of it changes only
// spec.ephemeralContainers (everything else, status and metadata included, stays the stored pod's),
// defaults the new entries, and is refused 422 Invalid when it removes or changes one already there,
// when a new one breaks the rules every ephemeral container must keep (validateEphemeralContainers:
// a name unique across all three lists, a targetContainerName that names an init or app container,
// none of the fields an ephemeral container may not set, no subPath), or when the pod is a mirror pod.
// The generation goes up with the spec, as updatePodGeneration does.
import type { Container, EphemeralContainer, Pod } from "kubernetes-types/core/v1";
import { applyPodDefaults } from "../../../src/api/defaults";
import { clone, type AnyObject } from "./objects";
import { invalid, type FieldCause, type Target } from "./status";

const MIRROR_ANNOTATION = "kubernetes.io/config.mirror";

/**
 * The fields of EphemeralContainerCommon in the Go struct's order, true for those an ephemeral container
 * may set (the apiserver's allowedEphemeralContainerFields); the others are Forbidden when set.
 */
const FIELDS: ReadonlyArray<[keyof Container, boolean]> = [
  ["name", true],
  ["image", true],
  ["command", true],
  ["args", true],
  ["workingDir", true],
  ["ports", false],
  ["envFrom", true],
  ["env", true],
  ["resources", false],
  ["resizePolicy", false],
  ["restartPolicy", false],
  ["restartPolicyRules" as keyof Container, false],
  ["volumeMounts", true],
  ["volumeDevices", true],
  ["livenessProbe", false],
  ["readinessProbe", false],
  ["startupProbe", false],
  ["lifecycle", false],
  ["terminationMessagePath", true],
  ["terminationMessagePolicy", true],
  ["imagePullPolicy", true],
  ["securityContext", true],
  ["stdin", true],
  ["stdinOnce", true],
  ["tty", true],
];

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** What Go's reflect.DeepEqual against the zero value calls set (an empty object or list is as unset). */
function isSet(v: unknown): boolean {
  if (v === undefined || v === null || v === false || v === "" || v === 0) return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === "object") return Object.values(v as object).some(isSet);
  return true;
}

/** JSON with sorted keys, so that equal containers compare equal whatever their keys' order. */
function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) =>
    x && typeof x === "object" && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : x,
  );
}

/** validateEphemeralContainers over the new list (the part of validatePodMetadataAndSpec that concerns it). */
function validateEphemeralContainers(spec: Pod["spec"] & object): FieldCause[] {
  const causes: FieldCause[] = [];
  const others = new Set([...(spec.initContainers ?? []), ...spec.containers].map((c) => c.name));
  const all = new Set(others);
  const volumes = new Set((spec.volumes ?? []).map((v) => v.name));
  (spec.ephemeralContainers ?? []).forEach((ec, i) => {
    const path = `spec.ephemeralContainers[${i}]`;
    if (!ec.name) causes.push({ field: `${path}.name`, type: "FieldValueRequired", message: "Required value" });
    else if (!DNS1123_LABEL.test(ec.name) || ec.name.length > 63)
      causes.push({
        field: `${path}.name`,
        type: "FieldValueInvalid",
        message: `Invalid value: "${ec.name}": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
      });
    if (!ec.image) causes.push({ field: `${path}.image`, type: "FieldValueRequired", message: "Required value" });
    (ec.volumeMounts ?? []).forEach((m, j) => {
      if (!volumes.has(m.name)) causes.push({ field: `${path}.volumeMounts[${j}].name`, type: "FieldValueNotFound", message: `Not found: "${m.name}"` });
    });
    if (all.has(ec.name)) causes.push({ field: `${path}.name`, type: "FieldValueDuplicate", message: `Duplicate value: "${ec.name}"` });
    else all.add(ec.name);
    if (ec.targetContainerName && !others.has(ec.targetContainerName))
      causes.push({ field: `${path}.targetContainerName`, type: "FieldValueNotFound", message: `Not found: "${ec.targetContainerName}"` });
    for (const [field, allowed] of FIELDS) {
      if (!allowed && isSet(ec[field as keyof EphemeralContainer]))
        causes.push({ field: `${path}.${field}`, type: "FieldValueForbidden", message: "Forbidden: cannot be set for an Ephemeral Container" });
    }
    (ec.volumeMounts ?? []).forEach((m, j) => {
      for (const f of ["subPath", "subPathExpr"] as const)
        if (m[f])
          causes.push({
            field: `${path}.volumeMounts[${j}].${f}`,
            type: "FieldValueForbidden",
            message: "Forbidden: cannot be set for an Ephemeral Container",
          });
    });
  });
  return causes;
}

/**
 * The stored pod with the body's spec.ephemeralContainers (defaulted), or a 422 as the 1.36 API server
 * answers. The message of a changed container ends, upstream, in a go-cmp diff of the two; here it ends
 * in the two containers as JSON (clients match on the first line).
 */
export function prepareEphemeralContainersUpdate(old: AnyObject, body: AnyObject, t: Target): AnyObject {
  const oldPod = old as Pod;
  const wanted = clone(((body as Pod).spec?.ephemeralContainers ?? []) as EphemeralContainer[]);
  const next = clone(oldPod);
  next.spec = { ...next.spec!, ephemeralContainers: wanted.length ? wanted : undefined };
  if (!wanted.length) delete next.spec.ephemeralContainers;
  // SetDefaults of the new entries (terminationMessagePath and Policy, imagePullPolicy, env fieldRefs).
  const defaulted = applyPodDefaults(clone(next));
  if (defaulted.spec?.ephemeralContainers) next.spec.ephemeralContainers = defaulted.spec.ephemeralContainers;
  const causes = validateEphemeralContainers(next.spec);
  // Static pods do not support them (kubernetes#113935): that error alone.
  if (oldPod.metadata?.annotations?.[MIRROR_ANNOTATION] !== undefined)
    throw invalid(t, "Pod", [{ field: "", type: "FieldValueForbidden", message: "Forbidden: static pods do not support ephemeral containers" }]);
  const byName = new Map((next.spec.ephemeralContainers ?? []).map((c) => [c.name, c]));
  for (const before of oldPod.spec?.ephemeralContainers ?? []) {
    const now = byName.get(before.name);
    const message = !now
      ? `Forbidden: existing ephemeral containers "${before.name}" may not be removed\n`
      : canonical(now) !== canonical(before)
        ? `Forbidden: existing ephemeral containers "${before.name}" may not be changed\n- ${canonical(before)}\n+ ${canonical(now)}`
        : undefined;
    if (message) causes.push({ field: "spec.ephemeralContainers", type: "FieldValueForbidden", message });
  }
  if (causes.length) throw invalid(t, "Pod", causes);
  return next as AnyObject;
}
