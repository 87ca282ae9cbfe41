import { describe, expect, test } from "bun:test";
import { AgentMetrics, DEFAULT_BUCKETS, POD_STARTUP_BUCKETS, runtimeCounts } from "../../src/server/metrics";

/** The sample lines of the rendered text, as "name{labels} value". */
function samples(text: string): string[] {
  return text.split("\n").filter((l) => l !== "" && !l.startsWith("#"));
}

function typeOf(text: string, name: string): string | undefined {
  return new RegExp(`^# TYPE ${name} (\\w+)$`, "m").exec(text)?.[1];
}

describe("AgentMetrics", () => {
  test("every metric has the kubelet's name and type", async () => {
    const text = await new AgentMetrics().render();
    const expected: Record<string, string> = {
      kubelet_node_name: "gauge",
      kubelet_pleg_relist_duration_seconds: "histogram",
      kubelet_pleg_relist_interval_seconds: "histogram",
      kubelet_pleg_last_seen_seconds: "gauge",
      kubelet_evented_pleg_connection_error_count: "counter",
      kubelet_evented_pleg_connection_success_count: "counter",
      kubelet_pod_start_duration_seconds: "histogram",
      kubelet_running_pods: "gauge",
      kubelet_running_containers: "gauge",
      nodeagent_container_restarts_total: "counter",
      nodeagent_oom_kills_total: "counter",
      nodeagent_events_dropped_total: "counter",
      nodeagent_source_errors: "gauge",
      nodeagent_heap_objects: "gauge",
      nodeagent_timers: "gauge",
      nodeagent_event_ring_events: "gauge",
      nodeagent_event_watchers: "gauge",
      nodeagent_api_requests_total: "counter",
      nodeagent_api_throttle_seconds_total: "counter",
      prober_probe_total: "counter",
      prober_probe_duration_seconds: "histogram",
    };
    for (const [name, type] of Object.entries(expected)) expect(typeOf(text, name)).toBe(type);
    expect(text.match(/^# TYPE /gm)).toHaveLength(Object.keys(expected).length);
  });

  test("the content type is Prometheus text 0.0.4", () => {
    expect(new AgentMetrics().contentType).toBe("text/plain; version=0.0.4; charset=utf-8");
  });

  test("PLEG relist histograms use the kubelet's DefBuckets", async () => {
    const m = new AgentMetrics();
    m.observePlegRelist(0.003);
    m.observePlegRelist(0.2);
    m.observePlegRelistInterval(1.001);
    const lines = samples(await m.render());
    const les = lines.filter((l) => l.startsWith("kubelet_pleg_relist_duration_seconds_bucket")).map((l) => /le="([^"]+)"/.exec(l)![1]);
    expect(les).toEqual([...DEFAULT_BUCKETS.map(String), "+Inf"]);
    expect(lines).toContain('kubelet_pleg_relist_duration_seconds_bucket{le="0.005"} 1');
    expect(lines).toContain('kubelet_pleg_relist_duration_seconds_bucket{le="0.25"} 2');
    expect(lines).toContain("kubelet_pleg_relist_duration_seconds_count 2");
    expect(lines).toContain("kubelet_pleg_relist_duration_seconds_sum 0.203");
    expect(lines).toContain('kubelet_pleg_relist_interval_seconds_bucket{le="1"} 0');
    expect(lines).toContain('kubelet_pleg_relist_interval_seconds_bucket{le="2.5"} 1');
  });

  test("last seen is a timestamp in seconds", async () => {
    const m = new AgentMetrics();
    m.setPlegLastSeen(Date.UTC(2026, 0, 1, 0, 0, 5, 500));
    expect(samples(await m.render())).toContain(`kubelet_pleg_last_seen_seconds ${Date.UTC(2026, 0, 1, 0, 0, 5, 500) / 1000}`);
  });

  test("the pod start histogram uses the kubelet's podStartupDurationBuckets", async () => {
    const m = new AgentMetrics();
    m.observePodStart(0.3);
    m.observePodStart(7);
    const lines = samples(await m.render());
    const les = lines.filter((l) => l.startsWith("kubelet_pod_start_duration_seconds_bucket")).map((l) => /le="([^"]+)"/.exec(l)![1]);
    expect(les).toEqual([...POD_STARTUP_BUCKETS.map(String), "+Inf"]);
    expect(lines).toContain('kubelet_pod_start_duration_seconds_bucket{le="0.5"} 1');
    expect(lines).toContain('kubelet_pod_start_duration_seconds_bucket{le="8"} 2');
    expect(lines).toContain("kubelet_pod_start_duration_seconds_count 2");
  });

  test("running gauges start at 0 and every container state is set on each update", async () => {
    const m = new AgentMetrics();
    let lines = samples(await m.render());
    expect(lines).toContain("kubelet_running_pods 0");
    for (const s of ["created", "running", "exited", "unknown"]) expect(lines).toContain(`kubelet_running_containers{container_state="${s}"} 0`);

    m.setRunningPods(3);
    m.setRunningContainers({ running: 4, exited: 2 });
    lines = samples(await m.render());
    expect(lines).toContain("kubelet_running_pods 3");
    expect(lines).toContain('kubelet_running_containers{container_state="running"} 4');
    expect(lines).toContain('kubelet_running_containers{container_state="exited"} 2');

    // The exited containers went away: the state goes back to 0 rather than keeping a stale 2.
    m.setRunningContainers({ running: 4 });
    lines = samples(await m.render());
    expect(lines).toContain('kubelet_running_containers{container_state="exited"} 0');
  });

  test("container restart counters, and forgetting a pod drops its series", async () => {
    const m = new AgentMetrics();
    m.incContainerRestart("default", "web", "app");
    m.incContainerRestart("default", "web", "app");
    m.incContainerRestart("default", "web", "sidecar");
    m.incContainerRestart("team", "db", "pg");
    let lines = samples(await m.render());
    expect(lines).toContain('nodeagent_container_restarts_total{namespace="default",pod="web",container="app"} 2');
    expect(lines).toContain('nodeagent_container_restarts_total{namespace="default",pod="web",container="sidecar"} 1');
    expect(lines).toContain('nodeagent_container_restarts_total{namespace="team",pod="db",container="pg"} 1');

    m.forgetPod("default", "web");
    lines = samples(await m.render());
    expect(lines.filter((l) => l.includes('pod="web"'))).toEqual([]);
    expect(lines).toContain('nodeagent_container_restarts_total{namespace="team",pod="db",container="pg"} 1');
  });

  test("source errors, evented PLEG connections and the node name", async () => {
    const m = new AgentMetrics();
    m.setSourceErrors("file", 2);
    m.setSourceErrors("http", 0);
    m.incEventedPlegConnectionErrors();
    m.incEventedPlegConnectionErrors();
    m.incEventedPlegConnections();
    m.setNodeName("old");
    m.setNodeName("node-1");
    const lines = samples(await m.render());
    expect(lines).toContain('nodeagent_source_errors{source="file"} 2');
    expect(lines).toContain('nodeagent_source_errors{source="http"} 0');
    expect(lines).toContain("kubelet_evented_pleg_connection_error_count 2");
    expect(lines).toContain("kubelet_evented_pleg_connection_success_count 1");
    expect(lines).toContain('kubelet_node_name{node="node-1"} 1');
    expect(lines.filter((l) => l.startsWith("kubelet_node_name"))).toHaveLength(1);
  });

  test("each instance has its own registry", async () => {
    const a = new AgentMetrics();
    const b = new AgentMetrics();
    a.setRunningPods(5);
    expect(samples(await a.render())).toContain("kubelet_running_pods 5");
    expect(samples(await b.render())).toContain("kubelet_running_pods 0");
  });

  test("runtimeCounts: pods with a ready sandbox and containers by state, from the PLEG cache", () => {
    const sandbox = (state: string) => ({ id: state, state }) as never;
    const container = (state: string) => ({ id: state, state }) as never;
    const statuses = new Map([
      [
        "a",
        {
          status: {
            uid: "a",
            name: "a",
            namespace: "d",
            ips: [],
            sandboxStatuses: [sandbox("SANDBOX_READY")],
            containerStatuses: [container("CONTAINER_RUNNING"), container("CONTAINER_EXITED")],
          },
          error: undefined,
          timestamp: 0,
        },
      ],
      [
        "b",
        {
          status: {
            uid: "b",
            name: "b",
            namespace: "d",
            ips: [],
            sandboxStatuses: [sandbox("SANDBOX_NOTREADY")],
            containerStatuses: [container("CONTAINER_EXITED"), container("CONTAINER_UNKNOWN")],
          },
          error: undefined,
          timestamp: 0,
        },
      ],
      ["c", { status: undefined, error: new Error("gone"), timestamp: 0 }],
    ]);
    const reader = { get: (uid: string) => statuses.get(uid), uids: () => [...statuses.keys()], getNewerThan: () => Promise.reject(new Error("unused")) };
    expect(runtimeCounts(reader)).toEqual({ pods: 1, containers: { created: 0, running: 1, exited: 2, unknown: 1 } });
  });

  test("probe attempts: counted by result, durations of successful ones only, dropped with the pod", async () => {
    const m = new AgentMetrics();
    const base = { probeType: "readiness", podUid: "u1", namespace: "default", podName: "web", containerName: "httpd" };
    m.observeProbe({ ...base, result: "successful", durationSeconds: 0.004 });
    m.observeProbe({ ...base, result: "successful", durationSeconds: 0.02 });
    m.observeProbe({ ...base, result: "failed", durationSeconds: 1 });
    const text = await m.render();
    const lines = samples(text);
    expect(lines).toContain('prober_probe_total{probe_type="readiness",result="successful",container="httpd",pod="web",namespace="default",pod_uid="u1"} 2');
    expect(lines).toContain('prober_probe_total{probe_type="readiness",result="failed",container="httpd",pod="web",namespace="default",pod_uid="u1"} 1');
    expect(lines).toContain('prober_probe_duration_seconds_count{probe_type="readiness",container="httpd",pod="web",namespace="default"} 2');
    m.forgetPod("default", "web");
    expect(samples(await m.render()).filter((l) => l.startsWith("prober_"))).toEqual([]);
  });
});

