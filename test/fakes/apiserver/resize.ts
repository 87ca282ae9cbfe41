// The pods/resize subresource (GA in 1.35), as the 1.36 API server serves it: pkg/registry/core/pod's
// ResizeStrategy and pkg/apis/core/validation ValidatePodResize, then the NodeDeclaredFeatures admission.
//
// PrepareForUpdate (dropNonResizeUpdates): of what the request sends, only each container's resources
// and resizePolicy are kept (app containers and init containers); everything else, status and metadata
// included, stays as stored; the generation goes up when the spec changed. A request that adds,
// removes, renames or reorders containers is left as sent, for validation to refuse.
// ValidatePodResize, in its order: a static pod's mirror cannot be resized (that error alone); the QoS
// class may not change; the pod must run on a node that supports resize — one running container's
// status must carry `resources` (isPodResizeRequestSupported: a node that never reports them is an old
// kubelet); containers may not be added, removed, renamed or reordered; requests and limits may not be
// removed; only cpu and memory may change. Resizing a non-sidecar init container is allowed by
// validation in 1.36 (InPlacePodVerticalScalingInitContainers) but the NodeDeclaredFeatures admission
// plugin then asks the node to declare that feature in status.declaredFeatures; a node that does not
// (nodeagent) gets the plugin's Forbidden.
import type { Container, Pod, ResourceRequirements } from "kubernetes-types/core/v1";
import { qosClass } from "../../../src/cm/qos";
import { clone, type AnyObject } from "./objects";
import { ApiError } from "./status";
import { invalid, type Target } from "./status";

const MIRROR_ANNOTATION = "kubernetes.io/config.mirror";
/** The node feature a non-sidecar init container's resize needs (nodedeclaredfeatures inplacepodresize). */
const INIT_CONTAINERS_FEATURE = "InPlacePodVerticalScalingInitContainers";

type Cause = Parameters<typeof invalid>[2][number];

function isSidecar(c: Container): boolean {
  return c.restartPolicy === "Always";
}

/** dropNonResizeUpdatesForContainers: the stored containers with the sent resources and resizePolicy. */
function mergeResizable(sent: Container[] | undefined, stored: Container[] | undefined): Container[] | undefined {
  if (!sent?.length) return sent;
  const out = clone(stored ?? []) as Container[];
  for (let i = 0; i < sent.length; i++) {
    if (out[i]?.name !== sent[i]!.name) return sent;
    out[i] = { ...out[i]!, resources: sent[i]!.resources, resizePolicy: sent[i]!.resizePolicy };
    if (sent[i]!.resources === undefined) delete out[i]!.resources;
    if (sent[i]!.resizePolicy === undefined) delete out[i]!.resizePolicy;
  }
  return out;
}

/** PrepareForUpdate of the resize subresource: the stored pod with only the resizable fields taken. */
export function prepareResize(old: AnyObject, sent: AnyObject): AnyObject {
  const o = old as Pod;
  const s = sent as Pod;
  const spec = clone(o.spec) as NonNullable<Pod["spec"]>;
  if ((s.spec?.containers?.length ?? 0) !== (o.spec?.containers.length ?? 0) || (s.spec?.initContainers?.length ?? 0) !== (o.spec?.initContainers?.length ?? 0))
    return { ...old, spec: s.spec } as AnyObject;
  spec.containers = mergeResizable(s.spec?.containers, o.spec?.containers) ?? [];
  const init = mergeResizable(s.spec?.initContainers, o.spec?.initContainers);
  if (init) spec.initContainers = init;
  return { ...old, spec } as AnyObject;
}

const keys = (l: Record<string, unknown> | undefined) => Object.keys(l ?? {});
const removed = (next: Record<string, unknown> | undefined, prev: Record<string, unknown> | undefined) => keys(prev).some((k) => !(k in (next ?? {})));

