import { describe, expect, test } from "bun:test";
import type { Pod } from "kubernetes-types/core/v1";
import { PodWorkerPool, SYNC_ERROR_BACKOFF_MS, type PodSyncActions } from "../../src/agent/pod-workers";
import type { SyncResult } from "../../src/agent/pod-sync";
import { PodStatusCache } from "../../src/pleg/cache";
import type { PodStatus } from "../../src/pleg/types";
import { FakeClock } from "../../src/util/clock";
import { createLogger } from "../../src/util/log";

function staticPod(uid: string, name = "web"): Pod {
  return { metadata: { name, namespace: "default", uid }, spec: { containers: [{ name: "app", image: "busybox" }] } };
}

/** Records what the workers asked for; a sync can be held open to test coalescing. */
class FakeActions implements PodSyncActions {
  log: string[] = [];
  hold: Promise<void> | undefined;
  constructor(
    private readonly cache: PodStatusCache,
    private readonly clock: FakeClock,
  ) {}
  async syncPod(pod: Pod, _s: PodStatus | undefined): Promise<SyncResult> {
    this.log.push(`sync ${pod.metadata!.uid} ${pod.spec!.containers[0]!.image}`);
    await this.hold;
    return { actions: {} as SyncResult["actions"], waiting: new Map(), changed: true, errors: [] };
  }
  /** The grace period override of each kill, in order. */
  graces: (number | undefined)[] = [];
  async killPod(pod: Pod | undefined, _s?: PodStatus, grace?: number): Promise<void> {
    this.log.push(`kill ${pod?.metadata?.uid}`);
    this.graces.push(grace);
    await this.hold;
  }
  async removePod(uid: string): Promise<void> {
    this.log.push(`remove ${uid}`);
  }
  async relistPod(uid: string): Promise<void> {
    // As the real relist: the pod's entry becomes current as of now.
    this.cache.touch(uid, this.clock.now());
  }
}

function setup(random = () => 0) {
  const clock = new FakeClock();
  const cache = new PodStatusCache();
  // The PLEG listed the runtime once, just before the test (nothing is current before that).
  cache.updateTime(clock.now() - 1);
  const actions = new FakeActions(cache, clock);
  const workers = new PodWorkerPool({ actions, cache, clock, log: createLogger("text", -1), random, resyncIntervalMs: 60_000 });
  const create = (pod: Pod) => workers.updatePod({ type: "create", pod });
  const kill = (pod: Pod, remove = true) => workers.updatePod({ type: "kill", pod, remove });
  return { clock, cache, actions, workers, create, kill };
}