describe("nodeagent_events_dropped_total", () => {
  test("counts each event a sink did not get, by sink and reason", async () => {
    const m = new AgentMetrics();
    m.incEventDropped("api", "failed");
    m.incEventDropped("api", "failed");
    m.incEventDropped("memory", "spam");
    const text = await m.render();
    expect(text).toContain('nodeagent_events_dropped_total{sink="api",reason="failed"} 2');
    expect(text).toContain('nodeagent_events_dropped_total{sink="memory",reason="spam"} 1');
  });
});

test("the leak gauges are sampled at each scrape: heap objects from bun:jsc, timers and the event ring from the node's sampler", async () => {
  const m = new AgentMetrics();
  let timers = 3;
  m.setRuntimeSampler(() => ({ timers, eventRingEvents: 7, eventWatchers: 1 }));
  const first = samples(await m.render());
  expect(first).toContain("nodeagent_timers 3");
  expect(first).toContain("nodeagent_event_ring_events 7");
  expect(first).toContain("nodeagent_event_watchers 1");
  const heap = Number(first.find((l) => l.startsWith("nodeagent_heap_objects "))!.split(" ")[1]);
  expect(heap).toBeGreaterThan(1000);
  timers = 5;
  expect(samples(await m.render())).toContain("nodeagent_timers 5");
});

