// FileSource's last good state across restarts, and its snapshots through PodConfig.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdir, readFile, rm, stat, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { PodConfig } from "../../src/config/pod-config";
import { manifest, quietLog } from "./fake-loader";
import { cleanUp, tempDir, fileSource, names, uids, messages } from "./file-source-helpers";

afterEach(cleanUp);

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
    expect(
      config
        .pods()
        .map((p) => p.metadata?.uid)
        .sort(),
    ).toEqual([...uids(good)].sort());
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
