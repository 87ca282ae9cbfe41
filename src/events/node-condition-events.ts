// The node status events (k/k@1.24.1 pkg/kubelet/nodestatus/setters.go, recorded through the kubelet's
// recordNodeStatusEvent as `Node <name> status is now: <reason>`, all Normal, on the Node):
//   Ready: NodeReady / NodeNotReady when the condition's status changes — not when it first appears
//     (the setter appends a new Ready condition without an event);
//   MemoryPressure, DiskPressure, PIDPressure: an absent condition counts as Unknown, so the first
//     status records NodeHasSufficientMemory / NodeHasNoDiskPressure / NodeHasSufficientPID, and
//     every change after that the opposite reason;
//   a boot ID other than the one the previous Node had: Warning Rebooted, "Node <name> has been
//     rebooted, boot id: <id>" (the MachineInfo setter). The node wiring passes the API server's Node
//     as the previous one at the first build in a cluster, so a reboot is seen across a restart.
import type { Node } from "kubernetes-types/core/v1";
import type { NodeEventRecorder } from "./types";

const PRESSURE: ReadonlyArray<{ type: string; whenTrue: string; whenFalse: string }> = [
  { type: "MemoryPressure", whenTrue: "NodeHasInsufficientMemory", whenFalse: "NodeHasSufficientMemory" },
  { type: "DiskPressure", whenTrue: "NodeHasDiskPressure", whenFalse: "NodeHasNoDiskPressure" },
  { type: "PIDPressure", whenTrue: "NodeHasInsufficientPID", whenFalse: "NodeHasSufficientPID" },
];

function statusOf(node: Node | undefined, type: string): string | undefined {
  return node?.status?.conditions?.find((c) => c.type === type)?.status;
}

/** The reasons the setters would record going from `previous` (undefined: the first status) to `next`. */
export function nodeConditionEventReasons(previous: Node | undefined, next: Node): string[] {
  const reasons: string[] = [];
  const wasReady = statusOf(previous, "Ready");
  const ready = statusOf(next, "Ready");
  if (wasReady !== undefined && ready !== undefined && ready !== wasReady) reasons.push(ready === "True" ? "NodeReady" : "NodeNotReady");
  for (const p of PRESSURE) {
    const now = statusOf(next, p.type);
    const before = statusOf(previous, p.type) ?? "Unknown";
    if (now === "True" && before !== "True") reasons.push(p.whenTrue);
    else if (now === "False" && before !== "False") reasons.push(p.whenFalse);
  }
  return reasons;
}

/** Records the node status events of a change of the Node's conditions (and of its boot ID). */
export function recordNodeConditionEvents(record: NodeEventRecorder, nodeName: string, previous: Node | undefined, next: Node): void {
  const wasBoot = previous?.status?.nodeInfo?.bootID;
  const boot = next.status?.nodeInfo?.bootID;
  if (wasBoot && boot && wasBoot !== boot) record("Warning", "Rebooted", `Node ${nodeName} has been rebooted, boot id: ${boot}`);
  for (const reason of nodeConditionEventReasons(previous, next)) record("Normal", reason, `Node ${nodeName} status is now: ${reason}`);
}
