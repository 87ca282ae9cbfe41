import { describe, expect, test } from "bun:test";
import { PodStatusCache } from "../../src/pleg/cache";
import { Relister, STATUS_READS_AT_ONCE, type RelistRuntime } from "../../src/pleg/relist";
import type { PodLifecycleEvent } from "../../src/pleg/types";
import { FakeClock } from "../../src/util/clock";
import { FakeRuntime } from "../fakes/runtime";
import { grpcStatusError } from "../fakes/grpc";

function setup() {
  const rt = new FakeRuntime();
  const clock = new FakeClock();
  const cache = new PodStatusCache();
  const events: PodLifecycleEvent[] = [];
  const errors: string[] = [];
  const relister = new Relister(
    rt,
    cache,
    clock,
    (e) => events.push(e),
    (what) => errors.push(what),
  );
  const take = () => events.splice(0).map((e) => [e.type, e.containerName ?? "", e.exitCode ?? null]);
  return { rt, clock, cache, events, errors, relister, take };
}

describe("Relister: full relist", () => {
  test("a new pod's sandbox and container start; nothing more while nothing changes", async () => {
    const { rt, relister, cache, take } = setup();
    const sb = rt.addSandbox({ uid: "u1", name: "web" });
    rt.addContainer(sb, "nginx");
    expect(await relister.relist()).toBe(true);
    expect(take()).toEqual([
      ["ContainerStarted", "POD", null],
      ["ContainerStarted", "nginx", null],
    ]);
    const status = cache.get("u1")!.status!;
    expect(status.name).toBe("web");
    expect(status.ips).toEqual([expect.stringMatching(/^10\.88\.0\./)]);
    expect(status.containerStatuses.map((c) => c.metadata?.name)).toEqual(["nginx"]);
    await relister.relist();
    expect(take()).toEqual([]);
  });

  test("exit, then removal: ContainerDied with the exit code and reason, then ContainerRemoved", async () => {
    const { rt, relister, cache, events, take } = setup();
    const sb = rt.addSandbox({ uid: "u1", name: "job" });
    const c = rt.addContainer(sb, "main");
    await relister.relist();
    take();
    rt.exit(c, 3);
    await relister.relist();
    expect(events[0]).toMatchObject({
      type: "ContainerDied",
      containerId: c,
      exitCode: 3,
      reason: "Error",
      pod: { uid: "u1", name: "job", namespace: "default" },
      mode: "generic",
    });
    expect(take()).toEqual([["ContainerDied", "main", 3]]);
    expect(cache.get("u1")!.status!.containerStatuses[0]!.state).toBe("CONTAINER_EXITED");
    rt.remove(c);
    await relister.relist();
    expect(take()).toEqual([["ContainerRemoved", "main", null]]);
    expect(cache.get("u1")!.status!.containerStatuses).toEqual([]);
  });

  test("a running container that disappears died and was removed", async () => {
    const { rt, relister, take } = setup();
    const sb = rt.addSandbox({ uid: "u1", name: "p" });
    const c = rt.addContainer(sb, "app");
    await relister.relist();
    take();
    rt.remove(c);
    await relister.relist();
    expect(take()).toEqual([
      ["ContainerDied", "app", null],
      ["ContainerRemoved", "app", null],
    ]);
  });

  test("a restarted container: died, then a new container started", async () => {
    const { rt, relister, events, take } = setup();
    const sb = rt.addSandbox({ uid: "u1", name: "p" });
    const c1 = rt.addContainer(sb, "app");
    await relister.relist();
    take();
    rt.exit(c1, 1);
    const c2 = rt.addContainer(sb, "app");
    await relister.relist();
    expect(events.map((e) => e.containerId)).toEqual([c1, c2]);
    expect(take()).toEqual([
      ["ContainerDied", "app", 1],
      ["ContainerStarted", "app", null],
    ]);
  });

  test("a sandbox that stops: ContainerDied for the sandbox, the pod keeps its last IP", async () => {
    const { rt, relister, cache, events } = setup();
    const sb = rt.addSandbox({ uid: "u1", name: "p" });
    await relister.relist();
    const ip = cache.get("u1")!.status!.ips;
    events.length = 0;
    rt.stopSandbox(sb);
    await relister.relist();
    expect(events).toEqual([expect.objectContaining({ type: "ContainerDied", containerId: sb, sandbox: true, containerName: "POD" })]);
    expect(cache.get("u1")!.status!.ips).toEqual(ip);
  });

  test("a pod whose sandbox and containers are all gone leaves the cache", async () => {
    const { rt, relister, cache, take } = setup();
    const sb = rt.addSandbox({ uid: "u1", name: "p" });
    const c = rt.addContainer(sb, "app");
    await relister.relist();
    rt.remove(c);
    rt.remove(sb);
    take();
    await relister.relist();
    expect(take()).toEqual([
      ["ContainerDied", "app", null],
      ["ContainerRemoved", "app", null],
      ["ContainerDied", "POD", null],
      ["ContainerRemoved", "POD", null],
    ]);
    expect(cache.get("u1")).toBeUndefined();
    expect(cache.uids()).toEqual([]);
  });

  test("a container created and removed between two relists is never seen (the kubelet's documented limit)", async () => {
    const { rt, relister, cache, take } = setup();
    const sb = rt.addSandbox({ uid: "u1", name: "p" });
    await relister.relist();
    take();
    const c = rt.addContainer(sb, "flash");
    rt.exit(c, 0);
    rt.remove(c);
    await relister.relist();
    expect(take()).toEqual([]);
    expect(cache.get("u1")!.status!.containerStatuses).toEqual([]);
  });

  test("a created (not yet started) container changes the pod without a container event: PodSync", async () => {
    const { rt, relister, cache, take } = setup();
    const sb = rt.addSandbox({ uid: "u1", name: "p" });
    await relister.relist();
    take();
    const c = rt.addContainer(sb, "app", "CONTAINER_CREATED");
    await relister.relist();
    expect(take()).toEqual([["PodSync", "", null]]);
    expect(cache.get("u1")!.status!.containerStatuses.map((s) => s.id)).toEqual([c]);
    rt.start(c);
    await relister.relist();
    expect(take()).toEqual([["ContainerStarted", "app", null]]);
  });

  test("a failed list does not advance the relist time", async () => {
    const { rt, relister, clock, errors } = setup();
    await relister.relist();
    const t = relister.stats.lastRelistTime;
    await clock.advance(5000);
    rt.failNext.set("listContainers", [grpcStatusError("ListContainers", 14, "connection refused")]);
    expect(await relister.relist()).toBe(false);
    expect(relister.stats.lastRelistTime).toBe(t);
    expect(relister.stats.relistErrors).toBe(1);
    expect(errors).toEqual(["relist"]);
  });

  test("a failed status read is retried on the next relist, which sends PodSync", async () => {
    const { rt, relister, cache, take } = setup();
    const sb = rt.addSandbox({ uid: "u1", name: "p" });
    rt.addContainer(sb, "app");
    rt.failNext.set("containerStatus", [grpcStatusError("ContainerStatus", 4, "deadline exceeded")]);
    await relister.relist();
    expect(take()).toEqual([]);
    expect(cache.get("u1")!.error?.message).toContain("deadline exceeded");
    await relister.relist();
    // The record was not advanced: the container's start is reported now, with a good status.
    expect(take()).toEqual([
      ["ContainerStarted", "POD", null],
      ["ContainerStarted", "app", null],
    ]);
    expect(cache.get("u1")!.error).toBeUndefined();
    rt.failNext.set("podSandboxStatus", [grpcStatusError("PodSandboxStatus", 14, "unavailable")]);
    rt.exit([...rt.containers.keys()][0]!, 2);
    await relister.relist();
    expect(take()).toEqual([]);
    await relister.relist();
    expect(take()).toEqual([["ContainerDied", "app", 2]]);
  });

  test("the pods that changed are read STATUS_READS_AT_ONCE at a time; cache and events are written pod by pod, in order", async () => {
    const rt = new FakeRuntime();
    const pods = Array.from({ length: 25 }, (_, i) => `u${i}`);
    for (const uid of pods) rt.addContainer(rt.addSandbox({ uid, name: uid }), "app");
    // Every sandbox status read waits for a release; the test sees how many are open at once.
    const held: Array<() => void> = [];
    let open = 0;
    let most = 0;
    const runtime: RelistRuntime = {
      listPodSandbox: (f) => rt.listPodSandbox(f),
      listContainers: (f) => rt.listContainers(f),
      containerStatus: (id) => rt.containerStatus(id),
      podSandboxStatus: async (id) => {
        most = Math.max(most, ++open);
        await new Promise<void>((r) => held.push(r));
        open--;
        return rt.podSandboxStatus(id);
      },
    };
    const cache = new PodStatusCache();
    const events: PodLifecycleEvent[] = [];
    const relister = new Relister(runtime, cache, new FakeClock(), (e) => {
      // Written in order: when a pod's events go out, its entry is in the cache and every earlier pod's too.
      expect(pods.slice(0, pods.indexOf(e.pod.uid) + 1).every((uid) => cache.get(uid)?.status)).toBe(true);
      events.push(e);
    });
    let done = false;
    const relisted = relister.relist().then((ok) => ((done = true), ok));
    const turn = () => new Promise<void>((r) => setImmediate(r));
    await turn();
    expect(open).toBe(STATUS_READS_AT_ONCE);
    while (!done) {
      for (const release of held.splice(0)) release();
      await turn();
    }
    expect(await relisted).toBe(true);
    expect(most).toBe(STATUS_READS_AT_ONCE);
    expect(events.filter((e) => e.containerName === "app").map((e) => e.pod.uid)).toEqual(pods);
    expect(pods.every((uid) => cache.get(uid)?.status?.containerStatuses.length === 1)).toBe(true);
  });
});

