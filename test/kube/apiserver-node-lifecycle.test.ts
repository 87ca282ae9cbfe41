// The test API server's node lifecycle controller (issue 27): kube-controller-manager's judgement of a
// node by its Lease and Ready heartbeat, the Unknown conditions it writes when they stop, and the
// unreachable/not-ready taints, with zone disruption deciding the NoExecute ones. On a settable clock,
// passes driven by monitor(); one test on real time with a short grace, as e2e tests use it.
import { afterEach, describe, expect, test } from "bun:test";
import type { Lease } from "kubernetes-types/coordination/v1";
import type { Node, NodeCondition, Pod, Taint } from "kubernetes-types/core/v1";
import { eventually } from "../e2e/proc";
import { TestApiServer } from "../fakes/apiserver";
import { timestamp } from "../fakes/apiserver/registry";

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
let now = T0;
let api: TestApiServer;
const HOUR = 3_600_000;

/** A server whose controller never runs by itself: the tests call monitor(). */
async function server(opts: { gracePeriodMs?: number; startupGracePeriodMs?: number } = {}): Promise<TestApiServer> {
  now = T0;
  api = await TestApiServer.start({ now: () => now, nodeLifecycle: { periodMs: HOUR, ...opts } });
  return api;
}
afterEach(() => api?.stop());

const micro = (ms: number) => new Date(ms).toISOString().replace("Z", "000Z");
const KUBELET_CONDITIONS = ["MemoryPressure", "DiskPressure", "PIDPressure", "Ready"];

/** What a kubelet's status update writes: its four conditions, Ready as given, heartbeats now. */
function postStatus(name: string, ready = "True"): void {
  const at = timestamp(now);
  const conditions: NodeCondition[] = KUBELET_CONDITIONS.map((type) => ({
    type,
    status: type === "Ready" ? ready : "False",
    reason: type === "Ready" ? (ready === "True" ? "KubeletReady" : "KubeletNotReady") : `KubeletHas${type === "PIDPressure" ? "SufficientPID" : "No" + type}`,
    lastHeartbeatTime: at,
    lastTransitionTime: at,
  }));
  const old = node(name)?.status?.conditions ?? [];
  for (const c of conditions) {
    const prev = old.find((o) => o.type === c.type);
    if (prev?.status === c.status) c.lastTransitionTime = prev.lastTransitionTime;
  }
  const network = old.find((c) => c.type === "NetworkUnavailable");
  api.store.patchStatus("nodes", undefined, name, { status: { conditions: network ? [...conditions, network] : conditions } });
}

function renewLease(name: string): void {
  const lease: Lease = { metadata: { name, namespace: "kube-node-lease" }, spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime: micro(now) } };
  if (api.store.get("leases", "kube-node-lease", name))
    api.store.patch("leases", "kube-node-lease", name, "application/merge-patch+json", { spec: lease.spec });
  else api.store.create("leases", lease, "kube-node-lease");
}

/** A node registered, its status posted and its Lease renewed now. */
function register(name: string, labels: Record<string, string> = {}): void {
  api.store.create("nodes", { metadata: { name, labels } });
  postStatus(name);
  renewLease(name);
}

const node = (name: string) => api.store.get("nodes", undefined, name) as Node | undefined;
const condition = (name: string, type: string) => node(name)?.status?.conditions?.find((c) => c.type === type);
const taints = (name: string): Array<Pick<Taint, "key" | "effect">> =>
  (node(name)?.spec?.taints ?? []).map(({ key, effect }) => ({ key, effect })).sort((a, b) => (a.effect < b.effect ? -1 : 1));
const UNREACHABLE_NOSCHEDULE = { key: "node.kubernetes.io/unreachable", effect: "NoSchedule" };
const UNREACHABLE_NOEXECUTE = { key: "node.kubernetes.io/unreachable", effect: "NoExecute" };

/** Time moves by ms; the live nodes renew their Leases every 10 s as kubelets do, then a pass runs. */
function advance(ms: number, live: string[]): void {
  const end = now + ms;
  while (now < end) {
    now = Math.min(end, now + 10_000);
    for (const n of live) renewLease(n);
  }
  api.nodeLifecycle!.monitor();
}

