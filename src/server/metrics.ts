// The agent's Prometheus metrics. Names, types, labels and buckets are the kubelet's where the kubelet
// has the metric (k/k pkg/kubelet/metrics/metrics.go), so existing dashboards and alerts such as
// kube-prometheus's `kubelet_pleg_relist_duration_seconds` rules and "time() -
// kubelet_pleg_last_seen_seconds > 180" work against nodeagent unchanged. Metrics the kubelet does
// not have are named nodeagent_*.
//
// Each AgentMetrics owns its own Registry (prometheus.ts, the text format without prom-client): two
// agents in one process (tests) must not share or collide on series.
import { heapStats } from "bun:jsc";
import { CollectedCounter, Counter, Gauge, Histogram, Registry } from "../metrics";
import type { PodStatusReader } from "../pleg";

/** component-base metrics.DefBuckets (= Prometheus DefBuckets), used by the kubelet's PLEG histograms. */
export const DEFAULT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The kubelet's podStartupDurationBuckets: "roughly exponential but still round numbers in everyday units". */
export const POD_STARTUP_BUCKETS = [0.5, 1, 2, 3, 4, 5, 6, 8, 10, 20, 30, 45, 60, 120, 180, 240, 300, 360, 480, 600, 900, 1200, 1800, 2700, 3600];

/** The kubelet's kubecontainer.ContainerState values, the `container_state` label of kubelet_running_containers. */
export const CONTAINER_STATES = ["created", "running", "exited", "unknown"] as const;
export type ContainerStateLabel = (typeof CONTAINER_STATES)[number];

/** The requests an API client counted (src/kube's ApiRequestCounts), as this module reads them. */
export interface ApiRequestSource {
  snapshot(): Iterable<{ verb: string; resource: string; code: string; count: number }>;
  /** Seconds its requests waited for the client's rate limiter (kubeAPIQPS), summed. */
  throttleSeconds?(): number;
}

export class AgentMetrics {
  readonly registry = new Registry();
  private readonly apiRequestSources: ApiRequestSource[] = [];

  private readonly nodeName = new Gauge({
    name: "kubelet_node_name",
    help: "The node's name. The count is always 1.",
    labelNames: ["node"] as const,
    registers: [this.registry],
  });
  private readonly plegRelistDuration = new Histogram({
    name: "kubelet_pleg_relist_duration_seconds",
    help: "Duration in seconds for relisting pods in PLEG.",
    buckets: DEFAULT_BUCKETS,
    registers: [this.registry],
  });
  private readonly plegRelistInterval = new Histogram({
    name: "kubelet_pleg_relist_interval_seconds",
    help: "Interval in seconds between relisting in PLEG.",
    buckets: DEFAULT_BUCKETS,
    registers: [this.registry],
  });
  private readonly plegLastSeen = new Gauge({
    name: "kubelet_pleg_last_seen_seconds",
    help: "Timestamp in seconds when PLEG was last seen active.",
    registers: [this.registry],
  });
  private readonly eventedPlegConnErrors = new Counter({
    name: "kubelet_evented_pleg_connection_error_count",
    help: "The number of errors encountered during the establishment of streaming connection with the CRI runtime.",
    registers: [this.registry],
  });
  private readonly eventedPlegConnections = new Counter({
    name: "kubelet_evented_pleg_connection_success_count",
    help: "The number of times a streaming client was obtained to receive CRI Events.",
    registers: [this.registry],
  });
  private readonly podStartDuration = new Histogram({
    name: "kubelet_pod_start_duration_seconds",
    help: "Duration in seconds from kubelet seeing a pod for the first time to the pod starting to run",
    buckets: POD_STARTUP_BUCKETS,
    registers: [this.registry],
  });
  private readonly runningPods = new Gauge({
    name: "kubelet_running_pods",
    help: "Number of pods that have a running pod sandbox",
    registers: [this.registry],
  });
  private readonly runningContainers = new Gauge({
    name: "kubelet_running_containers",
    help: "Number of containers currently running",
    labelNames: ["container_state"] as const,
    registers: [this.registry],
  });
  private readonly containerRestarts = new Counter({
    name: "nodeagent_container_restarts_total",
    help: "Number of times the agent restarted a container (restartPolicy or a failed liveness probe), per pod and container.",
    labelNames: ["namespace", "pod", "container"] as const,
    registers: [this.registry],
  });
  // The kubelet's prober metrics (pkg/kubelet/prober/prober_manager.go), with its labels.
  private readonly probeTotal = new Counter({
    name: "prober_probe_total",
    help: "Cumulative number of a liveness, readiness or startup probe for a container by result.",
    labelNames: ["probe_type", "result", "container", "pod", "namespace", "pod_uid"] as const,
    registers: [this.registry],
  });
  private readonly probeDuration = new Histogram({
    name: "prober_probe_duration_seconds",
    help: "Duration in seconds for a probe response.",
    labelNames: ["probe_type", "container", "pod", "namespace"] as const,
    buckets: DEFAULT_BUCKETS,
    registers: [this.registry],
  });
  /** Label sets of the prober series per "namespace/pod", dropped with the pod. */
  private readonly probeSeries = new Map<
    string,
    Map<string, { probe_type: string; result: string; container: string; pod: string; namespace: string; pod_uid: string }>
  >();
  private readonly sourceErrors = new Gauge({
    name: "nodeagent_source_errors",
    help: "Number of manifests a pod source currently fails to load (the pods they describe keep running as last loaded).",
    labelNames: ["source"] as const,
    registers: [this.registry],
  });