describe("Relister: relisting one pod", () => {
  test("reads only that pod's sandboxes and containers, by its uid label", async () => {
    const { rt, relister, cache, take } = setup();
    const a = rt.addSandbox({ uid: "ua", name: "a" });
    const b = rt.addSandbox({ uid: "ub", name: "b" });
    const ca = rt.addContainer(a, "app");
    await relister.relist();
    take();
    rt.exit(ca, 7);
    rt.addContainer(b, "late"); // pod b changed too, but is not relisted
    rt.calls.length = 0;
    await relister.relistPod("ua");
    expect(take()).toEqual([["ContainerDied", "app", 7]]);
    expect(rt.calls.filter((c) => c.method.startsWith("list")).map((c) => c.arg)).toEqual([
      { labelSelector: { "io.kubernetes.pod.uid": "ua" } },
      { labelSelector: { "io.kubernetes.pod.uid": "ua" } },
    ]);
    // A new sandbox of the pod is found by its label, with no hint needed.
    const a2 = rt.addSandbox({ uid: "ua", name: "a" });
    await relister.relistPod("ua");
    expect(take()).toEqual([["ContainerStarted", "POD", null]]);
    expect(cache.get("ua")!.status!.sandboxStatuses.map((s) => s.id)).toEqual([a2, a]);
  });

  test("is skipped when a full relist began after it was requested", async () => {
    const { rt, relister, clock } = setup();
    rt.addSandbox({ uid: "u", name: "p" });
    const requestedAt = clock.now();
    await clock.advance(10);
    await relister.relist();
    rt.calls.length = 0;
    await relister.relistPod("u", [], requestedAt);
    expect(rt.calls).toEqual([]);
    expect(relister.stats.podRelists).toBe(0);
  });
});

