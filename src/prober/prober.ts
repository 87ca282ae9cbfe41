// Prober: one probe attempt as the kubelet makes it (k/k pkg/kubelet/prober/prober.go): the handler
// runs, and runs again, up to 3 times in all, only while it *errors* (a refused connection or a
// non-zero exit is an answer, not an error); the answer is then mapped to success or failure. A
// probe the agent skipped (no exec slot in time) is not retried: it was never run.
//
// The network handlers are loaded on their first use (their modules pull in node:http, node:https
// and node:net, megabytes of an agent's memory that a node without such probes never needs).
import type { Clock } from "../util";
import { execProbe, type ContainerCommandRunner } from "./exec";
import { ProbeSkippedError, type ExecLimiter } from "./exec-limiter";
import type { HandlerResult, ProbeAction, ProbeAttempt } from "./types";

/** maxProbeRetries in prober.go. */
export const MAX_PROBE_TRIES = 3;

/** Whose attempt this is, for the node's exec slots (the agent's workers). */
export interface AttemptOptions {
  /** The worker: one ExecSync of its probe in the runtime at a time. */
  owner: unknown;
}

export class Prober {
  constructor(
    private readonly runner: ContainerCommandRunner,
    private readonly clock: Clock,
    /** The node's exec slots (the agent); without it exec probes are not queued (`probe run`). */
    private readonly limiter?: ExecLimiter,
  ) {}

  /** Runs the action's handler once, bounded by timeoutMs. */
  async runHandler(a: ProbeAction, timeoutMs: number, signal?: AbortSignal, o?: AttemptOptions): Promise<HandlerResult> {
    switch (a.kind) {
      case "exec": {
        const slots = this.limiter && o ? { limiter: this.limiter, owner: o.owner } : undefined;
        return execProbe(this.runner, a.containerId, a.command, timeoutMs, this.clock, signal, slots);
      }
      case "httpGet":
        return (await import("./http")).httpProbe(a.url, a.headers, timeoutMs, this.clock, signal);
      case "tcpSocket":
        return (await import("./tcp")).tcpProbe(a.host, a.port, timeoutMs, this.clock, signal);
      case "grpc":
        return (await import("./grpc")).grpcProbe(a.host, a.port, a.service, timeoutMs, this.clock, signal);
    }
  }

  /**
   * One attempt. `action` is called for every try, so a probe that cannot be resolved (a named port
   * the container lacks) errors like a handler error does. Success and Warning map to success,
   * Failure and Unknown to failure (prober.go probe()); an error after the last try is an "error".
   * The latency is the probe's own time: the wait for an exec slot is reported apart (queuedMs).
   */
  async attempt(action: () => ProbeAction, timeoutMs: number, signal?: AbortSignal, o?: AttemptOptions): Promise<ProbeAttempt> {
    const start = this.clock.now();
    let queuedMs = 0;
    let last: HandlerResult = { status: "unknown", output: "" };
    for (let i = 0; i < MAX_PROBE_TRIES && !signal?.aborted; i++) {
      try {
        last = await this.runHandler(action(), timeoutMs, signal, o);
      } catch (err) {
        last = { status: "unknown", output: "", error: err as Error };
      }
      queuedMs += last.queuedMs ?? 0;
      if (!last.error || last.error instanceof ProbeSkippedError) break;
    }
    const latencyMs = this.clock.now() - start - queuedMs;
    const timing = queuedMs > 0 ? { latencyMs, queuedMs } : { latencyMs };
    // A probe cancelled by its worker's stop is thrown away, whatever the handler made of it.
    if (signal?.aborted) return { result: "error", output: "probe cancelled", ...timing };
    if (last.error instanceof ProbeSkippedError) return { result: "error", skipped: true, output: last.error.message, ...timing };
    if (last.error) return { result: "error", output: last.error.message, ...timing };
    if (last.status === "success") return { result: "success", output: last.output, ...timing };
    if (last.status === "warning") return { result: "success", warning: true, output: last.output, ...timing };
    return {
      result: "failure",
      output: last.output,
      ...timing,
      ...(last.excused ? { excused: last.excused } : {}),
      ...(last.commandOutput !== undefined ? { commandOutput: last.commandOutput } : {}),
    };
  }
}