  private readonly oomKills = new Counter({
    name: "nodeagent_oom_kills_total",
    help: 'OOM kills the kernel logged since the agent started: scope "container" for a cgroup over its memory limit, "system" when the node ran out of memory.',
    labelNames: ["scope"] as const,
    registers: [this.registry],
  });

  private readonly eventsDropped = new Counter({
    name: "nodeagent_events_dropped_total",
    help: 'Events not written to a sink ("memory": GET /events, "api": the API server): reason "queue_full" (the sink\'s queue of 1000 was full), "spam" (client-go\'s spam filter), "failed" (refused, or still failing after 12 tries).',
    labelNames: ["sink", "reason"] as const,
    registers: [this.registry],
  });

  // What grows when something leaks, sampled at each scrape: followed over hours by `make bench-soak`.
  private readonly heapObjects = new Gauge({
    name: "nodeagent_heap_objects",
    help: "Objects on the agent's JavaScript heap (bun:jsc heapStats().objectCount) when the metrics were read.",
    registers: [this.registry],
  });
  private readonly timers = new Gauge({
    name: "nodeagent_timers",
    help: "Timers the agent has set that have neither fired nor been cancelled.",
    registers: [this.registry],
  });
  private readonly eventRingEvents = new Gauge({
    name: "nodeagent_event_ring_events",
    help: "Events kept in memory for GET /events (bounded by the ring's size, 1000).",
    registers: [this.registry],
  });
  private readonly eventWatchers = new Gauge({
    name: "nodeagent_event_watchers",
    help: "Open watches of GET /events.",
    registers: [this.registry],
  });
  // The node's own calls of the API server, counted by its clients and read at each scrape.
  private readonly apiRequests = new CollectedCounter({
    name: "nodeagent_api_requests_total",
    help: 'Requests the node sent to the API server, by verb (get, list, watch, create, update, patch, delete), resource (with its subresource: pods/status, leases, …) and HTTP code ("<error>" when none came).',
    labelNames: ["verb", "resource", "code"] as const,
    registers: [this.registry],
    collect: () =>
      this.apiRequestSources.flatMap((s) => [...s.snapshot()].map((r) => ({ labels: { verb: r.verb, resource: r.resource, code: r.code }, value: r.count }))),
  });
  // client-go's rest_client_rate_limiter_duration_seconds, summed: the time requests waited for a token.
  private readonly apiThrottle = new CollectedCounter({
    name: "nodeagent_api_throttle_seconds_total",
    help: "Seconds the node's API requests waited for its client-side rate limit (--kube-api-qps, --kube-api-burst) before they were sent.",
    registers: [this.registry],
    collect: () => [{ labels: {}, value: this.apiRequestSources.reduce((sum, s) => sum + (s.throttleSeconds?.() ?? 0), 0) }],
  });
  private runtimeSampler: (() => { timers: number; eventRingEvents: number; eventWatchers: number }) | undefined;