describe("PodStatusCache", () => {
  test("an older read never replaces a newer one", () => {
    const cache = new PodStatusCache();
    const s = (name: string) => ({ uid: "u", name, namespace: "d", ips: [], sandboxStatuses: [], containerStatuses: [] });
    expect(cache.set("u", s("new"), undefined, 200)).toBe(true);
    expect(cache.set("u", s("old"), undefined, 100)).toBe(false);
    expect(cache.get("u")!.status!.name).toBe("new");
  });
  test("before the first relist nothing is current, not even for the zero time", async () => {
    const cache = new PodStatusCache();
    let got: number | undefined;
    void cache.getNewerThan("u", 0).then((e) => (got = e.timestamp));
    await Promise.resolve();
    expect(got).toBeUndefined();
    cache.updateTime(5);
    await Promise.resolve();
    expect(got).toBe(5);
  });

  test("getNewerThan waits for a read at or after the time asked, from the pod or a full relist", async () => {
    const cache = new PodStatusCache();
    const got: number[] = [];
    void cache.getNewerThan("u", 100).then((e) => got.push(e.timestamp));
    void cache.getNewerThan("v", 150).then((e) => got.push(e.timestamp));
    await Promise.resolve();
    cache.set("u", undefined, undefined, 50);
    cache.set("u", undefined, undefined, 120);
    await Promise.resolve();
    expect(got).toEqual([120]);
    cache.updateTime(160);
    await Promise.resolve();
    expect(got).toEqual([120, 160]);
  });
});

