// src/kube's KubeInformer against the test API server: list then watch, re-watch after a dropped
// stream without relisting, relist after 410 Expired, keep the cache while the server is down and
// catch up after, and report 403. Retry backoff runs on a FakeClock; network waits are conditions.
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { V1Pod as Pod } from "@kubernetes/client-node";
import { KubeInformer, loadKubeClient, type InformerEvent, type KubeClient } from "../../src/kube";
import { FakeClock } from "../../src/util/clock";
import { createLogger } from "../../src/util/log";
import { TestApiServer } from "../fakes/apiserver";

let api: TestApiServer;
let node: KubeClient;
let dir: string;
const NODE = "inf-n1";
const informers: Array<KubeInformer<Pod>> = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "informer-test-"));
  api = await TestApiServer.start({ bookmarkIntervalMs: 100 });
  api.writeKubeconfig(join(dir, "node"), api.nodeToken(NODE));
  node = await loadKubeClient(join(dir, "node"));
});
afterEach(async () => {
  for (const i of informers.splice(0)) await i.stop();
  for (const p of api.store.list("pods")) api.store.delete("pods", p.metadata?.namespace, p.metadata!.name!, { gracePeriodSeconds: 0 });
});
afterAll(() => api.stop());

async function until(what: string, cond: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(5);
  }
}

const pod = (name: string, nodeName = NODE): Pod => ({
  metadata: { name, namespace: "default" },
  spec: { nodeName, containers: [{ name: "c", image: "busybox" }] },
});

/** The node's view of its pods, as the agent's API-server source will hold it. */
function podsOnNode(client: KubeClient, clock: FakeClock, selector = `spec.nodeName=${NODE}`) {
  const fieldSelector = selector || undefined;
  const events: string[] = [];
  const informer = new KubeInformer<Pod>({
    client,
    path: "/api/v1/pods",
    list: () => client.core.listPodForAllNamespaces({ fieldSelector }),
    fieldSelector,
    clock,
    log: createLogger("text", -1),
    what: `pods on node ${NODE}`,
  });
  informer.onChange((e: InformerEvent, p) => events.push(`${e} ${p.metadata?.name}`));
  informers.push(informer);
  const names = () =>
    informer
      .list()
      .map((p) => p.metadata?.name)
      .sort();
  return { informer, events, names };
}

test("lists, then watches: changes arrive as add/update/delete; other nodes' pods are not seen", async () => {
  api.store.create("pods", pod("a"));
  api.store.create("pods", pod("elsewhere", "inf-n2"));
  const { informer, events, names } = podsOnNode(node, new FakeClock());
  informer.start();
  await informer.synced();
  expect(names()).toEqual(["a"]);
  api.store.create("pods", pod("b"));
  api.store.patchStatus("pods", "default", "a", { status: { phase: "Running" } });
  api.store.delete("pods", "default", "b", { gracePeriodSeconds: 0 });
  await until("the delete of b", () => events.includes("delete b"));
  expect(events).toEqual(["add a", "add b", "update a", "delete b"]);
  expect(informer.get("a", "default")?.status?.phase).toBe("Running");
  expect(
    api.requests.filter((r) => r.user === `system:node:${NODE}` && r.verb === "watch").every((r) => r.query.fieldSelector === `spec.nodeName=${NODE}`),
  ).toBe(true);
});

test("a dropped watch is resumed from the last resourceVersion without a relist, losing nothing", async () => {
  api.store.create("pods", pod("c"));
  const { informer, events } = podsOnNode(node, new FakeClock());
  informer.start();
  await informer.synced();
  const watchesBefore = api.requests.filter((r) => r.verb === "watch").length;
  api.dropWatches();
  api.store.create("pods", pod("d"));
  await until("the add of d", () => events.includes("add d"));
  await until("a second watch", () => api.requests.filter((r) => r.verb === "watch").length > watchesBefore);
  expect(informer.lists).toBe(1);
  const rewatch = api.requests.filter((r) => r.verb === "watch").at(-1)!;
  expect(Number(rewatch.query.resourceVersion)).toBeGreaterThan(0);
});

/** An informer synced with two pods, then the server goes down and the informer notices. */
async function syncedThenServerDown(first: string, second: string) {
  api.store.create("pods", pod(first));
  api.store.create("pods", pod(second));
  const clock = new FakeClock();
  const view = podsOnNode(node, clock);
  view.informer.start();
  await view.informer.synced();
  await api.down();
  await until("the failure to be noticed", () => view.informer.lastError !== undefined);
  return { clock, ...view };
}

test("410 Expired after compaction: the informer relists and reports what changed meanwhile", async () => {
  const { clock, informer, events, names } = await syncedThenServerDown("e", "f");
  // Changes the informer cannot see while the server is away, then the history is forgotten.
  api.store.delete("pods", "default", "e", { gracePeriodSeconds: 0 });
  api.store.create("pods", pod("g"));
  api.compact();
  await api.up();
  await clock.advance(1000);
  await until("a relist", () => informer.lists === 2);
  await until("the cache to match the server", () => names().join() === "f,g");
  expect(events).toContain("delete e");
  expect(events).toContain("add g");
  expect(api.requests.some((r) => r.verb === "watch" && r.code === 410)).toBe(true);
});

test("server down: the cache is kept, the informer retries with backoff, and catches up after", async () => {
  const { clock, informer, events, names } = await syncedThenServerDown("h", "i");
  expect(names()).toEqual(["h", "i"]);
  api.store.delete("pods", "default", "h", { gracePeriodSeconds: 0 });
  api.store.create("pods", pod("j"));
  // Still down when the first retry fires: the next one waits twice as long.
  await clock.advance(1000);
  await until("the second failure", () => clock.pending() > 0);
  expect(names()).toEqual(["h", "i"]);
  await api.up();
  await clock.advance(2000);
  await until("the cache to catch up", () => names().join() === "i,j");
  expect(events.slice(-2)).toEqual(["delete h", "add j"]);
  await until("the error to clear", () => informer.lastError === undefined);
});

test("403: a node listing pods without its field selector is refused and nothing is cached", async () => {
  api.store.create("pods", pod("k"));
  const { informer, names } = podsOnNode(node, new FakeClock(), "");
  informer.start();
  await until("the error", () => informer.lastError !== undefined);
  expect(informer.lastError).toContain("403");
  expect(informer.lastError).toContain("can only list/watch pods with spec.nodeName field selector");
  expect(informer.hasSynced).toBe(false);
  expect(names()).toEqual([]);
});
