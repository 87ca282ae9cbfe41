// What the HTTP server sees of the agent. The agent (src/agent) implements AgentView; the server
// never reaches into pod workers, the PLEG or the runtime itself, so it can be tested with a fake.
import type { Event, Node, Pod } from "kubernetes-types/core/v1";
import type { PushResult } from "../api";
import type { Summary } from "../stats";
import type { StreamRefusal, StreamRequest } from "./streaming";

/** What the log endpoint needs of a container: where its log file is, and whether it runs. */
export interface ContainerLogInfo {
  path: string;
  running: boolean;
}

export interface HealthCheck {
  name: string;
  ok: boolean;
  message: string;
  /**
   * Something wrong that must not fail the check, shown by /healthz?verbose as
   * "[+]sources ok (warning: file source: /etc/kubernetes/manifests is missing; its 2 pods are kept)".
   * The plain /healthz stays "ok", so a warning never makes the node NotReady.
   */
  warning?: string;
}

/**
 * pods() and healthChecks() are synchronous on purpose: they read the agent's caches (the PLEG's pod
 * status cache, the workers' states), so a runtime that stops answering cannot hold a request. node()
 * asks the runtime; the server bounds it with a deadline (node-cache.ts).
 */
export interface AgentView {
  /**
   * Every pod the agent knows, with live status (v1 Pod objects). The server never modifies them,
   * and keeps what it derives from each (its JSON) for as long as the view answers the same object:
   * a pod that changed is a new object.
   */
  pods(): Pod[];
  /** Health checks, each ok or failing with a message (e.g. "PLEG": "pleg was last seen active 3m1s ago; threshold is 3m0s", "syncloop": ...). */
  healthChecks(): HealthCheck[];
  /** The v1 Node object describing this host (src/nodestatus buildNode); may wait on the runtime. */
  node(): Promise<Node>;
  /** Pushes a pod (POST /pods): ok, or refused with an HTTP status and message. */
  pushPod(pod: unknown): Promise<PushResult>;
  /**
   * One container as the runtime sees it, for its log (GET /containerLogs): the log file's path and
   * whether it still runs (CRI ContainerStatus, as the kubelet asks it). `containerId` is the
   * runtime's ID, without the "containerd://". Rejects when the runtime does not know the container.
   */
  containerLog(containerId: string): Promise<ContainerLogInfo>;
  /** Removes a pushed pod (DELETE /pods/<ns>/<name>): false when no pushed pod has that name. */
  deletePushedPod(namespace: string, name: string): Promise<boolean>;
  /**
   * The Summary API (src/stats) behind /stats/summary and /metrics/resource; with onlyCpuAndMemory,
   * the cpu and memory figures alone. Absent, those endpoints answer 404 (views in tests).
   */
  summary?(onlyCpuAndMemory: boolean): Promise<Summary>;
  /**
   * The runtime's streaming URL for an exec, attach or port-forward (CRI Exec/Attach/PortForward on
   * the pod's running container or ready sandbox), or the kubelet's refusal. Absent: those endpoints 404.
   */
  streamUrl?(r: StreamRequest): Promise<string | StreamRefusal>;
  /** /configz: the configuration in use, {"kubeletconfig": …} as the kubelet's. Absent: 404. */
  configz?(): unknown;
  /**
   * GET /events: the node's recent events (src/events EventRing), oldest first, as the API server
   * would store them (a repeat is one event with its count). Absent: 404.
   */
  events?(): Event[];
}
