// Pure parts of the relist: grouping the runtime's sandboxes and containers into pods, and the
// event each container's state change produces (the kubelet's generateEvents in pleg/generic.go).
import { type Container, labels, type PodSandbox } from "../cri";
import type { PodLifecycleEventType, RecordedState, RuntimeContainer, RuntimePod } from "./types";

export function sandboxState(s: PodSandbox["state"]): RecordedState {
  return s === "SANDBOX_READY" ? "running" : "exited";
}

export function containerState(s: Container["state"]): RecordedState {
  switch (s) {
    case "CONTAINER_RUNNING":
      return "running";
    case "CONTAINER_EXITED":
      return "exited";
    default:
      // CREATED and UNKNOWN: the kubelet maps both to plegContainerUnknown.
      return "unknown";
  }
}

/**
 * Groups sandboxes and containers by pod UID. A sandbox names its pod in its metadata; a container
 * belongs to its sandbox's pod, or failing that (sandbox already gone) to the pod its labels name.
 */
export function groupPods(sandboxes: PodSandbox[], containers: Container[]): Map<string, RuntimePod> {
  const pods = new Map<string, RuntimePod>();
  const podOfSandbox = new Map<string, RuntimePod>();
  const podFor = (uid: string, name: string, namespace: string): RuntimePod => {
    let p = pods.get(uid);
    if (!p) pods.set(uid, (p = { uid, name, namespace, containers: new Map() }));
    return p;
  };
  for (const s of sandboxes) {
    const uid = s.metadata?.uid || s.labels[labels.POD_UID];
    if (!uid) continue;
    const pod = podFor(uid, s.metadata?.name ?? s.labels[labels.POD_NAME] ?? "", s.metadata?.namespace ?? s.labels[labels.POD_NAMESPACE] ?? "");
    podOfSandbox.set(s.id, pod);
    pod.containers.set(s.id, {
      id: s.id,
      podSandboxId: s.id,
      name: labels.SANDBOX_CONTAINER_NAME,
      sandbox: true,
      state: sandboxState(s.state),
      createdAt: s.createdAt,
    });
  }
  for (const c of containers) {
    let pod = podOfSandbox.get(c.podSandboxId);
    if (!pod) {
      const uid = c.labels[labels.POD_UID];
      if (!uid) continue;
      pod = podFor(uid, c.labels[labels.POD_NAME] ?? "", c.labels[labels.POD_NAMESPACE] ?? "");
    }
    const name = c.metadata?.name || c.labels[labels.CONTAINER_NAME] || "";
    pod.containers.set(c.id, { id: c.id, podSandboxId: c.podSandboxId, name, sandbox: false, state: containerState(c.state), createdAt: c.createdAt });
  }
  return pods;
}

/** "ContainerChanged" is computed as the kubelet does, then filtered: it is never sent. */
export type ComputedEventType = PodLifecycleEventType | "ContainerChanged";

/** The events for one container going from oldState to newState (generic.go generateEvents). */
export function eventsForTransition(oldState: RecordedState, newState: RecordedState): ComputedEventType[] {
  if (oldState === newState) return [];
  switch (newState) {
    case "running":
      return ["ContainerStarted"];
    case "exited":
      return ["ContainerDied"];
    case "unknown":
      return ["ContainerChanged"];
    case "non-existent":
      // An exited container that disappears was removed; a live one that vanished also died.
      return oldState === "exited" ? ["ContainerRemoved"] : ["ContainerDied", "ContainerRemoved"];
  }
}

export interface ContainerTransition {
  container: RuntimeContainer;
  type: PodLifecycleEventType;
}

/**
 * Every event the change from `old` to `current` of one pod produces, in the order things happen on
 * a node: ends before beginnings (a restarted container's death before its successor's start);
 * deaths and removals newest first (containers before their sandbox), starts oldest first (the
 * sandbox before its containers). Ties break on id so the order is stable.
 */
export function computePodEvents(old: RuntimePod | undefined, current: RuntimePod | undefined): ContainerTransition[] {
  const ids = new Set<string>([...(old?.containers.keys() ?? []), ...(current?.containers.keys() ?? [])]);
  const out: ContainerTransition[] = [];
  for (const id of ids) {
    const o = old?.containers.get(id);
    const n = current?.containers.get(id);
    const container = (n ?? o)!;
    for (const type of eventsForTransition(o?.state ?? "non-existent", n?.state ?? "non-existent")) {
      if (type !== "ContainerChanged") out.push({ container, type });
    }
  }
  const isStart = (t: ContainerTransition) => t.type === "ContainerStarted";
  return out.sort((a, b) => {
    if (isStart(a) !== isStart(b)) return isStart(a) ? 1 : -1;
    const byAge = a.container.createdAt - b.container.createdAt || a.container.id.localeCompare(b.container.id);
    return isStart(a) ? byAge : -byAge || eventOrder(a.type) - eventOrder(b.type);
  });
}

/** Of one container's two events when it vanished while alive: died, then removed. */
function eventOrder(t: PodLifecycleEventType): number {
  return t === "ContainerDied" ? 0 : 1;
}

/** True when the pod changed in a way that generated only filtered events (ContainerChanged). */
export function hasHiddenChange(old: RuntimePod | undefined, current: RuntimePod | undefined): boolean {
  const ids = new Set<string>([...(old?.containers.keys() ?? []), ...(current?.containers.keys() ?? [])]);
  for (const id of ids) {
    if ((old?.containers.get(id)?.state ?? "non-existent") !== (current?.containers.get(id)?.state ?? "non-existent")) return true;
  }
  return false;
}