  /** Label sets of nodeagent_container_restarts_total per "namespace/pod", so a deleted pod's series can be dropped. */
  private readonly restartSeries = new Map<string, Set<string>>();

  constructor() {
    // The kubelet sets its running gauges on every relist; start them at 0 so the series exist
    // (and alerts on absence do not fire) before the first relist.
    this.runningPods.set(0);
    for (const state of CONTAINER_STATES) this.runningContainers.set({ container_state: state }, 0);
    for (const scope of ["container", "system"]) this.oomKills.inc({ scope }, 0);
  }

  /** Prometheus text exposition content type (version 0.0.4). */
  get contentType(): string {
    return this.registry.contentType;
  }

  render(): Promise<string> {
    this.sampleRuntime();
    return Promise.resolve(this.registry.render());
  }

  /** Where the scrape reads the agent's live timers and its event ring (the node wires them; unset, the gauges stay 0). */
  setRuntimeSampler(fn: () => { timers: number; eventRingEvents: number; eventWatchers: number }): void {
    this.runtimeSampler = fn;
  }

  private sampleRuntime(): void {
    this.heapObjects.set(heapStats().objectCount);
    const s = this.runtimeSampler?.();
    if (!s) return;
    this.timers.set(s.timers);
    this.eventRingEvents.set(s.eventRingEvents);
    this.eventWatchers.set(s.eventWatchers);
  }

  /** An API client whose requests nodeagent_api_requests_total shows (from its first request on). */
  countApiRequests(source: ApiRequestSource): void {
    this.apiRequestSources.push(source);
  }

  setNodeName(name: string): void {
    this.nodeName.reset();
    this.nodeName.set({ node: name }, 1);
  }

  /** One relist took `seconds` (the kubelet observes it for every relist, failed or not). */
  observePlegRelist(seconds: number): void {
    this.plegRelistDuration.observe(seconds);
  }

  /** Time since the previous relist started. */
  observePlegRelistInterval(seconds: number): void {
    this.plegRelistInterval.observe(seconds);
  }

  /**
   * The PLEG was active at `epochMs`. The kubelet sets this in seconds since the epoch on every
   * successful relist; we keep the fraction (the kubelet truncates to whole seconds), which changes
   * nothing for `time() - kubelet_pleg_last_seen_seconds` alerts.
   */
  setPlegLastSeen(epochMs: number): void {
    this.plegLastSeen.set(epochMs / 1000);
  }

  incEventedPlegConnectionErrors(): void {
    this.eventedPlegConnErrors.inc();
  }

  incEventedPlegConnections(): void {
    this.eventedPlegConnections.inc();
  }

  /** Pod first seen by the agent → all its containers running (kubelet_pod_start_duration_seconds). */
  observePodStart(seconds: number): void {
    this.podStartDuration.observe(seconds);
  }

  setRunningPods(count: number): void {
    this.runningPods.set(count);
  }

  /**
   * Container counts by state, from one relist. States absent from `counts` are set to 0: the kubelet
   * (generic.go updateRunningPodAndContainerMetrics) only sets the states it saw, so a state whose
   * last container went away keeps its stale count; we do not copy that.
   */
  setRunningContainers(counts: Partial<Record<ContainerStateLabel, number>>): void {
    for (const state of CONTAINER_STATES) this.runningContainers.set({ container_state: state }, counts[state] ?? 0);
  }

