// Prober: one probe attempt as the kubelet makes it (k/k pkg/kubelet/prober/prober.go): the handler
// runs, and runs again, up to 3 times in all, only while it *errors* (a refused connection or a
// non-zero exit is an answer, not an error); the answer is then mapped to success or failure.
import type { Clock } from "../util/clock";
import { execProbe, type ContainerCommandRunner } from "./exec";
import { grpcProbe } from "./grpc";
import { httpProbe } from "./http";
import { tcpProbe } from "./tcp";
import type { HandlerResult, ProbeAction, ProbeAttempt } from "./types";

/** maxProbeRetries in prober.go. */
export const MAX_PROBE_TRIES = 3;

export class Prober {
  constructor(
    private readonly runner: ContainerCommandRunner,
    private readonly clock: Clock,
  ) {}

  /** Runs the action's handler once, bounded by timeoutMs. */
  runHandler(a: ProbeAction, timeoutMs: number, signal?: AbortSignal): Promise<HandlerResult> {
    switch (a.kind) {
      case "exec":
        return execProbe(this.runner, a.containerId, a.command, timeoutMs, this.clock, signal);
      case "httpGet":
        return httpProbe(a.url, a.headers, timeoutMs, this.clock, signal);
      case "tcpSocket":
        return tcpProbe(a.host, a.port, timeoutMs, this.clock, signal);
      case "grpc":
        return grpcProbe(a.host, a.port, a.service, timeoutMs, this.clock, signal);
    }
  }

  /**
   * One attempt. `action` is called for every try, so a probe that cannot be resolved (a named port
   * the container lacks) errors like a handler error does. Success and Warning map to success,
   * Failure and Unknown to failure (prober.go probe()); an error after the last try is an "error".
   */
  async attempt(action: () => ProbeAction, timeoutMs: number, signal?: AbortSignal): Promise<ProbeAttempt> {
    const start = this.clock.now();
    let last: HandlerResult = { status: "unknown", output: "" };
    for (let i = 0; i < MAX_PROBE_TRIES && !signal?.aborted; i++) {
      try {
        last = await this.runHandler(action(), timeoutMs, signal);
      } catch (err) {
        last = { status: "unknown", output: "", error: err as Error };
      }
      if (!last.error) break;
    }
    const latencyMs = this.clock.now() - start;
    // A probe cancelled by its worker's stop is thrown away, whatever the handler made of it.
    if (signal?.aborted) return { result: "error", output: "probe cancelled", latencyMs };
    if (last.error) return { result: "error", output: last.error.message, latencyMs };
    if (last.status === "success") return { result: "success", output: last.output, latencyMs };
    if (last.status === "warning") return { result: "success", warning: true, output: last.output, latencyMs };
    return { result: "failure", output: last.output, latencyMs };
  }
}
