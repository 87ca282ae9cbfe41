import { describe, expect, test } from "bun:test";
import type { Pod } from "kubernetes-types/core/v1";
import { PodWorkers, type PodSyncActions } from "../../src/agent/pod-workers";
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
  constructor(private readonly cache: PodStatusCache, private readonly clock: FakeClock) {}
  async syncPod(pod: Pod, _s: PodStatus | undefined): Promise<SyncResult> {
    this.log.push(`sync ${pod.metadata!.uid} ${pod.spec!.containers[0]!.image}`);
    await this.hold;
    return { actions: {} as SyncResult["actions"], waiting: new Map(), changed: true, errors: [] };
  }
  async killPod(pod: Pod | undefined): Promise<void> {
    this.log.push(`kill ${pod?.metadata?.uid}`);
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

function setup() {
  const clock = new FakeClock();
  const cache = new PodStatusCache();
  // The PLEG listed the runtime once, just before the test (nothing is current before that).
  cache.updateTime(clock.now() - 1);
  const actions = new FakeActions(cache, clock);
  const workers = new PodWorkers(actions, cache, clock, createLogger("text", -1));
  return { clock, cache, actions, workers };
}

describe("PodWorkers", () => {
  test("updates to a busy pod are coalesced into one more sync with the newest spec", async () => {
    const { actions, workers } = setup();
    let release!: () => void;
    actions.hold = new Promise((r) => (release = r));
    workers.sync(staticPod("u1"));
    await Promise.resolve();
    for (const image of ["v2", "v3", "v4"]) {
      const p = staticPod("u1");
      p.spec!.containers[0]!.image = image;
      workers.sync(p);
    }
    actions.hold = undefined;
    release();
    await workers.idle();
    expect(actions.log).toEqual(["sync u1 busybox", "sync u1 v4"]);
  });

  test("a termination request during a sync is not lost, and removal forgets the pod", async () => {
    const { actions, workers } = setup();
    let release!: () => void;
    actions.hold = new Promise((r) => (release = r));
    workers.sync(staticPod("u1"));
    await Promise.resolve();
    workers.terminate("u1", { remove: true });
    actions.hold = undefined;
    release();
    await workers.idle();
    expect(actions.log).toEqual(["sync u1 busybox", "kill u1", "remove u1"]);
    expect(workers.has("u1")).toBe(false);
  });

  test("an edited static pod (new UID, same name) starts only after the old one terminated", async () => {
    const { actions, workers } = setup();
    workers.sync(staticPod("old"));
    await workers.idle();
    let release!: () => void;
    actions.hold = new Promise((r) => (release = r));
    workers.terminate("old", { remove: true });
    workers.sync(staticPod("new"));
    await Promise.resolve();
    expect(actions.log).toEqual(["sync old busybox", "kill old"]);
    actions.hold = undefined;
    release();
    await workers.idle();
    expect(actions.log).toEqual(["sync old busybox", "kill old", "remove old", "sync new busybox"]);
    expect(workers.get("new")!.phase).toBe("syncing");
  });

  test("a sync waits for a cache entry newer than the previous sync", async () => {
    const { actions, workers, cache, clock } = setup();
    actions.relistPod = async () => {}; // the relist after the sync does not happen
    workers.sync(staticPod("u1"));
    await workers.idle();
    await clock.advance(100);
    workers.syncUid("u1");
    await Promise.resolve();
    await Promise.resolve();
    expect(actions.log).toEqual(["sync u1 busybox"]);
    cache.updateTime(clock.now()); // a full relist
    await workers.idle();
    expect(actions.log).toEqual(["sync u1 busybox", "sync u1 busybox"]);
  });

  test("a failing sync is retried after the kubelet's 10 s pod-sync backoff", async () => {
    const { actions, workers, clock } = setup();
    actions.syncPod = async () => {
      throw new Error("runtime went away");
    };
    workers.sync(staticPod("u1"));
    await workers.idle();
    expect(workers.get("u1")!.lastError).toBe("runtime went away");
    expect(workers.get("u1")!.retryAt).toBe(clock.now() + 10_000);
  });
});
