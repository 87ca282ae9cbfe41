// ClusterNode as the agent uses it, against the test API server with the node's own token and a fake
// clock: its pod sets go through a real PodConfig, and the API server is taken away for over a minute.
// Nothing may be REMOVEd for that; the retries go on at their capped backoff; afterwards the node
// catches up with exactly what changed meanwhile, and its Lease is renewed again.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Lease } from "kubernetes-types/coordination/v1";
import type { Pod } from "kubernetes-types/core/v1";
import { Agent } from "../../src/agent/agent";
import { ClusterNode } from "../../src/cluster/cluster-node";
import { PodConfig, type PodUpdate } from "../../src/config";
import { FakeClock } from "../../src/util/clock";
import { createLogger } from "../../src/util/log";
import { TestApiServer, type KubernetesObject } from "../fakes/apiserver";
import { FakePleg, FakePodWorkers, FakeProber } from "../fakes/seams";
import { builtNode } from "./node-fixtures";

const NODE = "cn1";
let api: TestApiServer;
let dir: string;

beforeAll(async () => {
  api = await TestApiServer.start();
  dir = mkdtempSync(join(tmpdir(), "cluster-node-"));
  api.writeKubeconfig(join(dir, "kubeconfig"), api.nodeToken(NODE));
});
afterAll(async () => {
  await api.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function until(what: string, cond: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(5);
  }
}

const pod = (name: string): Pod => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name, namespace: "default" },
  spec: { nodeName: NODE, containers: [{ name: "c", image: "busybox" }] },
});

test("an API server away for over a minute takes no pod away; the node catches up after", async () => {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const log = createLogger("text", -1);
  const cluster = await ClusterNode.connect({
    kubeconfig: join(dir, "kubeconfig"),
    nodeName: NODE,
    buildNode: async () => builtNode({ name: NODE }),
    health: () => ({ ready: true, message: "" }),
    clock,
    log,
  });
  const config = new PodConfig({ clock, log });
  const updates: PodUpdate[] = [];
  config.onUpdate((u) => updates.push(u));
  const names = () =>
    config
      .pods()
      .map((p) => p.metadata?.name)
      .sort()
      .join(",");
  // The agent as node.ts builds it, with the cluster node as its "api" source: only its health is read.
  const agent = new Agent({
    runtime: {} as never,
    pleg: new FakePleg(clock),
    config,
    sources: [cluster],
    clock,
    log,
    node: async () => ({}),
    runtimeConfig: { podLogsRoot: "/nonexistent", podsDir: "/nonexistent", cgroupRoot: "unit", nodeName: NODE, hostIP: "192.0.2.1" },
    prober: (u) => new FakeProber(u),
    podWorkers: () => new FakePodWorkers(),
  });
  const sourcesCheck = () => agent.healthChecks().find((c) => c.name === "sources")!;
  api.store.create("pods", pod("a") as KubernetesObject);
  api.store.create("pods", pod("b") as KubernetesObject);
  cluster.start((r) => config.apply(r));
  try {
    await until("the first list", () => names() === "a,b");
    expect(config.seenAllSources(["api"])).toBe(true);
    await until("the lease", () => api.store.get("leases", "kube-node-lease", NODE) !== undefined);

    await api.down();
    api.store.delete("pods", "default", "a", { gracePeriodSeconds: 0 });
    api.store.create("pods", pod("c") as KubernetesObject);
    await until("the outage noticed", () => cluster.problems().some((p) => p.startsWith("pod watch:")));
    // ClusterNode.problems() reaches /healthz?verbose as a warning that does not make the node NotReady.
    expect(sourcesCheck().ok).toBe(true);
    expect(sourcesCheck().warning).toContain("api source: pod watch: ");
    // 65 s of fake time, a second at a time, each retry's refusal given the time to arrive.
    for (let s = 0; s < 65; s++) {
      await clock.advance(1000);
      await Bun.sleep(2);
    }
    expect(updates.filter((u) => u.op === "REMOVE")).toEqual([]);
    expect(names()).toBe("a,b");
    const leaseBefore = (api.store.get("leases", "kube-node-lease", NODE) as Lease).spec?.renewTime;

    await api.up();
    // The informer's backoff is capped at 30 s: within that it lists again and reports the difference.
    for (let s = 0; s < 31 && names() !== "b,c"; s++) {
      await clock.advance(1000);
      await Bun.sleep(20);
    }
    await until("the catch-up", () => names() === "b,c");
    expect(updates.filter((u) => u.op === "REMOVE").flatMap((u) => u.pods.map((p) => p.metadata?.name))).toEqual(["a"]);
    await until("no problem left", () => !cluster.problems().some((p) => p.startsWith("pod watch:")));
    expect(sourcesCheck().warning ?? "").not.toContain("pod watch");
    for (let s = 0; s < 12; s++) {
      await clock.advance(1000);
      await Bun.sleep(5);
    }
    await until("the lease renewed", () => (api.store.get("leases", "kube-node-lease", NODE) as Lease).spec?.renewTime !== leaseBefore);
  } finally {
    await cluster.stop();
  }
}, 30_000);
