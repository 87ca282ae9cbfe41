// The pods/resize subresource (GA in 1.35), as the 1.36 API server serves it: pkg/registry/core/pod's
// ResizeStrategy and pkg/apis/core/validation ValidatePodResize; the admission plugins that follow are
// resize-admission.ts.
//
// PrepareForUpdate (dropNonResizeUpdates): of what the request sends, only each container's resources
// and resizePolicy are kept (app containers and init containers), and the pod-level resources
// (InPlacePodLevelResourcesVerticalScaling, beta and on in 1.36); everything else, status and metadata
// included, stays as stored; the generation goes up when the spec changed. A request that adds,
// removes, renames or reorders containers is left as sent, for validation to refuse.
// ValidatePodResize, in its order: a static pod's mirror cannot be resized, nor a windows pod (each
// error alone); the new resources must be valid (requests within limits, …: ValidatePodSpec); the QoS class may not change; the pod must run on a node that supports resize — one
// running container's status must carry `resources` (isPodResizeRequestSupported: a node that never
// reports them is an old kubelet); pod-level resources may not be removed, nor their requests or
// limits, and only their cpu and memory may change; containers may not be added, removed, renamed or
// reordered (those errors end it); requests and limits may not be removed (init containers first);
// only cpu and memory may change — anything else of a container, its resizePolicy included, is "only
// cpu and memory resources are mutable", once per container; a non-sidecar init container with a
// RestartContainer resize policy cannot be resized. Resizing a non-sidecar init container is allowed
// by validation in 1.36 (InPlacePodVerticalScalingInitContainers); the NodeDeclaredFeatures admission
// then asks the node for it.
import type { Container, Pod, ResourceRequirements } from "kubernetes-types/core/v1";
import type { FieldError } from "../../../src/api";
import { validateResources } from "../../../src/api/validate-resources";
import { qosClass } from "../../../src/cm/qos";
import { clone, type AnyObject } from "./objects";
import { podLevelResources } from "./resize-admission";
import { invalid, type Target } from "./status";

const MIRROR_ANNOTATION = "kubernetes.io/config.mirror";

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
  const sentPodLevel = podLevelResources(s);
  if (sentPodLevel === undefined) delete (spec as { resources?: unknown }).resources;
  else (spec as { resources?: unknown }).resources = clone(sentPodLevel);
  return { ...old, spec } as AnyObject;
}

type List = Record<string, unknown> | undefined;
const removed = (next: List, prev: List) => Object.keys(prev ?? {}).some((k) => !(k in (next ?? {})));

/** apiequality.Semantic.DeepEqual for JSON: keys in any order, an empty map or list the same as none. */
function semantic(v: unknown): string {
  const norm = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.length ? x.map(norm) : undefined;
    if (x && typeof x === "object") {
      const entries = Object.entries(x)
        .map(([k, y]) => [k, norm(y)] as const)
        .filter(([, y]) => y !== undefined)
        .sort(([a], [b]) => a.localeCompare(b));
      return entries.length ? Object.fromEntries(entries) : undefined;
    }
    return x;
  };
  return JSON.stringify(norm(v) ?? null);
}

/** dropCPUMemoryUpdates: the list with its cpu and memory taken from the stored one. */
function dropCpuMemory(l: List, prev: List): List {
  if (l === undefined && prev === undefined) return undefined;
  const out: Record<string, unknown> = { ...(l ?? {}) };
  delete out.cpu;
  delete out.memory;
  if (prev?.cpu !== undefined) out.cpu = prev.cpu;
  if (prev?.memory !== undefined) out.memory = prev.memory;
  return out;
}

/** dropCPUMemoryResourcesFromContainer: the container as it would be had only cpu and memory changed. */
function withStoredCpuMemory<T extends { resources?: ResourceRequirements }>(c: T, prev: T): T {
  const requests = dropCpuMemory(c.resources?.requests, prev.resources?.requests);
  const limits = dropCpuMemory(c.resources?.limits, prev.resources?.limits);
  return { ...c, resources: { ...(limits ? { limits } : {}), ...(requests ? { requests } : {}) } as ResourceRequirements };
}

const forbidden = (field: string, message: string): Cause => ({ field, type: "FieldValueForbidden", message: `Forbidden: ${message}` });

/** validatePodLevelResourcesResize. */
function podLevelErrors(o: Pod, n: Pod): Cause[] {
  const or = podLevelResources(o);
  const nr = podLevelResources(n);
  if (or && !nr) return [forbidden("spec.resources", "pod-level resources cannot be removed")];
  const causes: Cause[] = [];
  if (or && removed(nr?.requests, or.requests)) causes.push(forbidden("spec.resources.requests", "pod-level resource requests cannot be removed"));
  if (or && removed(nr?.limits, or.limits)) causes.push(forbidden("spec.resources.limits", "pod-level resource limits cannot be removed"));
  if (semantic(withStoredCpuMemory({ resources: nr }, { resources: or }).resources) !== semantic(or))
    causes.push(forbidden("spec", "only cpu and memory resources are mutable at pod-level"));
  return causes;
}

