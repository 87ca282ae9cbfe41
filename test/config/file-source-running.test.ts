// FileSource running: the watch, the rescans, the path going and coming back, watch failures.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdir, rm, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { FileSourceOptions, WatchFn } from "../../src/config";
import type { SourceReport } from "../../src/config/pod-config";
import { FakeClock } from "../../src/util/clock";
import { manifest } from "./fake-loader";
import { cleanUp, tempDir, fileSource, names, uids, messages, waitFor, saveByRename } from "./file-source-helpers";

afterEach(cleanUp);

describe("FileSource, running", () => {
  async function started(dir: string, opts: Partial<FileSourceOptions> & { settling?: boolean } = {}) {
    const { src, clock } = fileSource(dir, opts);
    const snaps: SourceReport[] = [];
    src.start((s) => snaps.push(s));
    await waitFor(() => snaps.length === 1 && !src.busy, "the first snapshot");
    return { src, clock, snaps };
  }

  test("watch events trigger one debounced rescan; unchanged rescans emit nothing", async () => {
    const dir = await tempDir();
    await writeFile(join(dir, "a.json"), manifest("a"));
    const { src, clock, snaps } = await started(dir, { debounceMs: 100 });
    expect(names(snaps[0]!)).toEqual(["a-node1"]);
    await waitFor(() => src.watching && !src.busy, "the watch");

    const events = src.stats.watchEvents;
    await writeFile(join(dir, "b.json"), manifest("b"));
    await writeFile(join(dir, "c.json"), manifest("c"));
    await writeFile(join(dir, ".d.json"), manifest("d"));
    await waitFor(() => src.stats.watchEvents >= events + 2, "watch events");
    expect(snaps).toHaveLength(1);
    await clock.advance(99);
    expect(snaps).toHaveLength(1);
    await clock.advance(1);
    await waitFor(() => snaps.length === 2, "the rescan");
    expect(names(snaps[1]!)).toEqual(["a-node1", "b-node1", "c-node1"]);

    // The periodic rescan stats everything again, reads nothing unchanged and sends nothing new.
    const scans = src.stats.scans;
    const reads = src.stats.reads;
    await clock.advance(20_000);
    await waitFor(() => src.stats.scans > scans && !src.busy, "the periodic rescan");
    await clock.advance(20_000);
    await waitFor(() => src.stats.scans > scans + 1 && !src.busy, "the second periodic rescan");
    expect(snaps).toHaveLength(2);
    expect(src.stats.reads).toBe(reads);

    // A same-size rewrite moves ctime: the file is read again and the edit seen.
    await writeFile(join(dir, "c.json"), manifest("e"));
    await clock.advance(20_000);
    await waitFor(() => snaps.length === 3, "the edit");
    expect(src.stats.reads).toBe(reads + 1);
    expect(names(snaps[2]!)).toEqual(["a-node1", "b-node1", "e-node1"]);
  });

  test("without watch events, the rescan every 20 s still sees changes", async () => {
    const dir = await tempDir();
    const watch: WatchFn = () => ({ close() {}, on() {} });
    const { src, clock, snaps } = await started(dir, { watch });
    expect(snaps[0]).toEqual({ source: "file", pods: [], errors: [], complete: true });
    await writeFile(join(dir, "a.json"), manifest("a"));
    const scans = src.stats.scans;
    await clock.advance(19_999);
    expect(src.stats.scans).toBe(scans);
    await clock.advance(1);
    await waitFor(() => snaps.length === 2, "the periodic rescan");
    expect(names(snaps[1]!)).toEqual(["a-node1"]);
  });

  test("a manifest renamed into place is acted on at once through the watch; one written in place waits for the window", async () => {
    const dir = await tempDir();
    const { src, clock, snaps } = await started(dir, { settling: true });
    await waitFor(() => src.watching && !src.busy, "the watch");
    // tmp + rename in the same instant: ctime equals mtime, only the watch can tell it was a rename.
    const events = src.stats.watchEvents;
    await saveByRename(join(dir, "a.json"), manifest("a"));
    await waitFor(() => src.stats.watchEvents > events, "the rename event");
    await clock.advance(2);
    await waitFor(() => snaps.length === 2, "the renamed manifest");
    expect(names(snaps[1]!)).toEqual(["a-node1"]);
    await waitFor(() => !src.busy, "the scan to end");

    // Written in place (create, then write): the watch saw a change, so it settles first.
    const events2 = src.stats.watchEvents;
    const scans = src.stats.scans;
    await writeFile(join(dir, "b.json"), manifest("b"));
    await waitFor(() => src.stats.watchEvents >= events2 + 2, "the create and write events");
    await clock.advance(2);
    await waitFor(() => src.stats.scans > scans && !src.busy, "the rescan");
    expect(snaps).toHaveLength(2);
    await clock.advance(1_000);
    await waitFor(() => snaps.length === 3, "the settled manifest");
    expect(names(snaps[2]!)).toEqual(["a-node1", "b-node1"]);
  });

  test("many manifests renamed into place at once: four are read per scan, each scan's pods handed on at once, none waiting for the window", async () => {
    const dir = await tempDir();
    await saveByRename(join(dir, "a.json"), manifest("a"), { ctimeAfterMtime: true });
    const { src, clock, snaps } = await started(dir, { settling: true });
    await waitFor(() => src.watching && !src.busy, "the watch");
    const events = src.stats.watchEvents;
    const files = Array.from({ length: 10 }, (_, i) => `m${String(i).padStart(2, "0")}`);
    for (const f of files) await saveByRename(join(dir, `${f}.json`), manifest(f));
    await waitFor(() => src.stats.watchEvents >= events + files.length, "the rename events");
    // Only the debounce is waited for: renamed into place, nothing needs the settle window.
    await clock.advance(2);
    await waitFor(() => snaps.length >= 2 && names(snaps.at(-1)!).length === 11 && !src.busy, "every manifest");
    // a, then four more with each scan (a's file is known: it is not read again).
    expect(snaps.map((s) => names(s).length)).toEqual([1, 5, 9, 11]);
    for (const [i, s] of snaps.entries())
      expect(s.complete).toBe(true), expect(names(snaps[Math.max(0, i - 1)]!).every((n) => names(s).includes(n))).toBe(true);
    expect(names(snaps.at(-1)!)).toEqual(["a-node1", ...files.map((f) => `${f}-node1`)]);
  });

  test("the first read of the path reads every manifest in one scan (its set is the complete one)", async () => {
    const dir = await tempDir();
    for (let i = 0; i < 10; i++) await writeFile(join(dir, `m${i}.json`), manifest(`m${i}`));
    const { src, snaps } = await started(dir);
    expect(names(snaps[0]!)).toHaveLength(10);
    expect(snaps[0]!.complete).toBe(true);
    await waitFor(() => !src.busy, "the scan after the watch started");
    expect(snaps).toHaveLength(1);
  });

  test("through the watch, a settled bad edit is reported and keeps the pod", async () => {
    const dir = await tempDir();
    await writeFile(join(dir, "a.json"), manifest("a"));
    const { src, clock, snaps } = await started(dir);
    await waitFor(() => src.watching && !src.busy, "the watch");
    const events = src.stats.watchEvents;
    await writeFile(join(dir, "a.json"), '{"name": "a", "image": "ngi');
    await waitFor(() => src.stats.watchEvents > events, "a watch event");
    const scans = src.stats.scans;
    await clock.advance(100);
    await waitFor(() => src.stats.scans > scans && !src.busy, "the rescan");
    expect(snaps.length).toBe(2);
    expect(uids(snaps[1]!)).toEqual(uids(snaps[0]!));
    expect(snaps[1]!.errors).toHaveLength(1);
  });

  test("a directory removed while running keeps its pods and reports it; back with the same manifests, nothing changes", async () => {
    const parent = await tempDir();
    const dir = join(parent, "manifests");
    await mkdir(dir);
    await writeFile(join(dir, "a.json"), manifest("a"));
    await writeFile(join(dir, "b.json"), manifest("b"));
    const { src, clock, snaps } = await started(dir);
    const before = uids(snaps[0]!);
    expect(before).toHaveLength(2);
    await waitFor(() => src.watching && !src.busy, "the watch");

    const events = src.stats.watchEvents;
    await rm(dir, { recursive: true });
    await waitFor(() => src.stats.watchEvents > events, "the deletion events");
    await clock.advance(2);
    await waitFor(() => snaps.length === 2 && !src.busy, "the report");
    expect(uids(snaps[1]!)).toEqual(before);
    expect(snaps[1]!.complete).toBe(true);
    expect(messages(snaps[1]!)).toEqual([
      `manifests: the static pod path ${dir} is missing: its 2 pod(s) are kept until it returns (an empty directory in its place removes them)`,
    ]);
    expect(src.problems()).toHaveLength(1);
    expect(src.problems()[0]).toContain(`the static pod path ${dir} is missing`);
    // Many retries and rescans later: still kept, reported once (no new snapshot).
    for (let i = 0; i < 45; i++) await clock.advance(1_000);
    await waitFor(() => !src.busy, "the retries");
    expect(snaps).toHaveLength(2);

    // Back, as it was (same bytes, written the careful way).
    await mkdir(dir);
    await saveByRename(join(dir, "a.json"), manifest("a"));
    await saveByRename(join(dir, "b.json"), manifest("b"));
    await clock.advance(1_000);
    await waitFor(() => snaps.length === 3 && !src.busy, "the directory to be read again");
    expect(uids(snaps[2]!)).toEqual(before);
    expect(snaps[2]!.errors).toEqual([]);
    expect(src.problems()).toEqual([]);
    await waitFor(() => src.watching && !src.busy, "the new watch");
    const events2 = src.stats.watchEvents;
    await writeFile(join(dir, "c.json"), manifest("c"));
    await waitFor(() => src.stats.watchEvents > events2, "an event from the new directory");
    await clock.advance(2);
    await waitFor(() => snaps.length === 4, "the rescan");
    expect(names(snaps[3]!)).toEqual(["a-node1", "b-node1", "c-node1"]);
  });

  test("an empty directory in place of a removed one removes its pods (after the window)", async () => {
    const parent = await tempDir();
    const dir = join(parent, "manifests");
    await mkdir(dir);
    await writeFile(join(dir, "a.json"), manifest("a"));
    const { src, clock } = fileSource(dir);
    const snap = await src.scan();
    await rm(dir, { recursive: true });
    expect(uids(await src.scan())).toEqual(uids(snap));
    await mkdir(dir);
    expect(uids(await src.scan())).toEqual(uids(snap));
    await clock.advance(1_000);
    const empty = await src.scan();
    expect(empty.pods).toEqual([]);
    expect(empty.errors).toEqual([]);
  });

  test("started on a missing path: an empty, complete set with the path reported, picked up once it appears", async () => {
    const parent = await tempDir();
    const dir = join(parent, "manifests");
    const { src, clock, snaps } = await started(dir);
    expect(snaps[0]!.pods).toEqual([]);
    expect(snaps[0]!.complete).toBe(true);
    expect(messages(snaps[0]!)[0]).toContain("is missing");
    expect(src.watching).toBe(false);
    await mkdir(dir);
    await writeFile(join(dir, "a.json"), manifest("a"));
    await clock.advance(1_000);
    await waitFor(() => snaps.length === 2, "the directory to be read");
    expect(names(snaps[1]!)).toEqual(["a-node1"]);
    expect(snaps[1]!.errors).toEqual([]);
  });

  test("a single-file path: the file removed from its directory takes its pod (after the window)", async () => {
    const dir = await tempDir();
    const file = join(dir, "solo.json");
    await writeFile(file, manifest("solo"));
    const { src, clock } = fileSource(file);
    expect(names(await src.scan())).toEqual(["solo-node1"]);
    await unlink(file);
    expect(names(await src.scan())).toEqual(["solo-node1"]);
    await clock.advance(1_000);
    const gone = await src.scan();
    expect(gone.pods).toEqual([]);
    expect(gone.errors).toEqual([]);
  });

  test("watch failures are retried after 1 s doubling to 20 s, and the backoff resets after 40 s clean", async () => {
    const dir = await tempDir();
    let fail = true;
    const attempts: number[] = [];
    let onError: ((e: unknown) => void) | undefined;
    const clockRef: { clock?: FakeClock } = {};
    const watch: WatchFn = () => {
      attempts.push(clockRef.clock!.now());
      if (fail) throw Object.assign(new Error("inotify_add_watch: no space left on device"), { code: "ENOSPC" });
      return { close() {}, on: (_e, l) => (onError = l) };
    };
    const clock = new FakeClock();
    clockRef.clock = clock;
    const t0 = clock.now();
    const { src, snaps } = await started(dir, { watch, clock, checkFrequencyMs: 3_600_000 });
    expect(snaps).toHaveLength(1);
    await waitFor(() => attempts.length === 1, "the first attempt");
    expect(src.problems()[0]).toContain("no space left on device");
    for (const delay of [1_000, 2_000, 4_000, 8_000, 16_000, 20_000, 20_000]) {
      const n = attempts.length;
      await clock.advance(delay - 1);
      expect(attempts.length).toBe(n);
      await clock.advance(1);
      await waitFor(() => attempts.length === n + 1, `the retry after ${delay} ms`);
    }
    expect(attempts.map((t) => (t - t0) / 1000)).toEqual([0, 1, 3, 7, 15, 31, 51, 71]);
    expect(src.watching).toBe(false);

    // It works again; a failure more than 40 s later starts over at 1 s.
    fail = false;
    await clock.advance(20_000);
    await waitFor(() => src.watching && !src.busy, "the watch");
    expect(src.problems()).toEqual([]);
    await clock.advance(41_000);
    const n = attempts.length;
    onError!(new Error("inotify queue overflow"));
    expect(src.watching).toBe(false);
    await clock.advance(1_000);
    await waitFor(() => attempts.length === n + 1 && src.watching, "the quick retry");
    expect(src.stats.watchFailures).toBe(9);
  });

  test("stop cancels every timer and the watch", async () => {
    const dir = await tempDir();
    const { src, clock } = await started(dir);
    await waitFor(() => src.watching && !src.busy, "the watch");
    src.stop();
    expect(src.watching).toBe(false);
    expect(clock.pending()).toBe(0);
  });
});
