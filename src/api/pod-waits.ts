// Why a pod is not running, read from its status as the agent reports it (GET /pods): the reasons a
// runtime never shows, because nothing of the pod exists in it yet — a volume that cannot be made
// (PodReadyToStartContainers False, FailedMount), env from an object that is missing
// (CreateContainerConfigError), an image that cannot be pulled, a crash loop's back-off. `pleg watch
// --agent` prints them beside the runtime's events; PodWaitTracker turns successive pod lists into
// the changes: a wait that starts or changes its reason or message, and a wait that ends.
import type { Pod } from "kubernetes-types/core/v1";
import { podRef } from "./pod";

export interface PodWait {
  pod: { namespace: string; name: string; uid: string };
  /** The container that waits; absent for the pod's own wait (its sandbox cannot be made yet). */
  container?: string;
  reason: string;
  message?: string;
}

/** The kubelet's placeholder reasons: a container that waits for its pod, not for anything of its own. */
const FOR_THE_POD = new Set(["ContainerCreating", "PodInitializing"]);

/**
 * The waits of one pod: the pod's own when its PodReadyToStartContainers condition is False with a
 * reason (FailedMount), then each waiting container's — leaving out a container that only repeats
 * the pod's wait under a placeholder reason, which would say the same thing once per container.
 */
export function podWaits(pod: Pod): PodWait[] {
  const r = podRef(pod);
  const ref = { namespace: r.namespace, name: r.name, uid: r.uid };
  const out: PodWait[] = [];
  const cond = pod.status?.conditions?.find((c) => c.type === "PodReadyToStartContainers");
  const podWait = cond?.status === "False" && cond.reason ? { pod: ref, reason: cond.reason, message: cond.message } : undefined;
  if (podWait) out.push(podWait);
  for (const cs of [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])]) {
    const w = cs.state?.waiting;
    if (!w?.reason) continue;
    if (podWait && FOR_THE_POD.has(w.reason) && (w.message === undefined || w.message === podWait.message)) continue;
    out.push({ pod: ref, container: cs.name, reason: w.reason, ...(w.message ? { message: w.message } : {}) });
  }
  return out;
}

export interface PodWaitChange {
  type: "Waiting" | "WaitEnded";
  wait: PodWait;
}

/** Successive pod lists → the waits that began, changed or ended since the previous list. */
export class PodWaitTracker {
  private last = new Map<string, PodWait>();

  update(pods: readonly Pod[]): PodWaitChange[] {
    const now = new Map<string, PodWait>();
    for (const p of pods) for (const w of podWaits(p)) now.set(`${w.pod.uid}/${w.container ?? ""}`, w);
    const changes: PodWaitChange[] = [];
    for (const [k, w] of now) {
      const prev = this.last.get(k);
      if (!prev || prev.reason !== w.reason || prev.message !== w.message) changes.push({ type: "Waiting", wait: w });
    }
    for (const [k, w] of this.last) if (!now.has(k)) changes.push({ type: "WaitEnded", wait: w });
    this.last = now;
    return changes;
  }
}