test("nodeagent_api_requests_total: the node's API clients' counts by verb, resource and code, summed across clients, read at each scrape", async () => {
  const m = new AgentMetrics();
  const main = [
    { verb: "update", resource: "leases", code: "200", count: 6 },
    { verb: "patch", resource: "pods/status", code: "200", count: 2 },
  ];
  m.countApiRequests({ snapshot: () => main });
  m.countApiRequests({ snapshot: () => [{ verb: "update", resource: "leases", code: "200", count: 1 }] });
  const text = await m.render();
  expect(typeOf(text, "nodeagent_api_requests_total")).toBe("counter");
  expect(samples(text).filter((l) => l.startsWith("nodeagent_api_requests_total"))).toEqual([
    'nodeagent_api_requests_total{verb="update",resource="leases",code="200"} 7',
    'nodeagent_api_requests_total{verb="patch",resource="pods/status",code="200"} 2',
  ]);
  main[0]!.count = 12;
  expect(samples(await m.render())).toContain('nodeagent_api_requests_total{verb="update",resource="leases",code="200"} 13');
});

test("nodeagent_api_throttle_seconds_total: the seconds the clients' requests waited for their rate limit, summed, 0 without one", async () => {
  const m = new AgentMetrics();
  expect(samples(await m.render())).toContain("nodeagent_api_throttle_seconds_total 0");
  let waited = 1.5;
  m.countApiRequests({ snapshot: () => [], throttleSeconds: () => waited });
  m.countApiRequests({ snapshot: () => [] });
  expect(typeOf(await m.render(), "nodeagent_api_throttle_seconds_total")).toBe("counter");
  expect(samples(await m.render())).toContain("nodeagent_api_throttle_seconds_total 1.5");
  waited = 4;
  expect(samples(await m.render())).toContain("nodeagent_api_throttle_seconds_total 4");
});
