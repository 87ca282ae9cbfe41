import { afterEach, describe, expect, test } from "bun:test";
import { mkdir, mkdtemp, rename, rm, truncate, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BACKUP_FILE_MESSAGE, FileSource, MAX_MANIFEST_BYTES, type FileSourceOptions, type WatchFn } from "../../src/config/file-source";
import { PodConfig, type SourceReport } from "../../src/config/pod-config";
import { FakeClock } from "../../src/util/clock";
import { fakeLoader, manifest, quietLog } from "./fake-loader";

const dirs: string[] = [];
const sources: FileSource[] = [];

afterEach(async () => {
  for (const s of sources.splice(0)) s.stop();
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), "nodeagent-config-"));
  dirs.push(d);
  return d;
}

function fileSource(path: string, opts: Partial<FileSourceOptions> = {}) {
  const clock = new FakeClock();
  const src = new FileSource({ path, nodeName: "node1", loader: fakeLoader, clock, log: quietLog(), ...opts });
  sources.push(src);
  return { clock, src };
}

const names = (s: SourceReport) => s.pods.map((p) => p.metadata?.name);
const uids = (s: SourceReport) => s.pods.map((p) => p.metadata?.uid);
const messages = (s: SourceReport) => s.errors.map((e) => `${e.file.split("/").pop()}: ${e.message}`);