  /** The event broadcaster did not deliver an event to a sink (src/events). */
  incEventDropped(sink: string, reason: "queue_full" | "spam" | "failed"): void {
    this.eventsDropped.inc({ sink, reason });
  }

  /** The OOM watcher saw a kill (src/oom). */
  incOomKill(system: boolean): void {
    this.oomKills.inc({ scope: system ? "system" : "container" });
  }

  incContainerRestart(namespace: string, pod: string, container: string): void {
    this.containerRestarts.inc({ namespace, pod, container });
    const key = `${namespace}/${pod}`;
    let containers = this.restartSeries.get(key);
    if (!containers) this.restartSeries.set(key, (containers = new Set()));
    containers.add(container);
  }

  /**
   * One probe attempt. As the kubelet: every counted attempt is in prober_probe_total by result; the
   * duration histogram is observed for successful ones only.
   */
  observeProbe(o: {
    probeType: string;
    result: string;
    durationSeconds: number;
    podUid: string;
    namespace: string;
    podName: string;
    containerName: string;
  }): void {
    const labels = { probe_type: o.probeType, result: o.result, container: o.containerName, pod: o.podName, namespace: o.namespace, pod_uid: o.podUid };
    this.probeTotal.inc(labels);
    if (o.result === "successful")
      this.probeDuration.observe({ probe_type: o.probeType, container: o.containerName, pod: o.podName, namespace: o.namespace }, o.durationSeconds);
    const key = `${o.namespace}/${o.podName}`;
    let series = this.probeSeries.get(key);
    if (!series) this.probeSeries.set(key, (series = new Map()));
    series.set(JSON.stringify(labels), labels);
  }

  /** Drops a removed pod's per-pod series so their number stays bounded by the pods on the node. */
  forgetPod(namespace: string, pod: string): void {
    const key = `${namespace}/${pod}`;
    for (const labels of this.probeSeries.get(key)?.values() ?? []) {
      this.probeTotal.remove(labels);
      this.probeDuration.remove({ probe_type: labels.probe_type, container: labels.container, pod: labels.pod, namespace: labels.namespace });
    }
    this.probeSeries.delete(key);
    for (const container of this.restartSeries.get(key) ?? []) this.containerRestarts.remove({ namespace, pod, container });
    this.restartSeries.delete(key);
  }

  /** Manifests of `source` (e.g. "file", "http", "api") that currently fail to load; 0 clears it. */
  setSourceErrors(source: string, count: number): void {
    this.sourceErrors.set({ source }, count);
  }
}

/**
 * What kubelet_running_pods and kubelet_running_containers count, from the PLEG's cache as the
 * kubelet's relist does (updateRunningPodAndContainerMetrics): pods with a ready sandbox, and
 * containers by state (the pause sandboxes are not containers here, as there).
 */
export function runtimeCounts(cache: PodStatusReader): { pods: number; containers: Record<ContainerStateLabel, number> } {
  const containers: Record<ContainerStateLabel, number> = { created: 0, running: 0, exited: 0, unknown: 0 };
  let pods = 0;
  for (const uid of cache.uids()) {
    const st = cache.get(uid)?.status;
    if (!st) continue;
    if (st.sandboxStatuses.some((s) => s.state === "SANDBOX_READY")) pods++;
    for (const c of st.containerStatuses) containers[CONTAINER_STATE_LABEL[c.state] ?? "unknown"]++;
  }
  return { pods, containers };
}

const CONTAINER_STATE_LABEL: Partial<Record<string, ContainerStateLabel>> = {
  CONTAINER_CREATED: "created",
  CONTAINER_RUNNING: "running",
  CONTAINER_EXITED: "exited",
};