describe("Relister: cache freshness", () => {
  test("a pod relist that finds no change marks the entry current without another status read", async () => {
    const { rt, relister, cache, clock } = setup();
    const sb = rt.addSandbox({ uid: "u1", name: "p" });
    rt.addContainer(sb, "app");
    await relister.relist();
    const before = cache.get("u1")!.timestamp;
    await clock.advance(5000);
    rt.calls.length = 0;
    await relister.relistPod("u1");
    expect(cache.get("u1")!.timestamp).toBe(before + 5000);
    expect(rt.calls.map((c) => c.method)).toEqual(["listPodSandbox", "listContainers"]);
    // A waiter for "newer than the last sync" is released by it.
    const t = clock.now();
    await clock.advance(1);
    const waiting = cache.getNewerThan("u1", t);
    await relister.relistPod("u1");
    expect((await waiting).status!.name).toBe("p");
  });
  test("a pod relist that finds the pod removed answers a waiter for a read after the removal, without a full relist", async () => {
    // The evented PLEG relists everything only every 5 min: a pod started again under the same UID
    // waits for exactly this read, and must not wait for the next full relist.
    const { rt, relister, cache, clock } = setup();
    const sb = rt.addSandbox({ uid: "u1", name: "p" });
    const c = rt.addContainer(sb, "app");
    await relister.relist();
    await clock.advance(1000);
    rt.stopSandbox(sb);
    rt.exit(c, 0);
    rt.remove(c);
    rt.remove(sb);
    const removedAt = clock.now();
    let got: number | undefined;
    void cache.getNewerThan("u1", removedAt).then((e) => (got = e.timestamp));
    await relister.relistPod("u1");
    await Promise.resolve();
    expect(got).toBe(removedAt);
    expect(cache.get("u1")).toEqual({ status: undefined, error: undefined, timestamp: removedAt });
    // The next full relist says as much for every pod: the empty entry goes.
    await clock.advance(1000);
    await relister.relist();
    expect(cache.uids()).toEqual([]);
  });

  test("a pod the runtime does not have yet gets an empty current entry", async () => {
    const { relister, cache, clock } = setup();
    await clock.advance(10);
    await relister.relistPod("new-pod");
    expect(cache.get("new-pod")).toEqual({ status: undefined, error: undefined, timestamp: clock.now() });
  });
});

test("relistPod reads a hinted sandbox without the kubelet's labels by its id", async () => {
  const { rt, relister, take } = setup();
  const sb = rt.addSandbox({ uid: "foreign", name: "f" });
  // Made by another CRI client: no io.kubernetes.* labels on the sandbox.
  const listed = rt.listPodSandbox.bind(rt);
  rt.listPodSandbox = async (filter) => (filter?.labelSelector ? [] : listed(filter));
  await relister.relistPod("foreign", [sb]);
  expect(take()).toEqual([["ContainerStarted", "POD", null]]);
});