/** Waits for something that real I/O (fs.watch delivery, a read) makes true, with a deadline. */
async function waitFor(cond: () => boolean, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

describe("FileSource, reading the directory", () => {
  test("a new manifest is a pod named <name>-<node>", async () => {
    const dir = await tempDir();
    await writeFile(join(dir, "web.json"), manifest("web"));
    const { src } = fileSource(dir);
    const snap = await src.scan();
    expect(snap.source).toBe("file");
    expect(names(snap)).toEqual(["web-node1"]);
    expect(snap.errors).toEqual([]);
    expect(snap.complete).toBeUndefined();
  });

  test("an edit is a new UID; rewriting the same bytes is not", async () => {
    const dir = await tempDir();
    const file = join(dir, "web.json");
    await writeFile(file, manifest("web"));
    const { src } = fileSource(dir);
    const first = uids(await src.scan());
    await writeFile(file, manifest("web"));
    expect(uids(await src.scan())).toEqual(first);
    await writeFile(file, manifest("web", "nginx"));
    const second = await src.scan();
    expect(names(second)).toEqual(["web-node1"]);
    expect(uids(second)).not.toEqual(first);
  });

  test("a rename is a new pod (the UID hashes the path); a delete removes it", async () => {
    const dir = await tempDir();
    await writeFile(join(dir, "a.json"), manifest("web"));
    const { src } = fileSource(dir);
    const before = uids(await src.scan());
    await rename(join(dir, "a.json"), join(dir, "b.json"));
    const after = await src.scan();
    expect(names(after)).toEqual(["web-node1"]);
    expect(uids(after)).not.toEqual(before);
    await unlink(join(dir, "b.json"));
    expect((await src.scan()).pods).toEqual([]);
  });

  test("reads every name not starting with a dot, sorted, without recursing or filtering extensions", async () => {
    const dir = await tempDir();
    await writeFile(join(dir, "zeta"), manifest("zeta"));
    await writeFile(join(dir, "alpha.yaml"), manifest("alpha"));
    await writeFile(join(dir, "Mid.conf"), manifest("mid"));
    await writeFile(join(dir, ".hidden.yaml"), manifest("hidden"));
    await writeFile(join(dir, ".web.json.swp"), "garbage");
    await mkdir(join(dir, "sub"));
    await writeFile(join(dir, "sub", "inner.json"), manifest("inner"));
    const { src } = fileSource(dir);
    const snap = await src.scan();
    expect(names(snap)).toEqual(["mid-node1", "alpha-node1", "zeta-node1"]);
    expect(snap.errors).toEqual([]);
  });

  test("backup and editor files are reported and not run", async () => {
    const dir = await tempDir();
    await writeFile(join(dir, "kube-apiserver.yaml"), manifest("apiserver"));
    for (const name of ["kube-apiserver.yaml.bak", "kube-apiserver.yaml~", "a.yaml.orig", "a.yaml.swp", "b.swo", "c.tmp", "d.dpkg-old", "e.dpkg-new", "f.rpmsave", "g.rpmnew", "h.BAK"]) {
      await writeFile(join(dir, name), manifest(`old-${name.replace(/[^a-z]/gi, "").toLowerCase()}`));
    }
    const { src } = fileSource(dir);
    const snap = await src.scan();
    expect(names(snap)).toEqual(["apiserver-node1"]);
    expect(snap.errors).toHaveLength(11);
    for (const e of snap.errors) expect(e.message).toBe(BACKUP_FILE_MESSAGE);
    expect(snap.errors.map((e) => e.file)).toContain(join(dir, "kube-apiserver.yaml.bak"));
    expect(BACKUP_FILE_MESSAGE).toContain("kubernetes#136962");
  });

  test("renaming a manifest to a backup name stops its pod and reports the file", async () => {
    const dir = await tempDir();
    await writeFile(join(dir, "web.yaml"), manifest("web"));
    const { src } = fileSource(dir);
    expect(names(await src.scan())).toEqual(["web-node1"]);
    await rename(join(dir, "web.yaml"), join(dir, "web.yaml.bak"));
    const snap = await src.scan();
    expect(snap.pods).toEqual([]);
    expect(messages(snap)).toEqual([`web.yaml.bak: ${BACKUP_FILE_MESSAGE}`]);
  });

  test("an edit into an invalid manifest keeps the last valid pod and reports the error until a valid edit", async () => {
    const dir = await tempDir();
    const file = join(dir, "web.json");
    await writeFile(file, manifest("web"));
    const { src, clock } = fileSource(dir);
    const good = await src.scan();
    await clock.advance(5_000);
    await writeFile(file, '{"name": "web", "image": "INVALID"}');
    await clock.advance(1_000);
    // Parses, but does not load: settles after a second like any other failure.
    const bad = await src.scan();
    expect(uids(bad)).toEqual(uids(good));
    await clock.advance(1_000);
    const reported = await src.scan();
    expect(uids(reported)).toEqual(uids(good));
    expect(messages(reported)).toEqual(["web.json: INVALID marker found"]);
    // Still reported on later scans, the pod still kept.
    await clock.advance(60_000);
    expect(await src.scan()).toEqual(reported);
    // A valid edit replaces it and clears the error.
    await writeFile(file, manifest("web", "nginx"));
    const fixed = await src.scan();
    expect(fixed.errors).toEqual([]);
    expect(names(fixed)).toEqual(["web-node1"]);
    expect(uids(fixed)).not.toEqual(uids(good));
    expect(fixed.pods[0]?.spec?.containers[0]?.image).toBe("nginx");
  });

  test("a half-written file is not acted on until it settles", async () => {
    const dir = await tempDir();
    const file = join(dir, "web.json");
    await writeFile(file, manifest("web"));
    const { src, clock } = fileSource(dir);
    const good = await src.scan();
    await clock.advance(30_000);
    // The editor has written half of the new content.
    await writeFile(file, '{"name": "web", "ima');
    const during = await src.scan();
    expect(during).toEqual(good);
    await clock.advance(400);
    expect(await src.scan()).toEqual(good);
    // It finishes within the second: the new pod, and no error was ever reported.
    await writeFile(file, manifest("web", "nginx"));
    const done = await src.scan();
    expect(done.errors).toEqual([]);
    expect(done.pods[0]?.spec?.containers[0]?.image).toBe("nginx");

    // Another save that stays truncated: reported once it has been still for a second.
    await clock.advance(30_000);
    await writeFile(file, '{"name": "web"');
    expect(await src.scan()).toEqual(done);
    await clock.advance(999);
    expect(await src.scan()).toEqual(done);
    await clock.advance(1);
    const settled = await src.scan();
    expect(uids(settled)).toEqual(uids(done));
    expect(settled.errors).toHaveLength(1);
    expect(settled.errors[0]?.message).toContain("couldn't parse");
  });

  test("a brand-new invalid file only reports its error", async () => {
    const dir = await tempDir();
    await writeFile(join(dir, "bad.json"), "{ not json");
    await writeFile(join(dir, "noimage.json"), JSON.stringify({ name: "x" }));
    const { src, clock } = fileSource(dir);
    expect(await src.scan()).toEqual({ source: "file", pods: [], errors: [] });
    await clock.advance(1_000);
    const snap = await src.scan();
    expect(snap.pods).toEqual([]);
    expect(snap.errors.map((e) => [e.file.split("/").pop(), e.field])).toEqual([
      ["bad.json", ""],
      ["noimage.json", "spec.containers[0].image"],
    ]);
  });

  test("two files naming the same pod: the first in sort order runs, the later one is an error naming both", async () => {
    const dir = await tempDir();
    await writeFile(join(dir, "b.json"), manifest("web", "nginx"));
    await writeFile(join(dir, "a.json"), manifest("web", "busybox"));
    await writeFile(join(dir, "c.json"), manifest("other"));
    const { src } = fileSource(dir);
    const snap = await src.scan();
    expect(names(snap)).toEqual(["web-node1", "other-node1"]);
    expect(snap.pods[0]?.spec?.containers[0]?.image).toBe("busybox");
    expect(snap.errors).toHaveLength(1);
    expect(snap.errors[0]?.file).toBe(join(dir, "b.json"));
    expect(snap.errors[0]?.message).toContain(join(dir, "a.json"));
    expect(snap.errors[0]?.message).toContain('"default/web-node1"');
    // The first file goes: the second one runs.
    await unlink(join(dir, "a.json"));
    const after = await src.scan();
    expect(after.errors).toEqual([]);
    expect(after.pods[0]?.spec?.containers[0]?.image).toBe("nginx");
  });

  test("a missing directory is an empty, complete set", async () => {
    const dir = await tempDir();
    const { src } = fileSource(join(dir, "manifests"));
    expect(await src.scan()).toEqual({ source: "file", pods: [], errors: [] });
  });

  test("a path that is a file is read as that one file", async () => {
    const dir = await tempDir();
    const file = join(dir, "pod.json.bak");
    await writeFile(file, manifest("solo"));
    await writeFile(join(dir, "other.json"), manifest("other"));
    const { src } = fileSource(file);
    expect(names(await src.scan())).toEqual(["solo-node1"]);
  });

  test("a manifest over 10 MB is an error, and keeps the pod it replaced", async () => {
    const dir = await tempDir();
    const file = join(dir, "big.json");
    await writeFile(file, manifest("big"));
    const { src } = fileSource(dir);
    const good = await src.scan();
    await truncate(file, MAX_MANIFEST_BYTES + 1);
    const snap = await src.scan();
    expect(uids(snap)).toEqual(uids(good));
    expect(messages(snap)).toEqual([`big.json: manifest is ${MAX_MANIFEST_BYTES + 1} bytes, over the ${MAX_MANIFEST_BYTES}-byte limit`]);
  });
});

describe("FileSource, running", () => {
  async function started(dir: string, opts: Partial<FileSourceOptions> = {}) {
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
    expect(snaps[0]).toEqual({ source: "file", pods: [], errors: [] });
    await writeFile(join(dir, "a.json"), manifest("a"));
    const scans = src.stats.scans;
    await clock.advance(19_999);
    expect(src.stats.scans).toBe(scans);
    await clock.advance(1);
    await waitFor(() => snaps.length === 2, "the periodic rescan");
    expect(names(snaps[1]!)).toEqual(["a-node1"]);
  });

  test("a half-written file seen through the watch is re-read once it settles", async () => {
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
    expect(snaps).toHaveLength(1);
    await clock.advance(1_000);
    await waitFor(() => snaps.length === 2, "the settled re-read");
    expect(uids(snaps[1]!)).toEqual(uids(snaps[0]!));
    expect(snaps[1]!.errors).toHaveLength(1);
  });

  test("a missing directory counts as seen, and is picked up once it appears", async () => {
    const parent = await tempDir();
    const dir = join(parent, "manifests");
    const { src, clock, snaps } = await started(dir);
    expect(snaps[0]).toEqual({ source: "file", pods: [], errors: [] });
    expect(snaps[0]!.complete).not.toBe(false);
    expect(src.watching).toBe(false);
    await mkdir(dir);
    await writeFile(join(dir, "a.json"), manifest("a"));
    await clock.advance(1_000);
    await waitFor(() => snaps.length === 2, "the directory to be read");
    expect(names(snaps[1]!)).toEqual(["a-node1"]);
    await waitFor(() => src.watching && !src.busy, "the watch");

    // Deleted and created again: the old watch is replaced by one on the new directory.
    const events = src.stats.watchEvents;
    await rm(dir, { recursive: true });
    await waitFor(() => src.stats.watchEvents > events, "the deletion event");
    await clock.advance(100);
    await waitFor(() => snaps.length === 3, "the empty set");
    expect(snaps[2]!.pods).toEqual([]);
    await mkdir(dir);
    await writeFile(join(dir, "b.json"), manifest("b"));
    await clock.advance(1_000);
    await waitFor(() => snaps.length === 4, "the new directory");
    expect(names(snaps[3]!)).toEqual(["b-node1"]);
    await waitFor(() => src.watching && !src.busy, "the new watch");
    const events2 = src.stats.watchEvents;
    await writeFile(join(dir, "c.json"), manifest("c"));
    await waitFor(() => src.stats.watchEvents > events2, "an event from the new directory");
    await clock.advance(100);
    await waitFor(() => snaps.length === 5, "the rescan");
    expect(names(snaps[4]!)).toEqual(["b-node1", "c-node1"]);
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

describe("FileSource through PodConfig", () => {
  test("an edit is REMOVE old + ADD new, an identical rewrite is nothing, a bad edit changes nothing", async () => {
    const dir = await tempDir();
    const file = join(dir, "web.json");
    await writeFile(file, manifest("web"));
    const { src, clock } = fileSource(dir);
    const config = new PodConfig({ clock, log: quietLog() });
    const ops = async () => config.apply(await src.scan()).map((u) => `${u.op} ${u.pods.map((p) => p.metadata?.uid?.slice(0, 6)).join(",")}`);
    const [added] = await ops();
    expect(added).toStartWith("ADD ");
    expect(config.seenAllSources(["file"])).toBe(true);
    await writeFile(file, manifest("web"));
    expect(await ops()).toEqual([]);
    await writeFile(file, manifest("web", "nginx"));
    const edit = await ops();
    expect(edit.map((o) => o.split(" ")[0])).toEqual(["REMOVE", "ADD"]);
    expect(edit[0]).toBe(added!.replace("ADD", "REMOVE"));
    await clock.advance(5_000);
    await writeFile(file, "INVALID");
    expect(await ops()).toEqual([]);
    await clock.advance(1_000);
    expect(await ops()).toEqual([]);
    expect(config.errors().map((e) => e.message)).toEqual(["INVALID marker found"]);
    expect(config.pods().map((p) => p.spec?.containers[0]?.image)).toEqual(["nginx"]);
  });
});