function orderingErrors(o: Pod, n: Pod): Cause[] {
  const causes: Cause[] = [];
  for (const list of ["containers", "initContainers"] as const) {
    const oc = o.spec?.[list] ?? [];
    const nc = n.spec?.[list] ?? [];
    if (oc.length !== nc.length) causes.push(forbidden(`spec.${list}`, `${list} may not be added or removed on resize`));
    else
      oc.forEach((c, i) => {
        if (nc[i]!.name !== c.name) causes.push(forbidden(`spec.${list}[${i}].name`, `${list} may not be renamed or reordered on resize`));
      });
  }
  return causes;
}

/** ValidatePodResize of the resize subresource (the stored pod, the prepared one). */
export function validateResize(old: AnyObject, next: AnyObject, t: Target): void {
  const o = old as Pod;
  const n = next as Pod;
  if (o.metadata?.annotations?.[MIRROR_ANNOTATION] !== undefined) throw invalid(t, "Pod", [forbidden("", "static pods cannot be resized")]);
  if (o.spec?.os?.name === "windows") throw invalid(t, "Pod", [forbidden("", "windows pods cannot be resized")]);
  // validatePodMetadataAndSpec of the new pod, of which only the resources can have changed (requests within limits, …).
  const specErrors: FieldError[] = [];
  (n.spec?.containers ?? []).forEach((c, i) => validateResources(c.resources, `spec.containers[${i}].resources`, specErrors));
  (n.spec?.initContainers ?? []).forEach((c, i) => validateResources(c.resources, `spec.initContainers[${i}].resources`, specErrors));
  const causes: Cause[] = specErrors.map((e) => ({
    field: e.field,
    type: `FieldValue${e.type}` as Cause["type"],
    message: e.message.slice(e.field.length + 2),
  }));
  const oldQos = o.status?.qosClass ?? qosClass(o);
  if (oldQos !== qosClass(n))
    causes.push({ field: "spec", type: "FieldValueInvalid", message: `Invalid value: "${oldQos}": Pod QOS Class may not change as a result of resizing` });
  const running = (o.status?.containerStatuses ?? []).find((c) => c.state?.running);
  if (running && running.resources === undefined) causes.push(forbidden("spec", "Pod running on node without support for resize"));
  const podLevelSet = (p: Pod) => Object.keys(podLevelResources(p)?.requests ?? {}).length + Object.keys(podLevelResources(p)?.limits ?? {}).length > 0;
  if (podLevelSet(o) || podLevelSet(n)) causes.push(...podLevelErrors(o, n));
  const ordering = orderingErrors(o, n);
  if (ordering.length) throw invalid(t, "Pod", [...causes, ...ordering]);
  const oc = o.spec?.containers ?? [];
  const nc = n.spec?.containers ?? [];
  const oi = o.spec?.initContainers ?? [];
  const ni = n.spec?.initContainers ?? [];
  const checkRemoved = (list: string, i: number, nr: ResourceRequirements | undefined, or: ResourceRequirements | undefined) => {
    if (removed(nr?.requests, or?.requests)) causes.push(forbidden(`spec.${list}[${i}].resources.requests`, "resource requests cannot be removed"));
    if (removed(nr?.limits, or?.limits)) causes.push(forbidden(`spec.${list}[${i}].resources.limits`, "resource limits cannot be removed"));
  };
  oi.forEach((c, i) => checkRemoved("initContainers", i, ni[i]!.resources, c.resources));
  oc.forEach((c, i) => checkRemoved("containers", i, nc[i]!.resources, c.resources));
  oc.forEach((c, i) => {
    if (semantic(withStoredCpuMemory(nc[i]!, c)) !== semantic(c)) causes.push(forbidden("spec", "only cpu and memory resources are mutable"));
  });
  oi.forEach((c, i) => {
    const modified = semantic(ni[i]) !== semantic(c);
    const dropped = withStoredCpuMemory(ni[i]!, c);
    if (semantic(dropped) !== semantic(c))
      causes.push(forbidden(`spec.initContainers[${i}]`, "only cpu and memory resources for init or sidecar containers are mutable"));
    if (modified && !isSidecar(ni[i]!))
      for (const p of dropped.resizePolicy ?? [])
        if (p.restartPolicy === "RestartContainer")
          causes.push(forbidden(`spec.initContainers[${i}]`, "non-sidecar init containers with a resize policy of RestartContainer cannot be resized"));
  });
  if (causes.length) throw invalid(t, "Pod", causes);
}
