// LocalObjectSource (--local-objects DIR) on a real folder with a FakeClock and a stand-in watch:
// objects served from manifests, a half-written file not acted on until it settles, a bad file keeping
// its last good objects and reported, removals after the window, the folder missing keeping all,
// duplicates reported, changes of what registered pods use told; and NoObjectSource's messages.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, renameSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod } from "kubernetes-types/core/v1";
import type { WatchFn } from "../../src/config/watched-directory";
import { FakeClock } from "../../src/util/clock";
import { createLogger } from "../../src/util/log";
import { LocalObjectSource, TOKENS_NEED_KUBECONFIG } from "../../src/objects/local-object-source";
import { NoObjectSource } from "../../src/objects/no-object-source";
import { ObjectNotFoundError, ObjectSourceError, type ObjectRef } from "../../src/objects/types";

const log = createLogger("text", -1);
const sources: LocalObjectSource[] = [];
afterEach(() => {
  for (const s of sources.splice(0)) s.close();
});

const cm = (name: string, data: Record<string, string>, namespace?: string) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n${namespace ? `  namespace: ${namespace}\n` : ""}data:\n${Object.entries(data)
    .map(([k, v]) => `  ${k}: "${v}"`)
    .join("\n")}\n`;
const secret = (name: string, value: string) => `apiVersion: v1\nkind: Secret\nmetadata: {name: ${name}}\nstringData: {key: "${value}"}\n`;

const pod = (uid: string, cms: string[]): Pod => ({
  metadata: { name: uid, namespace: "default", uid },
  spec: { containers: [{ name: "c", image: "i", envFrom: cms.map((n) => ({ configMapRef: { name: n } })) }] },
});

async function thrown(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error("resolved, expected a rejection");
}

/** A folder and a source on it. `old` makes every file look written long ago (settled at once). */
function setup(opts: { old?: boolean } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "local-objects-"));
  const clock = new FakeClock(Date.now());
  let fire: (() => void) | undefined;
  const watch: WatchFn = (_path, onEvent) => {
    fire = () => onEvent("x", "change");
    return { close: () => (fire = undefined), on: () => undefined };
  };
  const src = new LocalObjectSource({ dir, clock, log, watch, settleMs: 1000, fileTimeNow: () => Date.now() + (opts.old ? 60_000 : 0) });
  sources.push(src);
  const changes: ObjectRef[] = [];
  src.onChange((r) => changes.push(r));
  return { dir, clock, src, changes, fireWatch: () => fire?.() };
}

describe("LocalObjectSource", () => {
  test("serves the ConfigMaps and Secrets of the folder's manifests; absent is NotFound; tokens need --kubeconfig", async () => {
    const { dir, src } = setup({ old: true });
    writeFileSync(join(dir, "app.yaml"), `${cm("app", { mode: "fast" })}---\n${secret("creds", "hunter2")}`);
    writeFileSync(join(dir, "other.yaml"), cm("app", { mode: "x" }, "prod"));
    writeFileSync(join(dir, ".hidden.yaml"), cm("hidden", {}));
    writeFileSync(join(dir, "old.yaml~"), cm("backup", {}));
    await src.start();
    expect((await src.getConfigMap("default", "app")).data).toEqual({ mode: "fast" });
    expect((await src.getConfigMap("prod", "app")).data).toEqual({ mode: "x" });
    expect((await src.getSecret("default", "creds")).data).toEqual({ key: Buffer.from("hunter2").toString("base64") });
    const missing = await thrown(src.getConfigMap("default", "hidden"));
    expect(missing).toBeInstanceOf(ObjectNotFoundError);
    expect(missing.message).toBe('configmap "hidden" not found');
    expect(src.problems()).toEqual([`${join(dir, "old.yaml~")}: backup or editor file: not read`]);
    const tok = await thrown(src.getServiceAccountToken(pod("u", []), { serviceAccountName: "default", audience: "", expirationSeconds: 3600 }));
    expect(tok).toBeInstanceOf(ObjectSourceError);
    expect(tok.message).toBe(TOKENS_NEED_KUBECONFIG);
  });

  test("a half-written file is not acted on until it settles; then the change is told for what pods use", async () => {
    const { dir, clock, src, changes, fireWatch } = setup();
    const file = join(dir, "app.yaml");
    // Renamed into place: acted on at once.
    writeFileSync(file + ".part", cm("app", { v: "1" }) + "---\n" + cm("unused", { v: "1" }));
    // File times tick with the kernel's coarse clock (a few ms): wait one tick so the rename's ctime is after the write's mtime.
    await Bun.sleep(10);
    renameSync(file + ".part", file);
    await src.start();
    expect((await src.getConfigMap("default", "app")).data).toEqual({ v: "1" });
    src.registerPod(pod("u1", ["app"]));

    // Written in place, first half only: the old objects stay until it has been still for the window.
    writeFileSync(file, cm("app", { v: "2" }));
    fireWatch();
    await clock.advance(2);
    await src.scan();
    expect((await src.getConfigMap("default", "app")).data).toEqual({ v: "1" });
    expect(changes).toEqual([]);
    writeFileSync(file, cm("app", { v: "3" }) + "---\n" + cm("unused", { v: "3" }));
    fireWatch();
    await clock.advance(2);
    await src.scan();
    expect((await src.getConfigMap("default", "app")).data).toEqual({ v: "1" });
    await clock.advance(1000);
    await src.scan();
    expect((await src.getConfigMap("default", "app")).data).toEqual({ v: "3" });
    // Only the object a registered pod names is told.
    expect(changes).toEqual([{ kind: "ConfigMap", namespace: "default", name: "app" }]);
  });

  test("a bad file keeps its last good objects and is reported with file, line and field", async () => {
    const { dir, clock, src, changes } = setup({ old: true });
    const file = join(dir, "app.yaml");
    writeFileSync(file, cm("app", { v: "1" }));
    await src.start();
    src.registerPod(pod("u1", ["app"]));
    writeFileSync(file, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app}\ndata:\n  port: 5\n");
    await clock.advance(1000);
    await src.scan();
    expect((await src.getConfigMap("default", "app")).data).toEqual({ v: "1" });
    expect(src.problems()).toEqual([`${file}:5:9: data[port]: must be a string, not a number (quote it)`]);
    expect(changes).toEqual([]);
    // Fixed: served, and the problem is gone.
    writeFileSync(file, cm("app", { port: "5" }));
    await clock.advance(1000);
    await src.scan();
    expect((await src.getConfigMap("default", "app")).data).toEqual({ port: "5" });
    expect(src.problems()).toEqual([]);
    expect(changes.length).toBe(1);
  });

  test("a removed file's objects go after the window; the folder missing keeps everything and is reported", async () => {
    const { dir, clock, src } = setup({ old: true });
    writeFileSync(join(dir, "a.yaml"), cm("a", { v: "1" }));
    writeFileSync(join(dir, "b.yaml"), cm("b", { v: "1" }));
    await src.start();
    unlinkSync(join(dir, "a.yaml"));
    await src.scan();
    expect((await src.getConfigMap("default", "a")).data).toEqual({ v: "1" });
    await clock.advance(1000);
    await src.scan();
    expect(await thrown(src.getConfigMap("default", "a"))).toBeInstanceOf(ObjectNotFoundError);

    rmSync(dir, { recursive: true });
    await clock.advance(5000);
    await src.scan();
    expect((await src.getConfigMap("default", "b")).data).toEqual({ v: "1" });
    expect(src.problems()).toEqual([`--local-objects ${dir}: no such directory; the objects last read from it are kept`]);
  });

  test("the same object in two files: the first file serves it, the second is reported", async () => {
    const { dir, src } = setup({ old: true });
    writeFileSync(join(dir, "1.yaml"), cm("dup", { from: "1" }));
    writeFileSync(join(dir, "2.yaml"), cm("dup", { from: "2" }));
    await src.start();
    expect((await src.getConfigMap("default", "dup")).data).toEqual({ from: "1" });
    expect(src.problems()).toEqual([`${join(dir, "2.yaml")}: ConfigMap default/dup is also in ${join(dir, "1.yaml")}, which serves it`]);
  });

  test("a watch event rescans after the debounce; the periodic rescan catches what the watch missed", async () => {
    const { dir, clock, src, fireWatch } = setup({ old: true });
    await src.start();
    writeFileSync(join(dir, "a.yaml"), cm("a", { v: "1" }));
    fireWatch();
    await clock.advance(2);
    await src.scan(); // waits for the scan the event started
    expect((await src.getConfigMap("default", "a")).data).toEqual({ v: "1" });
    writeFileSync(join(dir, "b.yaml"), cm("b", { v: "1" }));
    await clock.advance(20_000);
    await src.scan();
    expect((await src.getConfigMap("default", "b")).data).toEqual({ v: "1" });
  });
});

describe("NoObjectSource", () => {
  test("every get says what the pod names and how to provide it", async () => {
    const src = new NoObjectSource();
    const e = await thrown(src.getConfigMap("default", "cfg"));
    expect(e).toBeInstanceOf(ObjectSourceError);
    expect(e.message).toBe(
      'the pod names configmap "cfg" (namespace default), an API object, and this agent runs without an API server: run it with --kubeconfig, or with --local-objects DIR holding a ConfigMap manifest named "cfg"',
    );
    expect((await thrown(src.getSecret("ns", "s"))).message).toContain('secret "s" (namespace ns)');
    const t = await thrown(src.getServiceAccountToken(pod("u", []), { serviceAccountName: "default", audience: "", expirationSeconds: 3600 }));
    expect(t.message).toBe(
      'the pod needs a token of serviceaccount "default" (namespace default), an API object, and this agent runs without an API server: run it with --kubeconfig',
    );
  });
});
