// A client's rate limit (the kubelet's kubeAPIQPS and kubeAPIBurst) against the in-process test API
// server, on a fake clock: every kind of request the client sends — generated clients, getJson,
// postJson, a watch's start, a retry after a 429 — takes a token of the one bucket before it is sent;
// the time waited is counted and a long wait logged; a client derived without a limit (the heartbeat's)
// is not held up and shares the counts.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadKubeClient, type KubeClientOptions } from "../../src/kube";
import { createLogger, FakeClock } from "../../src/util";
import { TestApiServer } from "../fakes/apiserver";

/** Polls (real time) until `cond` holds; the client's requests are real HTTP, only the limiter's time is fake. */
async function until(what: string, cond: () => boolean, ms = 5_000): Promise<void> {
  for (const end = Date.now() + ms; !cond(); await Bun.sleep(5)) if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
}

describe("a client's rate limit", () => {
  let api: TestApiServer;
  let dir: string;
  const client = (o: KubeClientOptions) => loadKubeClient(join(dir, "admin"), o);

  beforeAll(async () => {
    api = await TestApiServer.start();
    dir = mkdtempSync(join(tmpdir(), "kube-rate-limit-"));
    api.writeKubeconfig(join(dir, "admin"), api.adminToken);
  });
  afterAll(async () => {
    await api.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test("qps 2, burst 2: six requests of every kind go two at once, then one every 500 ms, the last at 2 s", async () => {
    const clock = new FakeClock();
    const c = await client({ rateLimit: { qps: 2, burst: 2 }, clock });
    const from = api.requests.length;
    // A watch is recorded once its stream is answered.
    const sent = () => api.requests.length - from;
    const watchStopped: unknown[] = [];
    const pending = [
      c.core.readNamespace({ name: "default" }),
      c.core.listNamespacedPod({ namespace: "default" }),
      c.getJson("/api/v1/namespaces/default"),
      c.postJson("/apis/authentication.k8s.io/v1/tokenreviews", { apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", spec: { token: "x" } }),
      c.core.readNamespace({ name: "kube-system" }),
    ];
    const watch = await c.watch.watch(
      "/api/v1/namespaces/default/pods",
      {},
      () => {},
      (err) => watchStopped.push(err),
    );
    await clock.advance(0);
    await until("two requests", () => sent() >= 2);
    await Bun.sleep(100);
    expect(sent()).toBe(2);
    for (const [at, n] of [
      [499, 2],
      [500, 3],
      [1000, 4],
      [1500, 5],
      [2000, 6],
    ] as const) {
      await clock.advance(at - (clock.now() - Date.UTC(2026, 0, 1)));
      await until(`${n} requests at ${at} ms`, () => sent() >= n);
      await Bun.sleep(50);
      expect([at, sent()]).toEqual([at, n]);
    }
    await Promise.all(pending);
    // Four waited 500, 1000, 1500 and 2000 ms.
    expect(c.requests.throttleSeconds()).toBeCloseTo(5, 3);
    watch.abort();
    await until("the watch ended", () => watchStopped.length === 1);
  });

  test("a retry after a 429 waits for its own token; a long wait is logged at debug", async () => {
    const clock = new FakeClock();
    const lines: string[] = [];
    const log = createLogger("text", 4, (l) => void lines.push(l));
    const c = await client({ rateLimit: { qps: 0.5, burst: 1 }, clock, log });
    api.failNext({ verb: "get", resource: "namespaces" }, 429, 1, 0);
    const from = api.requests.length;
    let done = false;
    const got = c.getJson<{ metadata: { name: string } }>("/api/v1/namespaces/default").then((ns) => ((done = true), ns));
    await until("the first try", () => api.requests.length - from === 1);
    await Bun.sleep(100);
    expect(api.requests.slice(from).map((r) => r.code)).toEqual([429]);
    await clock.advance(1999);
    await Bun.sleep(50);
    expect(done).toBe(false);
    await clock.advance(1);
    expect((await got).metadata.name).toBe("default");
    expect(api.requests.slice(from).map((r) => r.code)).toEqual([429, 200]);
    expect(lines.join("")).toMatch(/debug waited before sending request \(client-side throttling\) delay=2000ms verb=GET path=\/api\/v1\/namespaces\/default/);
  });

  test("withRateLimit(undefined), the heartbeat's client: not held up by the spent bucket, its requests in the same counts", async () => {
    const clock = new FakeClock();
    const c = await client({ rateLimit: { qps: 1, burst: 1 }, clock });
    const heartbeat = c.withRateLimit(undefined);
    await c.getJson("/api/v1/namespaces/default");
    let throttledDone = false;
    const throttled = c.getJson("/api/v1/namespaces/kube-system").then(() => (throttledDone = true));
    for (let i = 0; i < 3; i++) await heartbeat.coordination.listNamespacedLease({ namespace: "kube-node-lease" });
    expect(throttledDone).toBe(false);
    expect(heartbeat.requests).toBe(c.requests);
    expect(c.requests.total({ verb: "list", resource: "leases" })).toBe(3);
    await clock.advance(1000);
    await throttled;
    expect(c.requests.total({ verb: "get", resource: "namespaces" })).toBe(2);
    // A derived client with a limit of its own (the kubelet's event client) has its own bucket.
    const events = c.withRateLimit({ qps: 1, burst: 1 });
    await events.getJson("/api/v1/namespaces/default");
  });

  test("a watch stopped while it waits for its token is never sent", async () => {
    const clock = new FakeClock();
    const c = await client({ rateLimit: { qps: 1, burst: 1 }, clock });
    await c.getJson("/api/v1/namespaces/default");
    const from = api.requests.length;
    const ended: unknown[] = [];
    const watch = await c.watch.watch(
      "/api/v1/namespaces/default/configmaps",
      {},
      () => {},
      (err) => ended.push(err),
    );
    watch.abort();
    await until("the watch ended", () => ended.length === 1);
    expect(ended).toEqual([null]);
    await clock.advance(5000);
    await Bun.sleep(50);
    expect(api.requests.slice(from)).toEqual([]);
    expect(api.watching().filter((w) => w.resource === "configmaps")).toEqual([]);
  });
});
