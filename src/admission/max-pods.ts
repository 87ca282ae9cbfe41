// The node's pod count (--max-pods, the Node's pods capacity), as the kubelet's predicate admit handler
// checks it through GeneralPredicates: a pod over the count is refused with reason OutOfpods and the
// scheduler's InsufficientResourceError message. Issue 17's resource checks (cpu, memory, ports,
// affinity, taints) join it behind the same PodAdmitHandler interface.
import type { PodAdmitAttributes, PodAdmitHandler, PodAdmitResult } from "./types";

/** InsufficientResourceError.Error() for the pods resource. */
export function outOfPodsMessage(used: number, capacity: number): string {
  return `Node didn't have enough resource: pods, requested: 1, used: ${used}, capacity: ${capacity}`;
}

export class MaxPodsAdmitHandler implements PodAdmitHandler {
  constructor(private readonly maxPods: () => number) {}

  admit({ otherPods }: PodAdmitAttributes): PodAdmitResult {
    const capacity = this.maxPods();
    if (otherPods.length + 1 > capacity) return { admit: false, reason: "OutOfpods", message: outOfPodsMessage(otherPods.length, capacity) };
    return { admit: true };
  }
}
