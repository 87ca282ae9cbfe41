// PrioritySort (plugins/queuesort/priority_sort.go): higher spec.priority first; among equals, the
// pod that entered the queue first.
import type { QueuedPodInfo, QueueSortPlugin } from "../framework/interface";
import { Names } from "./names";

export class PrioritySort implements QueueSortPlugin {
  readonly name = Names.PrioritySort;

  less(a: QueuedPodInfo, b: QueuedPodInfo): boolean {
    const pa = a.podInfo.priority;
    const pb = b.podInfo.priority;
    if (pa !== pb) return pa > pb;
    if (a.timestamp !== b.timestamp) return a.timestamp < b.timestamp;
    return a.seq < b.seq;
  }
}
