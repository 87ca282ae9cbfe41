// RuntimeState: what the runtime last said of itself, the kubelet's runtimeState (runtime_state.go)
// as its updateRuntimeUp loop keeps it: CRI Status every 5 s. The pod syncs read networkErrors():
// while the runtime reports NetworkReady=false (no CNI configuration yet, a network plugin down) only
// host-network pods start (pod-sync.ts, the kubelet's syncPod). Until the runtime first answers the
// network's state is unknown, as the kubelet's starts; a Status call that fails changes nothing (the
// kubelet logs it and keeps what it knew), and the node's Ready condition says "runtime is down".
import type { StatusResponse } from "../cri";
import { runtimeConditionErrors } from "../nodestatus";
import { type Clock, type Logger, runUntil } from "../util";

/** The kubelet's runtime sync period (kubelet.go: wait.Until(kl.updateRuntimeUp, 5*time.Second, …)). */
export const RUNTIME_STATE_PERIOD_MS = 5_000;

/** The kubelet's ErrNetworkUnknown: the network's state before the runtime first answered. */
export const NETWORK_STATE_UNKNOWN = "network state unknown";

export interface RuntimeStateOptions {
  /** CRI Status (the CriClient's status()). */
  status: () => Promise<StatusResponse>;
  clock: Clock;
  log: Logger;
  periodMs?: number;
}

export class RuntimeState {
  private networkError: string | undefined = NETWORK_STATE_UNKNOWN;

  constructor(private readonly o: RuntimeStateOptions) {}

  /** Why the runtime's network is not ready, in the kubelet's words; undefined when it is. */
  networkErrors(): string | undefined {
    return this.networkError;
  }

  /** Asks the runtime once (updateRuntimeUp). */
  async update(): Promise<void> {
    let status: StatusResponse;
    try {
      status = await this.o.status();
    } catch (err) {
      this.o.log.warn("container runtime status check failed", { err });
      return;
    }
    const before = this.networkError;
    this.networkError = runtimeConditionErrors(status).network;
    if (this.networkError === before) return;
    if (this.networkError)
      this.o.log.warn("the container runtime's network is not ready: only host-network pods start until it is", { err: this.networkError });
    else this.o.log.info("the container runtime's network is ready");
  }

  /** Asks every period until the signal aborts, the first time at once. */
  run(signal: AbortSignal): Promise<void> {
    return runUntil(this.o.clock, this.o.periodMs ?? RUNTIME_STATE_PERIOD_MS, signal, () => this.update());
  }
}
