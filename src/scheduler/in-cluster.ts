// `schedule --kubeconfig`: a scheduler for a Kubernetes cluster. Nodes and pods come from informers
// (sources/kube-cluster.ts), pending pods whose schedulerName one of the profiles serves go through the
// same queue, framework and plugins as the other modes, placed pods are bound through the binding
// subresource, and every attempt is recorded on the pod and as an Event (sources/kube-recorder.ts).
// Only cluster mode loads this module: it pulls in @kubernetes/client-node.
import { hostname } from "node:os";
import { apiErrorCode, apiErrorMessage, type KubeClient } from "../kube";
import { type Clock, type Logger, RealClock } from "../util";
import type { SchedulerConfig } from "./config/types";
import type { AttemptResult } from "./framework/result";
import { Scheduler } from "./scheduler";
import { KubeClusterSource } from "./sources/kube-cluster";
import { KubeRecorder } from "./sources/kube-recorder";

export interface InClusterOptions {
  client: KubeClient;
  config: SchedulerConfig;
  log: Logger;
  explain?: boolean;
  clock?: Clock;
  /** reportingInstance of the events is "<schedulerName>-<hostname>"; default os.hostname(). */
  hostname?: string;
  /** Called after each attempt, once its result is known (before the API has it). */
  onAttempt?: (r: AttemptResult) => void;
  /** How often the first contact with the API server is tried before giving up (default 4). */
  connectAttempts?: number;
  /** Pause after the first failed contact, doubled after each (default 500 ms). */
  connectBackoffMs?: number;
}

export class ApiServerUnreachable extends Error {
  override name = "ApiServerUnreachable";
}

export class InClusterScheduler {
  readonly scheduler: Scheduler;
  readonly source: KubeClusterSource;
  readonly recorder: KubeRecorder;
  private readonly clock: Clock;

  constructor(private readonly o: InClusterOptions) {
    this.clock = o.clock ?? new RealClock();
    this.scheduler = new Scheduler({
      config: o.config,
      clock: this.clock,
      explain: o.explain,
      log: o.log,
      onAttempt: (r) => {
        o.onAttempt?.(r);
        this.recorder.record(r, this.source.pod(r.namespace, r.name));
      },
    });
    this.source = new KubeClusterSource(o.client, this.scheduler, this.scheduler.cache.namespaces, o.log, this.clock);
    this.scheduler.setClient(this.source);
    this.recorder = new KubeRecorder({
      client: o.client,
      schedulerName: o.config.profiles[0]!.schedulerName,
      hostname: o.hostname ?? hostname(),
      clock: this.clock,
      log: o.log,
    });
  }

  /**
   * Reaches the API server (a few tries: it may be starting too), then lists nodes and pods. A server
   * that cannot be reached, or that refuses these credentials, is an ApiServerUnreachable naming it.
   */
  async connect(): Promise<void> {
    const { client, log } = this.o;
    const attempts = this.o.connectAttempts ?? 4;
    let delay = this.o.connectBackoffMs ?? 500;
    for (let i = 1; ; i++) {
      try {
        await client.core.listNode({ limit: 1 });
        break;
      } catch (e) {
        const code = apiErrorCode(e);
        const why = apiErrorMessage(e);
        if (code === 401 || code === 403)
          throw new ApiServerUnreachable(
            `API server ${client.server} refused to list nodes: ${why} (check the kubeconfig's credentials: the scheduler needs kube-scheduler's rights)`,
          );
        if (i >= attempts) throw new ApiServerUnreachable(`cannot reach the API server ${client.server} after ${attempts} tries: ${why}`);
        log.warn("API server not reachable; retrying", { server: client.server, err: why, retryIn: `${delay / 1000}s` });
        await this.clock.sleep(delay);
        delay *= 2;
      }
    }
    this.source.start();
    await this.source.synced();
  }

  /** Schedules until the signal aborts; then stops watching and lets the last writes finish. */
  async run(signal: AbortSignal): Promise<void> {
    try {
      // Stopped while connecting: Scheduler.run would wait for an abort that already happened.
      if (!signal.aborted) await this.scheduler.run(signal);
    } finally {
      await this.stop();
    }
  }

  async stop(): Promise<void> {
    await this.source.stop();
    await this.scheduler.settle();
    await this.recorder.flush();
  }
}