describe("node lifecycle controller", () => {
  test("is off by default: a node nobody renews stays Ready", async () => {
    api = await TestApiServer.start({ now: () => now });
    now = T0;
    register("quiet");
    now += HOUR;
    expect(api.nodeLifecycle).toBeUndefined();
    expect(condition("quiet", "Ready")?.status).toBe("True");
  });

  test("a node whose Lease is renewed stays Ready past the grace though its status heartbeat is old", async () => {
    await server();
    register("n1");
    api.nodeLifecycle!.monitor();
    advance(5 * 60_000, ["n1"]);
    expect(condition("n1", "Ready")?.status).toBe("True");
    expect(taints("n1")).toEqual([]);
  });

  test("a stopped node goes Unknown after 50 s unseen, and gets both unreachable taints while others are Ready", async () => {
    await server();
    register("stopped");
    register("alive");
    const pod: Pod = { metadata: { name: "p", namespace: "default" }, spec: { nodeName: "stopped", containers: [{ name: "c", image: "busybox" }] } };
    api.store.create("pods", pod);
    api.store.patchStatus("pods", "default", "p", {
      status: { phase: "Running", conditions: [{ type: "Ready", status: "True", lastTransitionTime: timestamp(now) }] },
    });
    api.nodeLifecycle!.monitor();
    advance(40_000, ["alive"]);
    expect(condition("stopped", "Ready")?.status).toBe("True");
    advance(15_000, ["alive"]);
    for (const type of KUBELET_CONDITIONS) {
      expect(condition("stopped", type)).toMatchObject({
        status: "Unknown",
        reason: "NodeStatusUnknown",
        message: "Kubelet stopped posting node status.",
        lastTransitionTime: timestamp(now),
        lastHeartbeatTime: timestamp(T0),
      });
    }
    expect(condition("alive", "Ready")?.status).toBe("True");
    expect(taints("stopped")).toEqual([UNREACHABLE_NOEXECUTE, UNREACHABLE_NOSCHEDULE]);
    expect(node("stopped")?.spec?.taints?.every((t) => t.timeAdded === timestamp(now))).toBe(true);
    expect(taints("alive")).toEqual([]);
    const podReady = (api.store.get("pods", "default", "p") as Pod).status?.conditions?.find((c) => c.type === "Ready");
    expect(podReady).toMatchObject({ status: "False", lastTransitionTime: timestamp(now) });
  });

  test("when it comes back its conditions are the kubelet's again and the controller's taints go", async () => {
    await server();
    register("back");
    register("alive");
    api.nodeLifecycle!.monitor();
    advance(60_000, ["alive"]);
    expect(taints("back")).toEqual([UNREACHABLE_NOEXECUTE, UNREACHABLE_NOSCHEDULE]);
    postStatus("back");
    renewLease("back");
    api.nodeLifecycle!.monitor();
    expect(condition("back", "Ready")?.status).toBe("True");
    expect(taints("back")).toEqual([]);
  });

  test("the cluster's only node gets the NoSchedule taint but no NoExecute one (all zones fully disrupted)", async () => {
    await server();
    register("only");
    api.nodeLifecycle!.monitor();
    advance(60_000, []);
    expect(condition("only", "Ready")?.status).toBe("Unknown");
    expect(taints("only")).toEqual([UNREACHABLE_NOSCHEDULE]);
    advance(60_000, []);
    expect(taints("only")).toEqual([UNREACHABLE_NOSCHEDULE]);
  });

  test("a node that reports NotReady is tainted not-ready, and unreachable instead once it goes silent", async () => {
    await server();
    register("sick");
    register("alive");
    api.nodeLifecycle!.monitor();
    now += 1000;
    postStatus("sick", "False");
    renewLease("sick");
    api.nodeLifecycle!.monitor();
    expect(taints("sick")).toEqual([
      { key: "node.kubernetes.io/not-ready", effect: "NoExecute" },
      { key: "node.kubernetes.io/not-ready", effect: "NoSchedule" },
    ]);
    advance(60_000, ["alive"]);
    expect(condition("sick", "Ready")).toMatchObject({ status: "Unknown", reason: "NodeStatusUnknown" });
    expect(taints("sick")).toEqual([UNREACHABLE_NOEXECUTE, UNREACHABLE_NOSCHEDULE]);
  });

  test("a node that never posted status gets the conditions as NeverUpdated after the 60 s start-up grace", async () => {
    await server();
    api.store.create("nodes", { metadata: { name: "mute" } });
    api.nodeLifecycle!.monitor();
    now += 55_000;
    api.nodeLifecycle!.monitor();
    expect(condition("mute", "Ready")).toBeUndefined();
    now += 10_000;
    api.nodeLifecycle!.monitor();
    for (const type of KUBELET_CONDITIONS) {
      expect(condition("mute", type)).toMatchObject({
        status: "Unknown",
        reason: "NodeStatusNeverUpdated",
        message: "Kubelet never posted node status.",
        lastHeartbeatTime: timestamp(T0),
      });
    }
  });

  test("NetworkUnavailable is the control plane's and is left as it is", async () => {
    await server({ gracePeriodMs: 20_000 });
    register("net");
    register("alive");
    const conditions = [...(node("net")?.status?.conditions ?? []), { type: "NetworkUnavailable", status: "False", reason: "RouteCreated" }];
    api.store.patchStatus("nodes", undefined, "net", { status: { conditions } });
    api.nodeLifecycle!.monitor();
    advance(30_000, ["alive"]);
    expect(condition("net", "Ready")?.status).toBe("Unknown");
    expect(condition("net", "NetworkUnavailable")).toMatchObject({ status: "False", reason: "RouteCreated" });
  });

  test("on real time with a short grace a node nobody renews goes Unknown by itself", async () => {
    api = await TestApiServer.start({ nodeLifecycle: { gracePeriodMs: 300, periodMs: 50 } });
    now = Date.now();
    api.store.create("nodes", { metadata: { name: "real" } });
    const at = new Date().toISOString().replace(/\.\d+Z$/, "Z");
    api.store.patchStatus("nodes", undefined, "real", {
      status: { conditions: [{ type: "Ready", status: "True", lastHeartbeatTime: at, lastTransitionTime: at }] },
    });
    await eventually("Ready Unknown", async () => condition("real", "Ready")?.status === "Unknown", 5000, 20);
    // The NoSchedule taint follows the condition on the Node's own change, not on the next pass.
    await eventually("the unreachable NoSchedule taint", async () => taints("real").length > 0, 5000, 20);
    expect(taints("real")).toEqual([UNREACHABLE_NOSCHEDULE]);
  });
});
