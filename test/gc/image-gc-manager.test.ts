import { describe, expect, test } from "bun:test";
import { ALL_LEVELS, linesLog } from "../fakes/recording-log";
import {
  CriImageFsStats,
  IMAGE_GC_PERIOD_MS,
  ImageGCManager,
  imageGCCandidates,
  type GCEvent,
  type ImageGCPolicy,
  type ImageRecord,
} from "../../src/gc/image-gc-manager";
import { FakeClock } from "../../src/util/clock";
import { FakeImageRuntime } from "../fakes/image-runtime";

const MIN = 60_000;
const SANDBOX = "localhost/nodeagent/pause:1.0";

function setup(policy: Partial<ImageGCPolicy> = {}) {
  const clock = new FakeClock();
  const rt = new FakeImageRuntime();
  const events: GCEvent[] = [];
  const { log, lines } = linesLog(ALL_LEVELS);
  const gc = new ImageGCManager({
    runtime: rt,
    fsStats: rt,
    clock,
    log,
    sandboxImage: SANDBOX,
    policy: { highThresholdPercent: 40, lowThresholdPercent: 30, minAgeMs: 2 * MIN, ...policy },
    onEvent: (e) => events.push(e),
  });
  return { clock, rt, gc, events, lines };
}

describe("image GC: when it collects and how much", () => {
  test("below the high threshold nothing is removed; at it, enough to reach the low threshold, least recently used first", async () => {
    const { rt, gc, clock } = setup();
    // 100 000 bytes, 50 000 available: 50% used. High 60: nothing to do.
    const a = rt.addImage("a", 15_000);
    const b = rt.addImage("b", 15_000);
    const c = rt.addImage("c", 15_000);
    await gc.detectOnce(); // the first detection: "long ago"
    const low = setup({ highThresholdPercent: 60, lowThresholdPercent: 50 });
    low.rt.addImage("a", 15_000);
    await low.gc.detectOnce();
    await low.gc.garbageCollect();
    expect(low.rt.removed).toEqual([]);

    // b used by a container at t=1 min, then that container gone; a used later (t=2 min); c never.
    await clock.advance(MIN);
    rt.useImage(b, "CONTAINER_EXITED");
    await gc.detectOnce();
    rt.containers = [];
    await clock.advance(MIN);
    rt.useImage(a);
    await gc.detectOnce();
    rt.containers = [];
    await clock.advance(MIN);
    // High 40 ≤ 50% used: free 100 000 × 70% − 50 000 = 20 000 bytes: c (never used), then b; a stays.
    await gc.garbageCollect();
    expect(rt.removed).toEqual([c, b]);
    expect(rt.images.has(a)).toBe(true);
  });

  test("equal last use: the image first detected earlier goes first", () => {
    const rec = (firstDetected: number, lastUsed = 0): ImageRecord => ({ firstDetected, lastUsed, size: 1, pinned: false });
    const records = new Map([
      ["late", rec(5 * MIN)],
      ["early", rec(3 * MIN)],
      ["used", rec(0, 4 * MIN)],
      ["first", rec(0)],
    ]);
    expect(imageGCCandidates(records, new Set(), 10 * MIN, 0).map((c) => c.id)).toEqual(["first", "early", "late", "used"]);
  });

  test("never an image a container uses (running or exited), the sandbox image, or a pinned one", async () => {
    const { rt, gc } = setup();
    const running = rt.addImage("running", 30_000);
    const exited = rt.addImage("exited", 30_000);
    const pause = rt.addImage(SANDBOX, 30_000);
    const pinned = rt.addImage("pinned", 30_000, { pinned: true });
    const unused = rt.addImage("unused", 1_000);
    rt.useImage(running);
    rt.useImage(exited, "CONTAINER_EXITED");
    await gc.detectOnce();
    await expect(gc.garbageCollect()).rejects.toThrow("failed to garbage collect required amount of images. Wanted to free 20000 bytes, but freed 1000 bytes");
    expect(rt.removed).toEqual([unused]);
    expect([...rt.images.keys()].sort()).toEqual([running, exited, pause, pinned].sort());
  });

  test("an image first seen less than imageMinimumGCAge ago stays; one already there at the first detection is old enough", async () => {
    const { rt, gc, clock } = setup({ minAgeMs: 2 * MIN });
    const old = rt.addImage("old", 10_000);
    await gc.detectOnce();
    await clock.advance(MIN);
    const pulled = rt.addImage("pulled", 10_000);
    await gc.detectOnce(); // first seen at 1 min
    await clock.advance(MIN); // 2 min: pulled is 1 min old
    await gc.garbageCollect().catch(() => {});
    expect(rt.removed).toEqual([old]);
    await clock.advance(MIN); // 3 min: 2 min old
    await gc.garbageCollect();
    expect(rt.removed).toEqual([old, pulled]);
  });

  test("an image the collection itself sees first is dated then (not long ago)", async () => {
    const { rt, gc, clock } = setup({ minAgeMs: MIN });
    await gc.detectOnce();
    rt.addImage("new", 30_000);
    await expect(gc.garbageCollect()).rejects.toThrow("but freed 0 bytes");
    await clock.advance(MIN);
    await gc.garbageCollect();
    expect(rt.removed).toHaveLength(1);
  });

  test("a failed removal is reported and the next image tried", async () => {
    const { rt, gc, lines } = setup();
    const stuck = rt.addImage("stuck", 30_000);
    const other = rt.addImage("other", 30_000);
    rt.refuse.add(stuck);
    await gc.detectOnce();
    await expect(gc.garbageCollect()).rejects.toThrow(
      /wanted to free 20000 bytes, but freed 30000 bytes space with errors in image deletion: .*stuck is in use/,
    );
    expect(rt.removed).toEqual([other]);
    // The usage, thresholds and amount as numbers; each image by its ID.
    expect(lines.filter((l) => l.includes("image GC:"))).toEqual([
      expect.stringMatching(
        /^info image GC: disk usage on the image filesystem is at or over the high threshold; freeing down to the low threshold usagePercent=\d+ highThresholdPercent=\d+ bytesToFree=20000 lowThresholdPercent=\d+$/,
      ),
      expect.stringMatching(new RegExp(`^warn image GC: removing an image failed image=${stuck} err=.*stuck is in use`)),
      `info image GC: removed image image=${other} bytes=30000`,
    ]);
  });

  test("capacity 0 is InvalidDiskCapacity; a second failure in a row is ImageGCFailed; a success resets", async () => {
    const { rt, gc, events } = setup();
    rt.capacityBytes = 0;
    await gc.collectOnce();
    expect(events.map((e) => e.reason)).toEqual(["InvalidDiskCapacity"]);
    expect(events[0]!.message).toBe("invalid capacity 0 on image filesystem");
    await gc.collectOnce();
    expect(events.map((e) => e.reason)).toEqual(["InvalidDiskCapacity", "InvalidDiskCapacity", "ImageGCFailed"]);
    rt.capacityBytes = 100_000;
    rt.availableBytes = 90_000;
    await gc.collectOnce();
    rt.capacityBytes = 0;
    await gc.collectOnce();
    expect(events.filter((e) => e.reason === "ImageGCFailed")).toHaveLength(1);
  });

  test("too little freed is FreeDiskSpaceFailed with the kubelet's message", async () => {
    const { rt, gc, events } = setup();
    rt.addImage("small", 5_000);
    await gc.detectOnce();
    await gc.collectOnce();
    expect(events[0]).toEqual({
      reason: "FreeDiskSpaceFailed",
      message: "failed to garbage collect required amount of images. Wanted to free 20000 bytes, but freed 5000 bytes",
    });
  });

  test("deleteUnusedImages (the eviction manager's reclaim) removes every image that may go, whatever the thresholds", async () => {
    const { rt, gc } = setup({ highThresholdPercent: 99, lowThresholdPercent: 98 });
    const a = rt.addImage("a", 1);
    const b = rt.addImage("b", 1);
    const used = rt.addImage("used", 1);
    rt.useImage(used);
    await gc.detectOnce();
    await gc.garbageCollect();
    expect(rt.removed).toEqual([]);
    expect(await gc.deleteUnusedImages()).toBe(2);
    expect(rt.removed.sort()).toEqual([a, b].sort());
  });
});

