// The threshold state machine, the one piece the agent's probe workers and `nodeagent probe run`
// share so that both reach the same verdict from the same attempts (k/k pkg/kubelet/prober/worker.go
// doProbe): a result replaces the cached one only after successThreshold successes or
// failureThreshold failures in a row; until then the cached result is the probe type's initial one.
import type { ProbeResult, ProbeType } from "./types";

/**
 * The value a probe has before it has decided anything (worker.go newWorker): a readiness probe
 * keeps a container out of service, a liveness probe never kills an unprobed container, and a
 * startup probe is neither passed nor failed.
 */
export function initialResult(type: ProbeType): ProbeResult {
  switch (type) {
    case "readiness":
      return "failure";
    case "liveness":
      return "success";
    case "startup":
      return "unknown";
  }
}

/** What one observed attempt did to the verdict. */
export interface ThresholdStep {
  /** The verdict after this attempt. */
  verdict: ProbeResult;
  /** The verdict is different from before this attempt. */
  changed: boolean;
  /** This attempt completed a run of successThreshold or failureThreshold: the thresholds spoke. */
  settled: boolean;
  /** How many attempts in a row, this one included, had this attempt's result. */
  run: number;
}

export class ProbeThresholds {
  private last: "success" | "failure" | undefined;
  private runLength = 0;
  private current: ProbeResult;

  constructor(
    readonly successThreshold: number,
    readonly failureThreshold: number,
    initial: ProbeResult,
  ) {
    this.current = initial;
  }

  get verdict(): ProbeResult {
    return this.current;
  }

  observe(result: "success" | "failure"): ThresholdStep {
    if (this.last === result) this.runLength++;
    else {
      this.last = result;
      this.runLength = 1;
    }
    const needed = result === "success" ? this.successThreshold : this.failureThreshold;
    if (this.runLength < needed) return { verdict: this.current, changed: false, settled: false, run: this.runLength };
    const changed = this.current !== result;
    this.current = result;
    return { verdict: result, changed, settled: true, run: this.runLength };
  }
}
