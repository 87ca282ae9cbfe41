// The validating admission plugins a 1.36 API server runs on an UPDATE of pods/{name}/resize, after the
// ResizeStrategy has validated it (resize.ts), in the order of the default plugin list:
//
// - NodeDeclaredFeatureValidator (plugin/pkg/admission/nodedeclaredfeatures): an update that needs a
//   node feature — resizing a non-sidecar init container (InPlacePodVerticalScalingInitContainers) or the
//   pod-level resources (InPlacePodLevelResourcesVerticalScaling) — is refused unless the node lists it in
//   status.declaredFeatures (nodeagent declares none): `pod update requires features … which are not
//   available on node "…"`, or `node "…" not found`.
// - PodResizeValidator (plugin/pkg/admission/podresize): the node must exist (`node "…" not found`),
//   be linux by its kubernetes.io/os label (a missing label counts as linux; else cause
//   UnsupportedPlatform), and the pod's new requests (PodRequests: app containers and sidecars summed,
//   a regular init container with the sidecars before it where larger, pod-level requests where set,
//   plus overhead) may not exceed its allocatable cpu or memory (a missing allocatable is zero), else
//   `node didn't have enough allocatable resources: cpu, requested: <milli>, allocatable: <milli>` and/or
//   `memory, requested: <bytes>, allocatable: <bytes>` joined by "; ", cause NodeCapacity.
// Both answer 403 Forbidden (admission.NewForbidden) and act only when the pod is bound and the resize
// changed its generation (a spec change).
import type { Container, Node, Pod, ResourceRequirements } from "kubernetes-types/core/v1";
import { aggregateContainers, parseQuantity } from "../../../src/api";
import { admissionForbidden, type Target } from "./status";

/** The node features of the nodedeclaredfeatures framework's registry that a resize can need, in its order. */
export const INIT_CONTAINERS_FEATURE = "InPlacePodVerticalScalingInitContainers";
export const POD_LEVEL_RESOURCES_FEATURE = "InPlacePodLevelResourcesVerticalScaling";

/** spec.resources, the pod-level resources (PodLevelResources, newer than kubernetes-types). */
export const podLevelResources = (p: Pod) => (p.spec as { resources?: ResourceRequirements } | undefined)?.resources;

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
const isSidecar = (c: Container) => c.restartPolicy === "Always";

/** InferForPodUpdate of the in-place resize features: what the node must declare for this update. */
function requiredFeatures(old: Pod, next: Pod): string[] {
  const out: string[] = [];
  const ni = next.spec?.initContainers ?? [];
  if ((old.spec?.initContainers ?? []).some((c, i) => !isSidecar(c) && !same(c.resources, ni[i]?.resources))) out.push(INIT_CONTAINERS_FEATURE);
  if ((podLevelResources(old) || podLevelResources(next)) && !same(podLevelResources(old), podLevelResources(next))) out.push(POD_LEVEL_RESOURCES_FEATURE);
  return out;
}

/** Milli-units of a quantity (CPU's MilliValue; for memory, exact to the milli-byte). */
const milli = (v: string | number | undefined) => (v === undefined ? 0 : parseQuantity(v).milli());

/** PodRequests(pod, {}) of cpu and memory, in milli-units. */
export function podRequestsMilli(pod: Pod): { cpu: number; memory: number } {
  const amounts = (c: Container) =>
    new Map(
      Object.entries(c.resources?.requests ?? {})
        .filter(([k]) => k === "cpu" || k === "memory")
        .map(([k, v]) => [k, milli(v)]),
    );
  const sum = aggregateContainers(pod, amounts);
  const podLevel = podLevelResources(pod)?.requests ?? {};
  for (const k of ["cpu", "memory"]) if (podLevel[k] !== undefined) sum.set(k, milli(podLevel[k]));
  const overhead = pod.spec?.overhead ?? {};
  return { cpu: (sum.get("cpu") ?? 0) + milli(overhead.cpu), memory: (sum.get("memory") ?? 0) + milli(overhead.memory) };
}

/** validateRequestsWithinAllocatable: the refusal text, or undefined when the requests fit. */
export function allocatableShortfall(pod: Pod, node: Node): string | undefined {
  const req = podRequestsMilli(pod);
  const alloc = node.status?.allocatable ?? {};
  const cpu = milli(alloc.cpu);
  const memory = milli(alloc.memory);
  const msg: string[] = [];
  if (req.cpu > cpu) msg.push(`cpu, requested: ${req.cpu}, allocatable: ${cpu}`);
  if (req.memory > memory) msg.push(`memory, requested: ${Math.ceil(req.memory / 1000)}, allocatable: ${Math.ceil(memory / 1000)}`);
  return msg.length ? `node didn't have enough allocatable resources: ${msg.join("; ")}` : undefined;
}

/**
 * The two plugins, for a resize whose storage strategy passed and that changed the spec (so the
 * generation); `node` is the pod's node as stored, if any.
 */
export function admitResize(old: Pod, next: Pod, t: Target, node: (Node & { status?: { declaredFeatures?: string[] } }) | undefined): void {
  const nodeName = next.spec?.nodeName;
  if (!nodeName) return;
  const needed = requiredFeatures(old, next);
  if (needed.length) {
    if (!node) throw admissionForbidden(t, `node "${nodeName}" not found`);
    const declared = new Set(node.status?.declaredFeatures ?? []);
    const missing = needed.filter((f) => !declared.has(f));
    if (missing.length) throw admissionForbidden(t, `pod update requires features ${missing.join(", ")} which are not available on node "${nodeName}"`);
  }
  if (!node) throw admissionForbidden(t, `node "${nodeName}" not found`);
  const os = node.metadata?.labels?.["kubernetes.io/os"];
  if (os !== undefined && os !== "linux")
    throw admissionForbidden(t, `pod resize is only supported on linux nodes, node "${nodeName}" is "${os}"`, [{ reason: "UnsupportedPlatform" }]);
  const short = allocatableShortfall(next, node);
  if (short) throw admissionForbidden(t, short, [{ reason: "NodeCapacity" }]);
}