describe("PodWorkers", () => {
  test("the status is published before each sync and each termination acts, then after it (SyncPod, SyncTerminatingPod)", async () => {
    const clock = new FakeClock();
    const cache = new PodStatusCache();
    cache.updateTime(clock.now() - 1);
    const actions = new FakeActions(cache, clock);
    const workers = new PodWorkerPool({
      actions,
      cache,
      clock,
      log: createLogger("text", -1),
      random: () => 0,
      resyncIntervalMs: 60_000,
      beforeSync: (s) => actions.log.push(`status before ${s.uid} (${s.phase})`),
      onSynced: (s) => actions.log.push(`status after ${s.uid} (${s.phase})`),
    });
    workers.updatePod({ type: "create", pod: staticPod("u1") });
    await workers.idle();
    workers.updatePod({ type: "kill", pod: staticPod("u1"), remove: false });
    await workers.idle();
    expect(actions.log).toEqual([
      "status before u1 (syncing)",
      "sync u1 busybox",
      "status after u1 (syncing)",
      "status before u1 (terminating)",
      "kill u1",
      "status after u1 (terminated)",
    ]);
  });

  test("updates to a busy pod are coalesced into one more sync with the newest spec", async () => {
    const { actions, workers, create } = setup();
    let release!: () => void;
    actions.hold = new Promise((r) => (release = r));
    create(staticPod("u1"));
    await Promise.resolve();
    for (const image of ["v2", "v3", "v4"]) {
      const p = staticPod("u1");
      p.spec!.containers[0]!.image = image;
      workers.updatePod({ type: "update", pod: p });
    }
    actions.hold = undefined;
    release();
    await workers.idle();
    expect(actions.log).toEqual(["sync u1 busybox", "sync u1 v4"]);
  });

  test("a termination request during a sync is not lost, and removal forgets the pod", async () => {
    const { actions, workers, create, kill } = setup();
    let release!: () => void;
    actions.hold = new Promise((r) => (release = r));
    create(staticPod("u1"));
    await Promise.resolve();
    kill(staticPod("u1"));
    actions.hold = undefined;
    release();
    await workers.idle();
    expect(actions.log).toEqual(["sync u1 busybox", "kill u1", "remove u1"]);
    expect(workers.get("u1")).toBeUndefined();
  });

  test("an edited static pod (new UID, same name) starts only after the old one terminated", async () => {
    const { actions, workers, create, kill } = setup();
    create(staticPod("old"));
    await workers.idle();
    let release!: () => void;
    actions.hold = new Promise((r) => (release = r));
    kill(staticPod("old"));
    create(staticPod("new"));
    await Promise.resolve();
    expect(actions.log).toEqual(["sync old busybox", "kill old"]);
    actions.hold = undefined;
    release();
    await workers.idle();
    expect(actions.log).toEqual(["sync old busybox", "kill old", "remove old", "sync new busybox"]);
    expect(workers.get("new")!.phase).toBe("syncing");
  });

  test("a sync waits for a cache entry newer than the previous sync", async () => {
    const { actions, workers, cache, clock, create } = setup();
    actions.relistPod = async () => {}; // the relist after the sync does not happen
    create(staticPod("u1"));
    await workers.idle();
    await clock.advance(100);
    workers.syncPod("u1");
    await Promise.resolve();
    await Promise.resolve();
    expect(actions.log).toEqual(["sync u1 busybox"]);
    cache.updateTime(clock.now()); // a full relist
    await workers.idle();
    expect(actions.log).toEqual(["sync u1 busybox", "sync u1 busybox"]);
  });

  test("a failing sync is retried after the kubelet's 10 s pod-sync backoff", async () => {
    const { actions, workers, clock, create } = setup();
    actions.syncPod = async () => {
      throw new Error("runtime went away");
    };
    create(staticPod("u1"));
    await workers.idle();
    expect(workers.get("u1")!.lastError).toBe("runtime went away");
    expect(workers.get("u1")!.dueAt).toBe(clock.now() + SYNC_ERROR_BACKOFF_MS);
    await clock.advance(SYNC_ERROR_BACKOFF_MS - 1);
    expect(workers.getDuePods()).toEqual([]);
    await clock.advance(1);
    expect(workers.getDuePods()).toEqual(["u1"]);
    // Taken off the queue: it is due again only after the next step.
    expect(workers.getDuePods()).toEqual([]);
  });

  test("the periodic resync is due after syncFrequency plus the kubelet's jitter, drawn from the injected source", async () => {
    const { workers, clock, create } = setup(() => 0.5);
    create(staticPod("u1"));
    await workers.idle();
    // 60 s × (1 + 0.5 × 0.5) = 75 s.
    expect(workers.get("u1")!.dueAt).toBe(clock.now() + 75_000);
    await clock.advance(74_999);
    expect(workers.getDuePods()).toEqual([]);
    await clock.advance(1);
    expect(workers.getDuePods()).toEqual(["u1"]);
  });

  test("a sync's own retry time (a backoff ending) is when the pod is due", async () => {
    const { actions, workers, clock, create } = setup();
    const at = clock.now() + 12_345;
    actions.syncPod = async () => ({ actions: {} as SyncResult["actions"], waiting: new Map(), changed: false, errors: [], retryAt: at });
    create(staticPod("u1"));
    await workers.idle();
    expect(workers.get("u1")!.dueAt).toBe(at);
  });

  describe("a create for a UID that is still terminating (the kubelet's restartRequested)", () => {
    test("X→Y→X within the old instance's grace period: X runs again, once, after its termination", async () => {
      const { actions, workers, create, kill } = setup();
      create(staticPod("x"));
      await workers.idle();
      let release!: () => void;
      actions.hold = new Promise((r) => (release = r));
      // X→Y: X is removed (terminating, held in its kill), Y waits for it by name.
      kill(staticPod("x"));
      create(staticPod("y"));
      await Promise.resolve();
      // Y→X: Y is removed before it ever ran, X comes back while it still terminates.
      kill(staticPod("y"));
      create(staticPod("x"));
      expect(workers.get("x")!.restartRequested).toBeDefined();
      actions.hold = undefined;
      release();
      await workers.idle();
      // The old instance is stopped and removed before the new one's first sync (a later sync of it
      // is a coalesced extra, harmless: a sync only moves the runtime toward the spec).
      const ofX = actions.log.filter((l) => l.endsWith(" x") || l.startsWith("sync x"));
      expect(ofX.slice(0, 4)).toEqual(["sync x busybox", "kill x", "remove x", "sync x busybox"]);
      expect(ofX.slice(4).every((l) => l === "sync x busybox")).toBe(true);
      expect(actions.log).toContain("remove y");
      expect(workers.get("x")).toMatchObject({ phase: "syncing", removed: false });
      expect(workers.get("x")!.syncs).toBeGreaterThanOrEqual(1);
      expect(workers.get("x")!.restartRequested).toBeUndefined();
      expect(workers.get("y")).toBeUndefined();
      expect(actions.log.filter((l) => l === "sync y busybox")).toEqual([]);
    });

    test("a kill after the create cancels the restart", async () => {
      const { actions, workers, create, kill } = setup();
      create(staticPod("x"));
      await workers.idle();
      let release!: () => void;
      actions.hold = new Promise((r) => (release = r));
      kill(staticPod("x"));
      await Promise.resolve();
      create(staticPod("x"));
      kill(staticPod("x"));
      actions.hold = undefined;
      release();
      await workers.idle();
      expect(actions.log).toEqual(["sync x busybox", "kill x", "remove x"]);
      expect(workers.get("x")).toBeUndefined();
    });

    test("an update after the create is the spec that starts", async () => {
      const { actions, workers, create, kill } = setup();
      create(staticPod("x"));
      await workers.idle();
      let release!: () => void;
      actions.hold = new Promise((r) => (release = r));
      kill(staticPod("x"));
      await Promise.resolve();
      create(staticPod("x"));
      const v2 = staticPod("x");
      v2.spec!.containers[0]!.image = "v2";
      workers.updatePod({ type: "update", pod: v2 });
      actions.hold = undefined;
      release();
      await workers.idle();
      expect(actions.log.at(-1)).toBe("sync x v2");
    });
  });

  test("reject: the pod is terminated and Failed with the reason, and never synced", async () => {
    const { actions, workers, kill } = setup();
    workers.reject(staticPod("u1"), { reason: "OutOfpods", message: "no room" });
    await workers.idle();
    expect(workers.get("u1")).toMatchObject({ phase: "terminated", failed: { reason: "OutOfpods", message: "no room" } });
    expect(actions.log).toEqual([]);
    kill(staticPod("u1"));
    await workers.idle();
    expect(workers.get("u1")).toBeUndefined();
  });

  test("a pod that arrives being deleted, or finished, only terminates", async () => {
    const { actions, workers, create } = setup();
    create({ ...staticPod("d"), metadata: { ...staticPod("d").metadata, deletionTimestamp: "2026-01-01T00:00:00Z" } });
    create({ ...staticPod("s", "done"), status: { phase: "Succeeded" } });
    await workers.idle();
    expect(actions.log.sort()).toEqual(["kill d", "kill s"]);
    expect(workers.get("d")!.phase).toBe("terminated");
  });

  describe("evictPod (the node stops a running pod: the kubelet's killPodNow with a podStatusFunc)", () => {
    const evicted = { reason: "Evicted", message: 'Usage of EmptyDir volume "scratch" exceeds the limit "1Mi". ' };

    test("a running pod is killed with the eviction's grace period and stays terminated, Failed with its reason, never synced again", async () => {
      const { actions, workers, create } = setup();
      const p = staticPod("u1");
      p.spec!.terminationGracePeriodSeconds = 30;
      create(p);
      await workers.idle();
      expect(workers.evictPod("u1", { status: evicted, gracePeriodSeconds: 0 })).toBe(true);
      await workers.idle();
      expect(actions.log).toEqual(["sync u1 busybox", "kill u1"]);
      expect(actions.graces).toEqual([0]);
      const s = workers.get("u1")!;
      expect(s.phase).toBe("terminated");
      expect(s.failed).toEqual(evicted);
      // Its source still lists it: updates, syncs and PLEG events change nothing.
      workers.updatePod({ type: "update", pod: staticPod("u1") });
      workers.syncPod("u1");
      await workers.idle();
      expect(actions.log).toEqual(["sync u1 busybox", "kill u1"]);
      expect(workers.get("u1")!.failed).toEqual(evicted);
      // Until its source deletes it: then it is removed and forgotten.
      workers.updatePod({ type: "kill", pod: staticPod("u1"), remove: true });
      await workers.idle();
      expect(actions.log).toEqual(["sync u1 busybox", "kill u1", "remove u1"]);
      expect(workers.get("u1")).toBeUndefined();
    });

    test("an eviction during a sync keeps its status: the sync's result does not overwrite it", async () => {
      const { actions, workers, create } = setup();
      let release!: () => void;
      actions.hold = new Promise((r) => (release = r));
      create(staticPod("u1"));
      await Promise.resolve();
      expect(workers.evictPod("u1", { status: evicted, gracePeriodSeconds: 0 })).toBe(true);
      actions.hold = undefined;
      release();
      await workers.idle();
      expect(actions.log).toEqual(["sync u1 busybox", "kill u1"]);
      expect(workers.get("u1")!.failed).toEqual(evicted);
      expect(workers.get("u1")!.phase).toBe("terminated");
    });

    test("a pod being deleted, terminated or unknown is not evicted (again)", async () => {
      const { actions, workers, create, kill } = setup();
      create(staticPod("u1"));
      await workers.idle();
      let release!: () => void;
      actions.hold = new Promise((r) => (release = r));
      kill(staticPod("u1"), false);
      await Promise.resolve();
      expect(workers.evictPod("u1", { status: evicted, gracePeriodSeconds: 0 })).toBe(false);
      actions.hold = undefined;
      release();
      await workers.idle();
      expect(workers.get("u1")!.failed).toBeUndefined();
      create(staticPod("u2"));
      await workers.idle();
      expect(workers.evictPod("u2", { status: evicted, gracePeriodSeconds: 0 })).toBe(true);
      expect(workers.evictPod("u2", { status: { reason: "Evicted", message: "again" }, gracePeriodSeconds: 0 })).toBe(false);
      await workers.idle();
      expect(workers.evictPod("u2", { status: evicted, gracePeriodSeconds: 0 })).toBe(false);
      expect(workers.get("u2")!.failed).toEqual(evicted);
      expect(workers.evictPod("nobody", { status: evicted, gracePeriodSeconds: 0 })).toBe(false);
      expect(actions.log.filter((l) => l.startsWith("kill"))).toEqual(["kill u1", "kill u2"]);
    });

    test("a deletion's grace period applies when it is shorter than the eviction's, never a longer one", async () => {
      const { actions, workers, create } = setup();
      create(staticPod("u1"));
      create(staticPod("u2", "db"));
      await workers.idle();
      let release!: () => void;
      actions.hold = new Promise((r) => (release = r));
      workers.evictPod("u1", { status: evicted, gracePeriodSeconds: 5 });
      await Promise.resolve();
      actions.hold = undefined;
      release();
      await workers.idle();
      const deleting: Pod = {
        ...staticPod("u2", "db"),
        metadata: { ...staticPod("u2", "db").metadata, deletionTimestamp: "2026-01-01T00:00:00Z", deletionGracePeriodSeconds: 30 },
      };
      workers.evictPod("u2", { status: evicted, gracePeriodSeconds: 5 });
      workers.updatePod({ type: "kill", pod: deleting });
      await workers.idle();
      create(staticPod("u3", "cache"));
      await workers.idle();
      const quick: Pod = {
        ...staticPod("u3", "cache"),
        metadata: { ...staticPod("u3", "cache").metadata, deletionTimestamp: "2026-01-01T00:00:00Z", deletionGracePeriodSeconds: 1 },
      };
      workers.evictPod("u3", { status: evicted, gracePeriodSeconds: 5 });
      workers.updatePod({ type: "kill", pod: quick });
      await workers.idle();
      expect(actions.graces).toEqual([5, 5, 1]);
    });
  });
});