describe("image GC: the loop", () => {
  test("detects and collects at once, then every period (5 min by default)", async () => {
    const { rt, gc, clock } = setup({ minAgeMs: 0 });
    expect(gc.periodMs).toBe(IMAGE_GC_PERIOD_MS);
    rt.addImage("a", 30_000);
    const ac = new AbortController();
    const done = gc.run(ac.signal);
    await clock.advance(0);
    expect(rt.removed).toHaveLength(1);
    rt.availableBytes = 50_000;
    rt.addImage("b", 30_000);
    await clock.advance(IMAGE_GC_PERIOD_MS - 1);
    expect(rt.removed).toHaveLength(1);
    await clock.advance(1);
    expect(rt.removed).toHaveLength(2);
    ac.abort();
    await done;
  });

  test("high threshold 100 turns it off", async () => {
    const { rt, gc } = setup({ highThresholdPercent: 100, lowThresholdPercent: 0, minAgeMs: 0 });
    rt.availableBytes = 0;
    rt.addImage("a", 1);
    await gc.run(new AbortController().signal);
    expect(rt.removed).toEqual([]);
  });
});

test("the image filesystem's size: statfs of the mountpoint ImageFsInfo names", async () => {
  const asked: string[] = [];
  const stats = new CriImageFsStats(
    {
      imageFsInfo: async () =>
        ({
          imageFilesystems: [{ fsId: { mountpoint: "/var/lib/containerd/snapshots" }, usedBytes: { value: 5 }, inodesUsed: { value: 1 }, timestamp: 0 }],
          containerFilesystems: [],
        }) as never,
    },
    { read: () => undefined, statfs: (p) => (asked.push(p), { blocks: 100, bavail: 25, bfree: 30, bsize: 4096, files: 10, ffree: 5 }) },
  );
  expect(await stats.imageFsStats()).toEqual({ capacityBytes: 409_600, availableBytes: 102_400 });
  expect(asked).toEqual(["/var/lib/containerd/snapshots"]);
});
