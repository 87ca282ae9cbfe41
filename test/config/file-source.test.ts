// FileSource (the static pod path): which files it reads and how, and when a file's content settles.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdir, rename, stat, truncate, unlink, writeFile, appendFile } from "node:fs/promises";
import { join } from "node:path";
import { BACKUP_FILE_MESSAGE, MAX_MANIFEST_BYTES } from "../../src/config";
import { MAX_PODS_PER_SOURCE, tooLargeMessage } from "../../src/config/source-limits";
import type { PodLoader } from "../../src/manifest/types";
import { fakeLoader, manifest } from "./fake-loader";
import { cleanUp, tempDir, fileSource, names, uids, messages, saveByRename } from "./file-source-helpers";

afterEach(cleanUp);

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
    for (const name of [
      "kube-apiserver.yaml.bak",
      "kube-apiserver.yaml~",
      "a.yaml.orig",
      "a.yaml.swp",
      "b.swo",
      "c.tmp",
      "d.dpkg-old",
      "e.dpkg-new",
      "f.rpmsave",
      "g.rpmnew",
      "h.BAK",
    ]) {
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
    expect(messages(over)).toEqual([
      `a-new.json: not run: the static pod path has ${MAX_PODS_PER_SOURCE + 1} pods, over the limit of ${MAX_PODS_PER_SOURCE} pods per source`,
    ]);
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
