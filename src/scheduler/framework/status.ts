// The scheduling framework's Status (k8s.io/kube-scheduler/framework interface.go): a code, the
// reasons that make up its message, the plugin that produced it, and, beyond upstream, a detail that
// --explain prints (the taint that was not tolerated, the numbers behind "Insufficient cpu").
// `undefined` stands for success, as a nil *Status does in Go, so the hot path allocates nothing.

/** The codes in upstream's iota order; their names are what logs and JSON output print. */
export enum Code {
  Success = 0,
  /** An unexpected failure: the pod is requeued with backoff, "without unschedulable plugins". */
  Error = 1,
  /** The pod does not fit now; PostFilter (preemption) may help. */
  Unschedulable = 2,
  /** The pod does not fit and preemption would not help on this node. */
  UnschedulableAndUnresolvable = 3,
  /** Permit only: the pod waits in the binding cycle until allowed, rejected or timed out. */
  Wait = 4,
  /** PreFilter/PreScore: the coupled Filter/Score is skipped this cycle; Bind: another binder is asked. */
  Skip = 5,
  /** The cycle went fine but the pod must wait for something outside the scheduler; no backoff. */
  Pending = 6,
}

export const CODE_NAMES = ["Success", "Error", "Unschedulable", "UnschedulableAndUnresolvable", "Wait", "Skip", "Pending"] as const;
export type CodeName = (typeof CODE_NAMES)[number];

export class Status {
  plugin = "";
  /** A human explanation beyond the upstream reason strings; never part of message(). */
  detail: string | undefined;

  constructor(
    readonly code: Code,
    readonly reasons: readonly string[] = [],
    readonly cause?: Error,
  ) {}

  /** Reasons joined by ", " (Status.Message). */
  message(): string {
    return this.reasons.join(", ");
  }

  codeName(): CodeName {
    return CODE_NAMES[this.code]!;
  }

  isSuccess(): boolean {
    return this.code === Code.Success;
  }

  isSkip(): boolean {
    return this.code === Code.Skip;
  }

  isWait(): boolean {
    return this.code === Code.Wait;
  }

  /** Unschedulable, UnschedulableAndUnresolvable or Pending (Status.IsRejected). */
  isRejected(): boolean {
    return this.code === Code.Unschedulable || this.code === Code.UnschedulableAndUnresolvable || this.code === Code.Pending;
  }

  withPlugin(name: string): this {
    this.plugin = name;
    return this;
  }

  withDetail(detail: string): this {
    this.detail = detail;
    return this;
  }
}

export type MaybeStatus = Status | undefined;

/** An Error status carrying err (framework.AsStatus). */
export function asStatus(err: unknown): Status {
  const e = err instanceof Error ? err : new Error(String(err));
  return new Status(Code.Error, [e.message], e);
}
