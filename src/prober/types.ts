// The prober's vocabulary: probe types, results, what one attempt found, the update the agent's
// syncLoop receives, and what the metrics observer is told. Names follow the kubelet's
// pkg/kubelet/prober and pkg/kubelet/prober/results.

import type { Pod } from "kubernetes-types/core/v1";

export type ProbeType = "liveness" | "readiness" | "startup";
export const PROBE_TYPES: readonly ProbeType[] = ["liveness", "readiness", "startup"];

/** A cached probe result (results.Result): unknown is only ever a startup probe's initial value. */
export type ProbeResult = "success" | "failure" | "unknown";

/**
 * One attempt, after the kubelet's mapping (prober.go probe()): Success and Warning (an HTTP
 * redirect to another host, not followed) count as success; Failure and Unknown as failure. An
 * attempt that *errored* (a named port that does not resolve, a CRI call that failed for a reason
 * other than a timeout) is thrown away by the worker: it moves no threshold and counts in no metric.
 */
export interface ProbeAttempt {
  result: "success" | "failure" | "error";
  /** Set when an HTTP probe stopped at a redirect to another host (the kubelet's ProbeWarning event). */
  warning?: boolean;
  /** The probe's output: the body or command output on success, why it failed otherwise. */
  output: string;
  /** Wall time of the attempt, retries included, in milliseconds; the wait for an exec slot is not. */
  latencyMs: number;
  /** How long the attempt waited for one of the node's exec probe slots before it ran (ms). */
  queuedMs?: number;
  /** An errored attempt that never ran: its worker's last ExecSync was still in the runtime (ProbeSkippedError). */
  skipped?: boolean;
  /**
   * A timeout the container may not be to blame for: the runtime was slow for every container at
   * the time (ExecLimiter.runtimeWasSlow). The worker throws it away, a bounded number of times.
   */
  excused?: string;
  /**
   * exec: the command's own combined output of a non-zero exit (HandlerResult.commandOutput), which the
   * kubelet's Unhealthy event quotes as is; `output` adds what failed for the logs and `probe run`.
   */
  commandOutput?: string;
}

/**
 * What a handler (exec, httpGet, tcpSocket, grpc) reports, as pkg/probe's (Result, output, error):
 * connection failures and timeouts are failures with the reason as output, not errors.
 */
export interface HandlerResult {
  status: "success" | "warning" | "failure" | "unknown";
  output: string;
  error?: Error;
  /** Exec probes: the wait for a slot (ms), and why a timeout may be the runtime's (ProbeAttempt). */
  queuedMs?: number;
  excused?: string;
  /** exec: the command's combined output of a non-zero exit, apart from the failure's wording (lifecycle hooks quote it). */
  commandOutput?: string;
}

/** A probe resolved against one container instance: what exactly is run or dialled. */
export type ProbeAction =
  | { kind: "exec"; containerId: string; command: string[] }
  | { kind: "httpGet"; url: URL; headers: [name: string, value: string][] }
  | { kind: "tcpSocket"; host: string; port: number }
  | { kind: "grpc"; host: string; port: number; service: string };

/** A probe's timing and thresholds in milliseconds, API defaults applied (SetDefaults_Probe). */
export interface ProbeTiming {
  initialDelayMs: number;
  periodMs: number;
  timeoutMs: number;
  successThreshold: number;
  failureThreshold: number;
}

/** A change of a container's cached probe result: the syncLoop input (the kubelet's results.Update). */
export interface ProbeUpdate {
  podUid: string;
  namespace: string;
  podName: string;
  containerName: string;
  containerId: string;
  probeType: ProbeType;
  result: "success" | "failure";
  /** The last attempt's output: why it failed ("HTTP probe failed with statuscode: 500"), or what it said. */
  reason: string;
  /** As the kubelet's event says it: "Liveness probe failed: HTTP probe failed with statuscode: 500". */
  message: string;
  /**
   * The probe's own terminationGracePeriodSeconds (liveness and startup only): a container killed
   * for failing this probe gets this grace period instead of the pod's.
   */
  terminationGracePeriodSeconds?: number;
  /** When the result changed (ms since the epoch, on the manager's clock). */
  time: number;
}

/**
 * One attempt as the metrics see it, with the labels of the kubelet's prober_probe_total. Errored
 * attempts are not reported (the kubelet counts none); the kubelet observes
 * prober_probe_duration_seconds for successful attempts only.
 */
export interface ProbeObservation {
  probeType: ProbeType;
  /** The kubelet's `result` label values. */
  result: "successful" | "failed" | "unknown";
  durationSeconds: number;
  podUid: string;
  namespace: string;
  podName: string;
  containerName: string;
}

/**
 * What a restarted agent last reported for a container, so that a restart flips readiness in
 * neither direction before the container is probed again (k/k #100277, #135795).
 */
export interface ProbeSeed {
  /** The container was reported ready: its readiness starts as success instead of failure. */
  ready?: boolean;
  /** The container was reported started: its startup probe counts as passed. */
  started?: boolean;
}

/** A container the runtime reports running: the instance probes are bound to. */
export interface RunningContainer {
  name: string;
  id: string;
  /** When it started, ms since the epoch (CRI startedAt / 1e6). */
  startedAt: number;
}

/**
 * The seam the agent drives its probes through (the kubelet's prober.Manager plus its results
 * managers): the ProbeManager on a node, a fake in the sync loop's tests. Result changes reach the
 * sync loop through the listener the agent gives when it makes the prober.
 */
export interface PodProber {
  /** Reconciles the pod's probe workers with its running containers, on every sync. */
  syncPod(pod: Pod, podIP: string, running: RunningContainer[], seed?: (c: RunningContainer) => ProbeSeed | undefined): void;
  /** The pod is terminating: liveness and startup probes stop. */
  stopLivenessAndStartup(podUid: string): void;
  /** The pod is gone: its workers stop and its results are forgotten. */
  removePod(podUid: string): void;
  /** Housekeeping: forgets every pod not in `desired`. */
  cleanupPods(desired: ReadonlySet<string>): void;
  result(containerId: string, type: ProbeType): ProbeResult | undefined;
  readiness(podUid: string, containerName: string, containerId?: string): boolean | undefined;
  started(podUid: string, containerName: string, containerId?: string): boolean | undefined;
  /** Stops every worker and waits for probes in flight. */
  stop(): Promise<void>;
}
