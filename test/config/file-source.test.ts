import { afterEach, describe, expect, test } from "bun:test";
import { mkdir, mkdtemp, readFile, rename, rm, stat, truncate, unlink, utimes, writeFile, appendFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BACKUP_FILE_MESSAGE, FileSource, MAX_MANIFEST_BYTES, type FileSourceOptions, type WatchFn } from "../../src/config/file-source";
import { PodConfig, type SourceReport } from "../../src/config/pod-config";
import { MAX_PODS_PER_SOURCE, tooLargeMessage } from "../../src/config/source-limits";
import type { PodLoader } from "../../src/manifest/types";
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

/**
 * A source on a fake clock. By default the wall clock that file times are compared with runs a minute
 * ahead, so every file looks long settled (its ctime older than the settle window) and is acted on at
 * once: the tests of reading and naming need no waiting. `settling: true` compares with the real time,
 * so a file written now must settle (tests of settling advance the fake clock).
 */
function fileSource(path: string, opts: Partial<FileSourceOptions> & { settling?: boolean } = {}) {
  const clock = opts.clock instanceof FakeClock ? opts.clock : new FakeClock();
  const fileTimeNow = opts.fileTimeNow ?? (opts.settling ? Date.now : () => Date.now() + 60_000);
  const src = new FileSource({ path, nodeName: "node1", loader: fakeLoader, log: quietLog(), ...opts, clock, fileTimeNow });
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

/** Saves as careful tools do: a dot-file, renamed over the manifest. */
async function saveByRename(file: string, text: string, opts: { ctimeAfterMtime?: boolean } = {}): Promise<void> {
  const tmp = join(file, "..", `.${file.split("/").pop()}.tmp`);
  await writeFile(tmp, text);
  // Like `cp -p`, rsync or tar: the write's time is kept, so the rename leaves ctime after mtime.
  if (opts.ctimeAfterMtime) await utimes(tmp, new Date(Date.now() - 5_000), new Date(Date.now() - 5_000));
  await rename(tmp, file);
}

describe("FileSource, reading the directory", () => {
  test("a new manifest is a pod named <name>-<node>; the set is complete", async () => {
    const dir = await tempDir();
    await writeFile(join(dir, "web.json"), manifest("web"));
    const { src } = fileSource(dir);
    const snap = await src.scan();
    expect(snap.source).toBe("file");
    expect(names(snap)).toEqual(["web-node1"]);
    expect(snap.errors).toEqual([]);
    expect(snap.complete).toBe(true);
    expect(src.problems()).toEqual([]);
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

  test("a rename is a new pod (the UID hashes the path); a delete removes it once it has lasted the settle window", async () => {
    const dir = await tempDir();
    await writeFile(join(dir, "a.json"), manifest("web"));
    const { src, clock } = fileSource(dir);
    const before = uids(await src.scan());
    await rename(join(dir, "a.json"), join(dir, "b.json"));
    // The pod has moved to b.json: a.json's gives way at once, with no duplicate error.
    const after = await src.scan();
    expect(names(after)).toEqual(["web-node1"]);
    expect(uids(after)).not.toEqual(before);
    expect(after.errors).toEqual([]);
    await clock.advance(1_000);
    expect(await src.scan()).toEqual(after);
    await unlink(join(dir, "b.json"));
    expect(uids(await src.scan())).toEqual(uids(after));
    await clock.advance(999);
    expect(uids(await src.scan())).toEqual(uids(after));
    await clock.advance(1);
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

  test("renaming a manifest to a backup name stops its pod (after the window) and reports the file", async () => {
    const dir = await tempDir();
    await writeFile(join(dir, "web.yaml"), manifest("web"));
    const { src, clock } = fileSource(dir);
    expect(names(await src.scan())).toEqual(["web-node1"]);
    await rename(join(dir, "web.yaml"), join(dir, "web.yaml.bak"));
    await src.scan();
    await clock.advance(1_000);
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
    await writeFile(file, '{"name": "web", "image": "INVALID"}');
    // Settled (the clock is past its window): the error is reported, the pod kept.
    const bad = await src.scan();
    expect(uids(bad)).toEqual(uids(good));
    expect(messages(bad)).toEqual(["web.json: INVALID marker found"]);
    // Still reported on later scans, the pod still kept.
    await clock.advance(60_000);
    expect(await src.scan()).toEqual(bad);
    // A valid edit replaces it and clears the error.
    await writeFile(file, manifest("web", "nginx"));
    const fixed = await src.scan();
    expect(fixed.errors).toEqual([]);
    expect(names(fixed)).toEqual(["web-node1"]);
    expect(uids(fixed)).not.toEqual(uids(good));
    expect(fixed.pods[0]?.spec?.containers[0]?.image).toBe("nginx");
  });

  test("a brand-new invalid file only reports its error", async () => {
    const dir = await tempDir();
    await writeFile(join(dir, "bad.json"), "{ not json");
    await writeFile(join(dir, "noimage.json"), JSON.stringify({ name: "x" }));
    const { src } = fileSource(dir);
    const snap = await src.scan();
    expect(snap.pods).toEqual([]);
    expect(snap.complete).toBe(true);
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
    const { src, clock } = fileSource(dir);
    const snap = await src.scan();
    expect(names(snap)).toEqual(["web-node1", "other-node1"]);
    expect(snap.pods[0]?.spec?.containers[0]?.image).toBe("busybox");
    expect(snap.errors).toHaveLength(1);
    expect(snap.errors[0]?.file).toBe(join(dir, "b.json"));
    expect(snap.errors[0]?.message).toContain(join(dir, "a.json"));
    expect(snap.errors[0]?.message).toContain('"default/web-node1"');
    // The first file goes: once it is gone for good, the second one runs.
    await unlink(join(dir, "a.json"));
    await src.scan();
    await clock.advance(1_000);
    const after = await src.scan();
    expect(after.errors).toEqual([]);
    expect(after.pods[0]?.spec?.containers[0]?.image).toBe("nginx");
  });

  test("a path that is a file is read as that one file", async () => {
    const dir = await tempDir();
    const file = join(dir, "pod.json.bak");
    await writeFile(file, manifest("solo"));
    await writeFile(join(dir, "other.json"), manifest("other"));
    const { src } = fileSource(file);
    expect(names(await src.scan())).toEqual(["solo-node1"]);
  });

  test("a manifest over 10 MB is an error at once, keeps the pod it replaced, and no prefix of it is loaded", async () => {
    const dir = await tempDir();
    const file = join(dir, "big.json");
    await writeFile(file, manifest("big"));
    const seen: number[] = [];
    const loader: PodLoader = (text, origin) => {
      seen.push(text.length);
      return fakeLoader(text, origin);
    };
    const { src } = fileSource(dir, { loader });
    const good = await src.scan();
    expect(names(good)).toEqual(["big-node1"]);
    // A valid pod followed by spaces: whole, it would parse; over the limit, it must not run.
    await writeFile(file, manifest("big", "nginx") + " ".repeat(MAX_MANIFEST_BYTES));
    const snap = await src.scan();
    expect(uids(snap)).toEqual(uids(good));
    expect(messages(snap)).toEqual([`big.json: ${tooLargeMessage(MAX_MANIFEST_BYTES + manifest("big", "nginx").length)}`]);
    await truncate(file, MAX_MANIFEST_BYTES + 1);
    expect(messages(await src.scan())).toEqual([`big.json: ${tooLargeMessage(MAX_MANIFEST_BYTES + 1)}`]);
    expect(seen).toEqual([manifest("big").length]);
  });

  test(`more than ${MAX_PODS_PER_SOURCE} pods: the ones running keep their place, the others are errors`, async () => {
    const dir = await tempDir();
    for (let i = 0; i < MAX_PODS_PER_SOURCE; i++) await writeFile(join(dir, `p${String(i + 1).padStart(4, "0")}.json`), manifest(`p${i + 1}`));
    const { src } = fileSource(dir);
    const full = await src.scan();
    expect(full.pods).toHaveLength(MAX_PODS_PER_SOURCE);
    expect(full.errors).toEqual([]);
    // One more, sorting first: it does not push a running pod out.
    await writeFile(join(dir, "a-new.json"), manifest("new"));
    const over = await src.scan();
    expect(uids(over)).toEqual(uids(full));
    expect(messages(over)).toEqual([`a-new.json: not run: the static pod path has ${MAX_PODS_PER_SOURCE + 1} pods, over the limit of ${MAX_PODS_PER_SOURCE} pods per source`]);
  });
});

describe("FileSource, settling", () => {
  test("a file written in place is acted on only once it has been still for the window, even when it parses", async () => {
    const dir = await tempDir();
    const file = join(dir, "web.json");
    await writeFile(file, manifest("web"));
    const { src, clock } = fileSource(dir, { settling: true });
    // At first, not acted on either: it was written moments ago.
    expect((await src.scan()).pods).toEqual([]);
    await clock.advance(1_000);
    const good = await src.scan();
    expect(names(good)).toEqual(["web-node1"]);

    // A two-step write: the first step is a valid pod of its own, the second makes the real one.
    await clock.advance(30_000);
    await writeFile(file, manifest("web", "busybox", { labels: { step: "1" } }));
    expect(await src.scan()).toEqual(good);
    await clock.advance(300);
    await writeFile(file, manifest("web", "busybox", { labels: { step: "2" } }));
    expect(await src.scan()).toEqual(good);
    // A second after the first step, but not after the last: still waiting.
    await clock.advance(700);
    expect(await src.scan()).toEqual(good);
    await clock.advance(300);
    const done = await src.scan();
    expect(done.pods[0]?.metadata?.labels).toEqual({ step: "2" });
    expect(done.errors).toEqual([]);
  });

  test("a half-written file reports nothing while it settles; once still, its error is reported and the pod kept", async () => {
    const dir = await tempDir();
    const file = join(dir, "web.json");
    await writeFile(file, manifest("web"));
    const { src, clock } = fileSource(dir, { settling: true });
    expect((await src.scan()).pods).toEqual([]);
    await clock.advance(1_000);
    const good = await src.scan();
    expect(names(good)).toEqual(["web-node1"]);
    await clock.advance(30_000);
    await writeFile(file, '{"name": "web"');
    expect(await src.scan()).toEqual(good);
    await clock.advance(999);
    expect(await src.scan()).toEqual(good);
    await clock.advance(1);
    const settled = await src.scan();
    expect(uids(settled)).toEqual(uids(good));
    expect(settled.errors).toHaveLength(1);
    expect(settled.errors[0]?.message).toContain("couldn't parse");
  });

  test("renamed into place (ctime after mtime) is acted on at once", async () => {
    const dir = await tempDir();
    const file = join(dir, "web.json");
    const { src } = fileSource(dir, { settling: true });
    await saveByRename(file, manifest("web"), { ctimeAfterMtime: true });
    const st = await stat(file, { bigint: true });
    expect(st.ctimeNs > st.mtimeNs).toBe(true);
    expect(names(await src.scan())).toEqual(["web-node1"]);
    // An invalid manifest renamed into place is reported at once, keeping the pod.
    await saveByRename(file, "INVALID", { ctimeAfterMtime: true });
    const bad = await src.scan();
    expect(names(bad)).toEqual(["web-node1"]);
    expect(messages(bad)).toEqual(["web.json: INVALID marker found"]);
  });

  test("the same bytes as the last good content (a revert) are acted on at once", async () => {
    const dir = await tempDir();
    const file = join(dir, "web.json");
    await writeFile(file, manifest("web"));
    const { src, clock } = fileSource(dir, { settling: true });
    expect((await src.scan()).pods).toEqual([]);
    await clock.advance(1_000);
    const good = await src.scan();
    expect(names(good)).toEqual(["web-node1"]);
    await writeFile(file, "INVALID");
    expect(await src.scan()).toEqual(good);
    await clock.advance(1_000);
    expect(messages(await src.scan())).toEqual(["web.json: INVALID marker found"]);
    await writeFile(file, manifest("web"));
    expect(await src.scan()).toEqual(good);
  });

  test("a file growing past the limit never runs the valid pod its first part makes", async () => {
    const dir = await tempDir();
    const file = join(dir, "web.json");
    await writeFile(file, manifest("web"));
    const { src, clock } = fileSource(dir, { settling: true });
    expect((await src.scan()).pods).toEqual([]);
    await clock.advance(1_000);
    const good = await src.scan();
    expect(names(good)).toEqual(["web-node1"]);
    // Rewritten in place: first a valid pod of its own, then megabytes of padding appended.
    await writeFile(file, manifest("web", "nginx"));
    const snaps = [await src.scan()];
    await clock.advance(200);
    for (let i = 0; i < 11; i++) {
      await appendFile(file, " ".repeat(1024 * 1024));
      snaps.push(await src.scan());
      await clock.advance(200);
    }
    await clock.advance(5_000);
    snaps.push(await src.scan());
    for (const s of snaps) expect(uids(s)).toEqual(uids(good));
    expect(snaps.at(-1)!.errors[0]?.message).toContain(`the kubelet reads at most ${MAX_MANIFEST_BYTES} bytes`);
  });

  test("a file found at start that has been still for the window is acted on at once", async () => {
    const dir = await tempDir();
    await writeFile(join(dir, "web.json"), manifest("web"));
    // Two seconds past the file's ctime by the wall clock: it has been still longer than the window.
    const { src } = fileSource(dir, { fileTimeNow: () => Date.now() + 2_000 });
    expect(names(await src.scan())).toEqual(["web-node1"]);
  });
});

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
    for (const [i, s] of snaps.entries()) expect(s.complete).toBe(true), expect(names(snaps[Math.max(0, i - 1)]!).every((n) => names(s).includes(n))).toBe(true);
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
    expect(messages(snaps[1]!)).toEqual([`manifests: the static pod path ${dir} is missing: its 2 pod(s) are kept until it returns (an empty directory in its place removes them)`]);
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

describe("FileSource, last good state across restarts", () => {
  async function withState() {
    const dir = await tempDir();
    const manifests = join(dir, "manifests");
    const stateDir = join(dir, "root", "sources");
    await mkdir(manifests);
    return { manifests, stateDir };
  }

  test("a manifest made invalid while the agent was down serves its last good pod (same UID), reported; the set is complete", async () => {
    const { manifests, stateDir } = await withState();
    const file = join(manifests, "web.json");
    await writeFile(file, manifest("web"));
    await writeFile(join(manifests, "api.json"), manifest("api"));
    const first = fileSource(manifests, { stateDir });
    const good = await first.src.scan();
    first.src.stop();
    expect((await stat(join(stateDir, "file.json"))).mode & 0o777).toBe(0o600);
    expect((await stat(stateDir)).mode & 0o777).toBe(0o700);

    await writeFile(file, "INVALID");
    const second = fileSource(manifests, { stateDir });
    const snap = await second.src.scan();
    expect(uids(snap)).toEqual(uids(good));
    expect(snap.complete).toBe(true);
    expect(messages(snap)).toEqual(["web.json: INVALID marker found"]);
    // Through PodConfig: the very pods of before, so their containers are adopted.
    const config = new PodConfig({ clock: second.clock, log: quietLog() });
    config.apply(snap);
    expect(config.pods().map((p) => p.metadata?.uid).sort()).toEqual([...uids(good)].sort());
    expect(config.seenAllSources(["file"])).toBe(true);
  });

  test("a manifest half written when the agent starts serves its last good pod until it settles", async () => {
    const { manifests, stateDir } = await withState();
    const file = join(manifests, "web.json");
    await writeFile(file, manifest("web"));
    const first = fileSource(manifests, { stateDir });
    const good = await first.src.scan();
    first.src.stop();

    await writeFile(file, manifest("web", "nginx"));
    const second = fileSource(manifests, { stateDir, settling: true });
    const during = await second.src.scan();
    expect(during).toEqual({ ...good, complete: true });
    await second.clock.advance(1_000);
    const after = await second.src.scan();
    expect(after.pods[0]?.spec?.containers[0]?.image).toBe("nginx");
    // The state follows: a third start serves the new pod.
    second.src.stop();
    const third = fileSource(manifests, { stateDir });
    await writeFile(file, "INVALID");
    expect(uids(await third.src.scan())).toEqual(uids(after));
  });

  test("a manifest deleted while the agent was down takes its pod (after the window); the others stay", async () => {
    const { manifests, stateDir } = await withState();
    await writeFile(join(manifests, "a.json"), manifest("a"));
    await writeFile(join(manifests, "b.json"), manifest("b"));
    const first = fileSource(manifests, { stateDir });
    await first.src.scan();
    first.src.stop();
    await unlink(join(manifests, "a.json"));
    const second = fileSource(manifests, { stateDir });
    expect(names(await second.src.scan())).toEqual(["a-node1", "b-node1"]);
    await second.clock.advance(1_000);
    expect(names(await second.src.scan())).toEqual(["b-node1"]);
    const state = JSON.parse(await readFile(join(stateDir, "file.json"), "utf8")) as { entries: Record<string, unknown> };
    expect(Object.keys(state.entries)).toEqual([join(manifests, "b.json")]);
  });

  test("started on a missing path, the last good pods are served and the path reported", async () => {
    const { manifests, stateDir } = await withState();
    await writeFile(join(manifests, "a.json"), manifest("a"));
    const first = fileSource(manifests, { stateDir });
    const good = await first.src.scan();
    first.src.stop();
    await rm(manifests, { recursive: true });
    const second = fileSource(manifests, { stateDir });
    const snap = await second.src.scan();
    expect(uids(snap)).toEqual(uids(good));
    expect(snap.complete).toBe(true);
    expect(second.src.problems()[0]).toContain("is missing");
  });

  test("an unreadable state file is reported; the source is not complete while a manifest that never loaded is there", async () => {
    const { manifests, stateDir } = await withState();
    await mkdir(stateDir, { recursive: true });
    await writeFile(join(stateDir, "file.json"), "{ half a state");
    await writeFile(join(manifests, "a.json"), manifest("a"));
    await writeFile(join(manifests, "b.json"), "INVALID");
    const { src, clock } = fileSource(manifests, { stateDir });
    expect(src.problems()[0]).toContain("not valid JSON");
    const snap = await src.scan();
    expect(names(snap)).toEqual(["a-node1"]);
    expect(snap.complete).toBe(false);
    // Not rewritten while incomplete: the next start tries the same file again.
    expect(await readFile(join(stateDir, "file.json"), "utf8")).toBe("{ half a state");
    await writeFile(join(manifests, "b.json"), manifest("b"));
    const fixed = await src.scan();
    expect(fixed.complete).toBe(true);
    expect(src.problems()).toEqual([]);
    expect(JSON.parse(await readFile(join(stateDir, "file.json"), "utf8")).kind).toBe("SourceState");
    // Once complete, always: a later bad edit does not take it back.
    await writeFile(join(manifests, "c.json"), "INVALID");
    await clock.advance(1_000);
    expect((await src.scan()).complete).toBe(true);
  });

  test("the state of another path is not used", async () => {
    const { manifests, stateDir } = await withState();
    await writeFile(join(manifests, "a.json"), manifest("a"));
    const first = fileSource(manifests, { stateDir });
    await first.src.scan();
    first.src.stop();
    const other = join(manifests, "..", "other");
    await mkdir(other);
    await writeFile(join(other, "b.json"), "INVALID");
    const second = fileSource(other, { stateDir });
    const snap = await second.src.scan();
    expect(snap.pods).toEqual([]);
    expect(snap.complete).toBe(true);
  });

  test("without a state dir nothing is written", async () => {
    const { manifests, stateDir } = await withState();
    await writeFile(join(manifests, "a.json"), manifest("a"));
    const { src } = fileSource(manifests);
    await src.scan();
    await expect(stat(stateDir)).rejects.toThrow();
  });

  test("a state dir that cannot be written is a problem; the set is still handed on", async () => {
    const { manifests, stateDir } = await withState();
    await writeFile(join(manifests, "a.json"), manifest("a"));
    await mkdir(join(stateDir, ".."), { recursive: true });
    await writeFile(stateDir, "a file where the directory should be");
    const { src } = fileSource(manifests, { stateDir });
    expect(names(await src.scan())).toEqual(["a-node1"]);
    expect(src.problems()).toHaveLength(1);
    expect(src.problems()[0]).toContain("cannot keep the last good state");
    await rm(stateDir);
    await writeFile(join(manifests, "b.json"), manifest("b"));
    await src.scan();
    expect(src.problems()).toEqual([]);
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
    await writeFile(file, "INVALID");
    expect(await ops()).toEqual([]);
    expect(config.errors().map((e) => e.message)).toEqual(["INVALID marker found"]);
    expect(config.pods().map((p) => p.spec?.containers[0]?.image)).toEqual(["nginx"]);
  });
});
