// Why a pod did not fit (pkg/scheduler/framework types.go Diagnosis, NodeToStatus, FitError): the
// status of every node that was rejected, the plugins that rejected it, and the FailedScheduling
// message worded exactly as kube-scheduler words it:
//   0/N nodes are available: <PreFilter message>. | <sorted "count reason" histogram>. [<PostFilter message>]
import { Code, Status } from "./status";

/** The status of every rejected node, and one shared status for the nodes not listed ("absent"). */
export class NodeToStatus {
  private readonly statuses = new Map<string, Status>();
  /** NewDefaultNodeToStatus: nodes never evaluated count as UnschedulableAndUnresolvable. */
  absentNodesStatus: Status = new Status(Code.UnschedulableAndUnresolvable);

  set(node: string, s: Status): void {
    this.statuses.set(node, s);
  }

  get(node: string): Status {
    return this.statuses.get(node) ?? this.absentNodesStatus;
  }

  has(node: string): boolean {
    return this.statuses.has(node);
  }

  /** The number of nodes with an explicit status. */
  get size(): number {
    return this.statuses.size;
  }

  entries(): IterableIterator<[string, Status]> {
    return this.statuses.entries();
  }
}

export class Diagnosis {
  nodeToStatus = new NodeToStatus();
  unschedulablePlugins = new Set<string>();
  pendingPlugins = new Set<string>();
  preFilterMsg = "";
  postFilterMsg = "";

  /** Diagnosis.AddPluginStatus: remembers which plugin rejected (or held) the pod. */
  addPluginStatus(s: Status): void {
    if (!s.plugin) return;
    if (s.isRejected()) this.unschedulablePlugins.add(s.plugin);
    if (s.code === Code.Pending) this.pendingPlugins.add(s.plugin);
  }
}

/** Go's sort.Strings order: byte-wise, so "10 …" sorts before "2 …". */
function compareBytes(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** FitError: the pod fits no node. */
export class FitError extends Error {
  constructor(
    readonly podKey: string,
    readonly numAllNodes: number,
    readonly diagnosis: Diagnosis,
  ) {
    super("");
    this.name = "FitError";
    // Computed when read, as Go's Error() is: PostFilter adds its message after the error is made.
    Object.defineProperty(this, "message", { get: () => fitErrorMessage(this.numAllNodes, this.diagnosis) });
  }
}

/** FitError.Error(). */
export function fitErrorMessage(numAllNodes: number, d: Diagnosis): string {
  let msg = `0/${numAllNodes} nodes are available:`;
  if (d.preFilterMsg !== "") {
    // The PreFilter status was copied to every node; listing it per node would repeat it.
    msg += ` ${d.preFilterMsg}.`;
  } else {
    const counts = new Map<string, number>();
    for (const [, s] of d.nodeToStatus.entries()) for (const r of s.reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
    const absent = numAllNodes - d.nodeToStatus.size;
    if (absent > 0) for (const r of d.nodeToStatus.absentNodesStatus.reasons) counts.set(r, (counts.get(r) ?? 0) + absent);
    const histogram = [...counts].map(([r, n]) => `${n} ${r}`).sort(compareBytes);
    if (histogram.length > 0) msg += ` ${histogram.join(", ")}.`;
  }
  if (d.postFilterMsg !== "") msg += ` ${d.postFilterMsg}`;
  return msg;
}

/** validation.NoteLengthLimit: the longest note an Event may carry. */
export const NOTE_LENGTH_LIMIT = 1024;

/** truncateMessage (schedule_one.go): what the FailedScheduling event shows, " ..." past 1024 bytes. */
export function truncateMessage(message: string): string {
  const bytes = Buffer.from(message, "utf8");
  if (bytes.length <= NOTE_LENGTH_LIMIT) return message;
  const suffix = " ...";
  return (
    bytes
      .subarray(0, NOTE_LENGTH_LIMIT - suffix.length)
      .toString("utf8")
      .replace(/\uFFFD$/, "") + suffix
  );
}
