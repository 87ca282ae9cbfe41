// Issue 12 on the fake runtime: pod data never takes the agent's mkdir or rm -rf out of its folders,
// whatever UID a runtime label carries; and a push source whose state file cannot be read removes no
// running pod as an orphan.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent } from "../../src/agent/agent";
import { Backoff } from "../../src/agent/backoff";
import { CONTAINER_HASH, containerHash } from "../../src/agent/labels";
import { PodSyncer } from "../../src/agent/pod-sync";
import type { RuntimeConfigOptions } from "../../src/agent/runtime-config";
import { PodConfig, PushSource } from "../../src/config";
import { loadStaticPods } from "../../src/manifest/load";
import { Pleg } from "../../src/pleg/pleg";
import { FakeClock } from "../../src/util/clock";
import { createLogger, type LogFields, type Logger, textFields } from "../../src/util/log";
import { FakeRuntime } from "../fakes/runtime";
import { volumesFor } from "../fakes/volumes";
import { runAgent, pod } from "./fixtures";

const base = mkdtempSync(join(tmpdir(), "nodeagent-untrusted-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** A root with pods/ and logs/, and beside it a victim folder with a file that must survive. */
function layout(name: string): { dir: string; opts: RuntimeConfigOptions; victim: string; sentinel: string } {
  const dir = join(base, name);
  const root = join(dir, "root");
  mkdirSync(join(root, "pods"), { recursive: true });
  const victim = join(dir, "victim");
  mkdirSync(victim, { recursive: true });
  const sentinel = join(victim, "keep.txt");
  writeFileSync(sentinel, "keep");
  const opts = { podLogsRoot: join(root, "logs"), podsDir: join(root, "pods"), cgroupRoot: "nodeagent-unit-test", nodeName: "node-a", hostIP: "192.0.2.10" };
  return { dir, opts, victim, sentinel };
}

function recordingLog(): { log: Logger; warnings: string[] } {
  const warnings: string[] = [];
  const base = createLogger("text", -999);
  return { log: { ...base, warn: (m: string, f?: LogFields) => void warnings.push(m + textFields(f)) } as Logger, warnings };
}

describe("PodSyncer.removePod with a UID from runtime labels", () => {
  for (const uid of ["..", ".", "../../victim", "../victim", "/tmp", "a/../../victim", ""]) {
    test(`uid ${JSON.stringify(uid)}: the runtime objects go, no folder is touched, and it is said`, async () => {
      const { dir, opts, sentinel } = layout(`remove-${readdirSync(base).length}`);
      const clock = new FakeClock();
      const rt = new FakeRuntime(clock);
      const sb = rt.addSandbox({ uid, name: "left-over" });
      const c = rt.addContainer(sb, "app", "CONTAINER_EXITED");
      const { log, warnings } = recordingLog();
      const syncer = new PodSyncer({
        runtime: rt,
        clock,
        crashBackoff: new Backoff(clock),
        imageBackoff: new Backoff(clock),
        config: opts,
        log,
        volumes: volumesFor(opts, clock, log),
      });
      const st = await rt.podSandboxStatus(sb);
      await syncer.removePod(uid, {
        uid,
        name: "left-over",
        namespace: "default",
        ips: [],
        sandboxStatuses: [st.status],
        containerStatuses: [await rt.containerStatus(c)],
        timestamp: 0,
      } as never);
      expect(rt.sandboxes.has(sb)).toBe(false);
      expect(rt.containers.has(c)).toBe(false);
      expect(existsSync(sentinel)).toBe(true);
      expect(existsSync(opts.podsDir)).toBe(true);
      expect(readdirSync(dir).sort()).toEqual(["root", "victim"]);
      expect(warnings.some((w) => w.startsWith(`a pod's folders and cgroup are left alone${textFields({ uid })} err=`))).toBe(true);
    });
  }

  test("a valid UID whose folder is a link out of the root: the link goes, not what it points to", async () => {
    const { opts, victim, sentinel } = layout("remove-link");
    symlinkSync(victim, join(opts.podsDir, "u1"));
    const clock = new FakeClock();
    const syncer = new PodSyncer({
      runtime: new FakeRuntime(clock),
      clock,
      crashBackoff: new Backoff(clock),
      imageBackoff: new Backoff(clock),
      config: opts,
      log: createLogger("text", -999),
      volumes: volumesFor(opts, clock, createLogger("text", -999)),
    });
    await syncer.removePod("u1", undefined);
    expect(existsSync(join(opts.podsDir, "u1"))).toBe(false);
    expect(existsSync(sentinel)).toBe(true);
  });

  test("a valid UID: its folder under the root is removed", async () => {
    const { opts } = layout("remove-valid");
    mkdirSync(join(opts.podsDir, "u1", "volumes", "kubernetes.io~empty-dir", "data"), { recursive: true });
    const clock = new FakeClock();
    const syncer = new PodSyncer({
      runtime: new FakeRuntime(clock),
      clock,
      crashBackoff: new Backoff(clock),
      imageBackoff: new Backoff(clock),
      config: opts,
      log: createLogger("text", -999),
      volumes: volumesFor(opts, clock, createLogger("text", -999)),
    });
    await syncer.removePod("u1", undefined);
    expect(existsSync(join(opts.podsDir, "u1"))).toBe(false);
    expect(existsSync(opts.podsDir)).toBe(true);
  });
});

describe("PodSyncer.syncPod never makes folders outside its roots", () => {
  test("an emptyDir through a planted link out of the root: the pod waits (FailedMount), and nothing is made outside", async () => {
    const { opts, victim } = layout("sync-link");
    symlinkSync(victim, join(opts.podsDir, "uid-1"));
    const p = pod();
    p.spec!.volumes = [{ name: "work", emptyDir: {} }];
    const clock = new FakeClock();
    const rt = new FakeRuntime(clock);
    const syncer = new PodSyncer({
      runtime: rt,
      clock,
      crashBackoff: new Backoff(clock),
      imageBackoff: new Backoff(clock),
      config: opts,
      log: createLogger("text", -999),
      volumes: volumesFor(opts, clock, createLogger("text", -999)),
    });
    const r = await syncer.syncPod(p, undefined);
    expect(r.volumesNotReady?.reason).toBe("FailedMount");
    expect(r.waiting.get("app")?.message).toMatch(
      /^Unable to attach or mount volumes: unmounted volumes=\[work\], .*MountVolume.SetUp failed for volume "work" : .*is not inside/,
    );
    expect(readdirSync(victim)).toEqual(["keep.txt"]);
    expect(rt.callsOf("runPodSandbox")).toHaveLength(0);
  });

  test("a pod whose UID cannot name a folder is refused before any folder or sandbox is made", async () => {
    const { dir, opts } = layout("sync-bad-uid");
    const p = { ...pod(), metadata: { ...pod().metadata, uid: "../../escaped" } };
    const clock = new FakeClock();
    const rt = new FakeRuntime(clock);
    const syncer = new PodSyncer({
      runtime: rt,
      clock,
      crashBackoff: new Backoff(clock),
      imageBackoff: new Backoff(clock),
      config: opts,
      log: createLogger("text", -999),
      volumes: volumesFor(opts, clock, createLogger("text", -999)),
    });
    await expect(syncer.syncPod(p, undefined)).rejects.toThrow(/cannot name a folder/);
    expect(readdirSync(dir).sort()).toEqual(["root", "victim"]);
    expect(rt.callsOf("runPodSandbox")).toHaveLength(0);
  });
});

describe("Agent with a push state file that cannot be read", () => {
  test("the pushed pods' containers are not removed as orphans; once the file is fixed they are adopted", async () => {
    const { dir, opts } = layout("agent-corrupt");
    const file = join(dir, "pushed-pods.json");
    const log = createLogger("text", -999);
    // An earlier run pushed a pod: the state file holds it and the runtime runs it under its UID.
    const earlier = new PushSource({ nodeName: "node-a", loader: loadStaticPods, log, stateFile: file });
    earlier.start(() => {});
    const pushed = earlier.add({ apiVersion: "v1", kind: "Pod", metadata: { name: "kept" }, spec: { containers: [{ name: "app", image: "busybox" }] } });
    if (!pushed.ok) throw new Error(pushed.message);
    const uid = pushed.pod.metadata!.uid!;
    const good = Bun.file(file);
    const goodText = await good.text();
    writeFileSync(file, "{ corrupt");

    const clock = new FakeClock();
    const rt = new FakeRuntime(clock);
    const sb = rt.addSandbox({ uid, name: "kept" });
    const c = rt.addContainer(sb, "app");
    // As the agent that started it labelled it: the same spec, so adoption keeps it as it is.
    rt.containers.get(c)!.annotations[CONTAINER_HASH] = containerHash(pushed.pod.spec!.containers[0]!);
    const pleg = new Pleg(rt, clock, { mode: "generic" });
    const config = new PodConfig({ clock, log });
    const push = new PushSource({ nodeName: "node-a", loader: loadStaticPods, log, stateFile: file });
    const agent = new Agent({ runtime: rt, pleg, config, sources: [push], clock, log, runtimeConfig: opts, node: async () => ({}) });
    const { settle, stop } = runAgent(agent, clock);
    for (let i = 0; i < 5; i++) {
      await clock.advance(2000);
      await settle();
    }
    expect(config.seenAllSources(["push"])).toBe(false);
    expect(rt.sandboxes.has(sb)).toBe(true);
    expect(rt.containers.get(c)?.state).toBe("CONTAINER_RUNNING");
    expect(push.problems()).toHaveLength(1);

    // Fixed by the operator: the next push reads it, the kept pod is adopted as it runs.
    writeFileSync(file, goodText);
    expect(push.add({ apiVersion: "v1", kind: "Pod", metadata: { name: "second" }, spec: { containers: [{ name: "app", image: "busybox" }] } }).ok).toBe(true);
    await clock.advance(2000);
    await settle();
    expect(config.seenAllSources(["push"])).toBe(true);
    expect(rt.containers.get(c)?.state).toBe("CONTAINER_RUNNING");
    expect(agent.pods().find((p) => p.metadata?.name === "kept")?.metadata?.uid).toBe(uid);
    await stop();
  });
});