/** The resources with cpu and memory taken from the stored ones (dropCPUMemoryUpdates), for the "only cpu and memory" check. */
function withoutCpuMemory(r: ResourceRequirements | undefined, prev: ResourceRequirements | undefined): string {
  const strip = (l: Record<string, unknown> | undefined, p: Record<string, unknown> | undefined) => {
    const out: Record<string, unknown> = { ...(l ?? {}) };
    delete out.cpu;
    delete out.memory;
    if (p?.cpu !== undefined) out.cpu = p.cpu;
    if (p?.memory !== undefined) out.memory = p.memory;
    return JSON.stringify(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
  };
  return `${strip(r?.requests, prev?.requests)}|${strip(r?.limits, prev?.limits)}`;
}

/**
 * ValidatePodResize and the NodeDeclaredFeatures admission of the resize subresource. `declaredFeatures`
 * is the node's status.declaredFeatures (nodeagent declares none).
 */
export function validateResize(old: AnyObject, next: AnyObject, t: Target, declaredFeatures: readonly string[] = []): void {
  const o = old as Pod;
  const n = next as Pod;
  if (o.metadata?.annotations?.[MIRROR_ANNOTATION] !== undefined)
    throw invalid(t, "Pod", [{ field: "", type: "FieldValueForbidden", message: "Forbidden: static pods cannot be resized" }]);
  const causes: Cause[] = [];
  const oldQos = o.status?.qosClass ?? qosClass(o);
  if (oldQos !== qosClass(n))
    causes.push({ field: "spec", type: "FieldValueInvalid", message: `Invalid value: "${oldQos}": Pod QOS Class may not change as a result of resizing` });
  const running = (o.status?.containerStatuses ?? []).find((c) => c.state?.running);
  if (running && running.resources === undefined)
    causes.push({ field: "spec", type: "FieldValueForbidden", message: "Forbidden: Pod running on node without support for resize" });
  const oc = o.spec?.containers ?? [];
  const nc = n.spec?.containers ?? [];
  const oi = o.spec?.initContainers ?? [];
  const ni = n.spec?.initContainers ?? [];
  let ordered = true;
  if (oc.length !== nc.length) {
    causes.push({ field: "spec.containers", type: "FieldValueForbidden", message: "Forbidden: containers may not be added or removed on resize" });
    ordered = false;
  } else
    oc.forEach((c, i) => {
      if (nc[i]!.name !== c.name) {
        causes.push({
          field: `spec.containers[${i}].name`,
          type: "FieldValueForbidden",
          message: "Forbidden: containers may not be renamed or reordered on resize",
        });
        ordered = false;
      }
    });
  if (oi.length !== ni.length) {
    causes.push({ field: "spec.initContainers", type: "FieldValueForbidden", message: "Forbidden: initContainers may not be added or removed on resize" });
    ordered = false;
  } else
    oi.forEach((c, i) => {
      if (ni[i]!.name !== c.name) {
        causes.push({
          field: `spec.initContainers[${i}].name`,
          type: "FieldValueForbidden",
          message: "Forbidden: initContainers may not be renamed or reordered on resize",
        });
        ordered = false;
      }
    });
  if (!ordered) throw invalid(t, "Pod", causes);
  const checkRemoved = (list: "containers" | "initContainers", i: number, nr: ResourceRequirements | undefined, or: ResourceRequirements | undefined) => {
    if (removed(nr?.requests, or?.requests))
      causes.push({ field: `spec.${list}[${i}].resources.requests`, type: "FieldValueForbidden", message: "Forbidden: resource requests cannot be removed" });
    if (removed(nr?.limits, or?.limits))
      causes.push({ field: `spec.${list}[${i}].resources.limits`, type: "FieldValueForbidden", message: "Forbidden: resource limits cannot be removed" });
  };
  oi.forEach((c, i) => checkRemoved("initContainers", i, ni[i]!.resources, c.resources));
  oc.forEach((c, i) => checkRemoved("containers", i, nc[i]!.resources, c.resources));
  if (oc.some((c, i) => withoutCpuMemory(nc[i]!.resources, c.resources) !== withoutCpuMemory(c.resources, c.resources)))
    causes.push({ field: "spec", type: "FieldValueForbidden", message: "Forbidden: only cpu and memory resources are mutable" });
  oi.forEach((c, i) => {
    if (withoutCpuMemory(ni[i]!.resources, c.resources) !== withoutCpuMemory(c.resources, c.resources))
      causes.push({
        field: `spec.initContainers[${i}]`,
        type: "FieldValueForbidden",
        message: "Forbidden: only cpu and memory resources for init or sidecar containers are mutable",
      });
    else if (!isSidecar(c) && JSON.stringify(ni[i]) !== JSON.stringify(c) && (ni[i]!.resizePolicy ?? []).some((p) => p.restartPolicy === "RestartContainer"))
      causes.push({
        field: `spec.initContainers[${i}]`,
        type: "FieldValueForbidden",
        message: "Forbidden: non-sidecar init containers with a resize policy of RestartContainer cannot be resized",
      });
  });
  if (causes.length) throw invalid(t, "Pod", causes);
  // NodeDeclaredFeatureValidator (only when the generation moved and the pod is bound).
  const initResized = oi.some((c, i) => !isSidecar(c) && JSON.stringify(c.resources ?? {}) !== JSON.stringify(ni[i]!.resources ?? {}));
  if (initResized && o.spec?.nodeName && !declaredFeatures.includes(INIT_CONTAINERS_FEATURE)) {
    const name = o.metadata?.name ?? "";
    const message = `pods "${name}" is forbidden: pod update requires features ${INIT_CONTAINERS_FEATURE} which are not available on node "${o.spec.nodeName}"`;
    throw new ApiError({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message,
      reason: "Forbidden",
      details: { name, kind: "pods" },
      code: 403,
    });
  }
}
