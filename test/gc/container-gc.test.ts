import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ALL_LEVELS, linesLog } from "../fakes/recording-log";
import {
  CONTAINER_GC_PERIOD_MS,
  ContainerGC,
  DEFAULT_CONTAINER_GC_POLICY,
  parsePodLogsDirectoryName,
  planContainerEviction,
  podUIDFromLogsDirectory,
  type ContainerGCPolicy,
  type DeadContainer,
  type EvictUnits,
} from "../../src/gc/container-gc";
import { FakeClock } from "../../src/util/clock";
import { FakeRuntime } from "../fakes/runtime";

const root = mkdtempSync(join(tmpdir(), "container-gc-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let seq = 0;

/** The agent as container GC sees it: which pods are known, terminated, removed. */
class FakePods {
  sourcesReady = true;
  /** UIDs the workers know, with whether each has terminated and whether its source removed it. */
  known = new Map<string, { terminated: boolean; removed: boolean }>();
  allSourcesReady = () => this.sourcesReady;
  shouldPodContentBeRemoved = (uid: string) => {
    const p = this.known.get(uid);
    return p ? p.terminated && p.removed : this.sourcesReady;
  };
  shouldPodRuntimeBeRemoved = (uid: string) => {
    const p = this.known.get(uid);
    return p ? p.terminated : this.sourcesReady;
  };
}

function setup(policy: Partial<ContainerGCPolicy> = {}) {
  const clock = new FakeClock();
  const rt = new FakeRuntime(clock);
  const pods = new FakePods();
  const logs = join(root, `logs-${++seq}`);
  mkdirSync(logs);
  const { log, lines } = linesLog(ALL_LEVELS);
  const gc = new ContainerGC({ runtime: rt, pods, policy: { ...DEFAULT_CONTAINER_GC_POLICY, ...policy }, podLogsRoot: logs, clock, log });
  /** A pod the workers know and run, with a ready sandbox. */
  const live = (name: string) => {
    const uid = `uid-${name}`;
    pods.known.set(uid, { terminated: false, removed: false });
    return { uid, sb: rt.addSandbox({ uid, name }) };
  };
  const dead = (sb: string, name: string) => rt.addContainer(sb, name, "CONTAINER_EXITED");
  // The fake dates a container a microsecond after the clock's now: a collection is a moment later.
  const collect = async () => {
    await clock.advance(1);
    await gc.garbageCollect();
  };
  return { clock, rt, pods, gc, logs, lines, live, dead, collect };
}

const ids = (rt: FakeRuntime) => [...rt.containers.keys()].sort();

describe("container GC: dead containers", () => {
  test("MaxPerPodContainer 1 (the default): the newest dead instance of each container stays, running ones are never touched", async () => {
    const { rt, collect, live, dead, lines } = setup();
    const { sb } = live("web");
    const app1 = dead(sb, "app");
    const app2 = dead(sb, "app");
    const app3 = dead(sb, "app");
    const appNow = rt.addContainer(sb, "app");
    const init1 = dead(sb, "init");
    const init2 = dead(sb, "init");
    const side = rt.addContainer(sb, "side");
    await collect();
    expect(ids(rt)).toEqual([app3, appNow, init2, side].sort());
    expect(rt.callsOf("removeContainer").sort()).toEqual([app1, app2, init1].sort());
    // Each removal said with the container's name and short ID.
    expect(lines.filter((l) => l.includes("removed dead container")).sort()).toEqual(
      [
        ["app", app1],
        ["app", app2],
        ["init", init1],
      ]
        .map(([name, id]) => `info container GC: removed dead container container=${name} id=${id!.slice(0, 12)}`)
        .sort(),
    );
  });

  test("MaxPerPodContainer −1 keeps every dead instance; 2 keeps the newest two", async () => {
    for (const [max, kept] of [
      [-1, 3],
      [2, 2],
    ] as const) {
      const { rt, collect, live, dead } = setup({ maxPerPodContainer: max });
      const { sb } = live("web");
      const all = [dead(sb, "app"), dead(sb, "app"), dead(sb, "app")];
      await collect();
      expect(ids(rt)).toEqual(all.slice(3 - kept).sort());
    }
  });

  test("MinAge: a dead container created less than minimum-container-ttl-duration ago stays", async () => {
    const { rt, collect, live, dead, clock } = setup({ minAgeMs: 60_000 });
    const { sb } = live("web");
    const old = dead(sb, "app");
    await clock.advance(30_000);
    const mid = dead(sb, "app");
    const young = dead(sb, "app");
    await clock.advance(31_000);
    // old is 61 s old: evictable, and the only evictable one of its unit, so the newest kept: it stays too.
    await collect();
    expect(ids(rt)).toEqual([old, mid, young].sort());
    await clock.advance(30_000);
    // Now all three are over a minute old: the newest stays.
    await collect();
    expect(ids(rt)).toEqual([young]);
  });

  test("a removed pod's dead containers all go once every source has been seen; before that, as any pod's", async () => {
    const { rt, collect, pods, dead } = setup();
    const sb = rt.addSandbox({ uid: "gone", name: "gone" }, false);
    dead(sb, "app");
    const newest = dead(sb, "app");
    pods.sourcesReady = false;
    await collect();
    expect(ids(rt)).toEqual([newest]);
    pods.sourcesReady = true;
    await collect();
    expect(ids(rt)).toEqual([]);
    // And its sandbox, inactive once its containers are gone.
    expect(rt.sandboxes.size).toBe(0);
  });

  test("a pod that terminated but is still listed keeps its last dead containers (its status shows them)", async () => {
    const { rt, gc, collect, pods, live, dead } = setup();
    const { uid, sb } = live("done");
    pods.known.set(uid, { terminated: true, removed: false });
    dead(sb, "app");
    const last = dead(sb, "app");
    rt.stopSandbox(sb);
    await collect();
    expect(ids(rt)).toEqual([last]);
    expect(rt.sandboxes.has(sb)).toBe(true);
    // The eviction manager's reclaim takes a terminated pod's too (evictNonDeletedPods).
    await gc.deleteAllUnusedContainers();
    expect(ids(rt)).toEqual([]);
    expect(rt.sandboxes.size).toBe(0);
  });

  test("containers without the kubelet's pod labels (another CRI client's) are never collected", async () => {
    const { rt, collect, live, dead } = setup();
    const { sb } = live("web");
    const a = dead(sb, "app");
    const b = dead(sb, "app");
    rt.containers.get(a)!.labels = {};
    await collect();
    expect(ids(rt)).toEqual([a, b].sort());
  });

  test("a dead container's logs (the live file and the rotated ones) go before it; a log outside --pod-logs-dir is left alone", async () => {
    const { rt, collect, live, dead, logs } = setup();
    const { sb } = live("web");
    const old = dead(sb, "app");
    const older = dead(sb, "side");
    dead(sb, "app");
    dead(sb, "side");
    const dir = join(logs, "default_web_uid-web", "app");
    mkdirSync(dir, { recursive: true });
    for (const f of ["0.log", "0.log.20240101-120000.gz", "0.log.20240101-120500", "1.log", "10.log"]) writeFileSync(join(dir, f), "x");
    rt.logPaths.set(old, join(dir, "0.log"));
    const outside = join(root, `outside-${seq}.log`);
    writeFileSync(outside, "x");
    rt.logPaths.set(older, outside);
    await collect();
    expect(existsSync(join(dir, "0.log"))).toBe(false);
    expect(existsSync(join(dir, "0.log.20240101-120000.gz"))).toBe(false);
    expect(existsSync(join(dir, "0.log.20240101-120500"))).toBe(false);
    expect(existsSync(join(dir, "1.log"))).toBe(true);
    expect(existsSync(join(dir, "10.log"))).toBe(true);
    expect(existsSync(outside)).toBe(true);
    // Both containers are removed either way.
    expect(rt.containers.has(old)).toBe(false);
    expect(rt.containers.has(older)).toBe(false);
  });

  test("a container in an unknown state is stopped before it is removed", async () => {
    const { rt, collect, live, dead } = setup();
    const { sb } = live("web");
    const unknown = rt.addContainer(sb, "app", "CONTAINER_UNKNOWN");
    dead(sb, "app");
    await collect();
    expect(rt.callsOf("stopContainer")).toEqual([{ id: unknown, timeoutSeconds: 0 }]);
    expect(rt.containers.has(unknown)).toBe(false);
  });
});

describe("container GC: MaxContainers across the node", () => {
  const unit = (uid: string, name: string, created: number[]): [string, { uid: string; containers: DeadContainer[] }] => [
    `${uid}/${name}`,
    { uid, containers: created.map((t) => ({ id: `${name}@${t}`, name, createdAt: t, unknown: false })).sort((a, b) => b.createdAt - a.createdAt) },
  ];
  const plan = (units: EvictUnits, p: Partial<ContainerGCPolicy>) =>
    planContainerEviction(units, { ...DEFAULT_CONTAINER_GC_POLICY, ...p }, true, () => false)
      .containers.map((c) => c.id)
      .sort();

  test("an equal share per unit first, then the oldest across units", () => {
    const units: EvictUnits = new Map([unit("p", "a", [1, 5, 9]), unit("p", "b", [2, 6]), unit("q", "c", [3, 7, 8])]);
    // 8 dead, at most 6: 6 / 3 units = 2 each → a@1 and c@3 go, and then 6 are left.
    expect(plan(units, { maxPerPodContainer: -1, maxContainers: 6 })).toEqual(["a@1", "c@3"]);
    // At most 2: the share is at least 1 → a@9, b@6, c@8 stay, then the oldest of those (b@6) goes.
    expect(plan(units, { maxPerPodContainer: -1, maxContainers: 2 })).toEqual(["a@1", "a@5", "b@2", "b@6", "c@3", "c@7"]);
    // At most 0: nothing stays.
    expect(plan(units, { maxPerPodContainer: -1, maxContainers: 0 })).toHaveLength(8);
    // −1: no limit.
    expect(plan(units, { maxPerPodContainer: -1, maxContainers: -1 })).toEqual([]);
  });

  test("MaxPerPodContainer applies before MaxContainers", () => {
    const units: EvictUnits = new Map([unit("p", "a", [1, 5, 9]), unit("p", "b", [2, 6])]);
    expect(plan(units, { maxPerPodContainer: 1, maxContainers: 1 })).toEqual(["a@1", "a@5", "b@2", "b@6"]);
  });
});

describe("container GC: sandboxes and log folders", () => {
  test("of a live pod the newest sandbox stays (even dead); older dead ones go unless a container is still in them", async () => {
    const { rt, collect, live, dead, lines } = setup();
    const { uid } = live("web");
    const first = rt.addSandbox({ uid, name: "web" }, false);
    const second = rt.addSandbox({ uid, name: "web" }, false);
    const keptByContainer = dead(second, "app");
    const newest = rt.addSandbox({ uid, name: "web" }, false);
    await collect();
    // The pod's original ready sandbox stays (active), first goes, second stays for its container.
    expect(rt.sandboxes.has(first)).toBe(false);
    expect(rt.sandboxes.has(second)).toBe(true);
    expect(rt.sandboxes.has(newest)).toBe(true);
    expect(rt.containers.has(keptByContainer)).toBe(true);
    expect(lines.filter((l) => l.includes("removed sandbox"))).toEqual([`info container GC: removed sandbox sandbox=${first.slice(0, 12)} pod=default/web`]);
  });

  test("the log folders of pods that are gone go once every source has been seen; others stay", async () => {
    const { collect, pods, logs, live } = setup();
    live("web");
    pods.known.set("uid-removed", { terminated: true, removed: true });
    for (const d of ["default_web_uid-web", "default_gone_uid-gone", "kube-system_x_uid-removed", "default_dying_uid-dying"]) mkdirSync(join(logs, d));
    pods.known.set("uid-dying", { terminated: false, removed: true });
    pods.sourcesReady = false;
    await collect();
    expect(existsSync(join(logs, "default_gone_uid-gone"))).toBe(true);
    pods.sourcesReady = true;
    await collect();
    expect(existsSync(join(logs, "default_web_uid-web"))).toBe(true);
    expect(existsSync(join(logs, "default_dying_uid-dying"))).toBe(true);
    expect(existsSync(join(logs, "default_gone_uid-gone"))).toBe(false);
    expect(existsSync(join(logs, "kube-system_x_uid-removed"))).toBe(false);
  });

  test("only folders named <namespace>_<name>_<uid>, each part valid, are the agent's: others stay, each reported once", async () => {
    const { collect, pods, logs, lines } = setup();
    // Issue 24: with --pod-logs-dir /etc every folder of /etc went ("ssh" was a "UID" no pod had).
    const strangers = [
      "ssh",
      "a_b",
      "ns_name_NotAUid",
      "kube-system_x_y_uid-removed",
      "Default_web_uid-1",
      "default_web..x_uid-1",
      "default__uid-1",
      "default_web_",
      "_web_uid-1",
    ];
    for (const d of strangers) {
      mkdirSync(join(logs, d, "sub"), { recursive: true });
      writeFileSync(join(logs, d, "sub", "keep"), d);
    }
    pods.known.set("uid-removed", { terminated: true, removed: true });
    mkdirSync(join(logs, "default_gone_7c9e6679-7425-40de-944b-e07fc1f90ae7"));
    for (let i = 0; i < 3; i++) await collect();
    expect(existsSync(join(logs, "default_gone_7c9e6679-7425-40de-944b-e07fc1f90ae7"))).toBe(false);
    for (const d of strangers) {
      expect(existsSync(join(logs, d, "sub", "keep"))).toBe(true);
      expect(
        lines.filter(
          (l) => l.startsWith("warn container GC: leaving a folder alone: not a pod's log folder ") && l.includes(` path=${join(logs, d)} problem=`),
        ),
      ).toHaveLength(1);
    }
    // One that goes away and comes back is reported again; a name with a newline cannot forge a line.
    rmSync(join(logs, "ssh"), { recursive: true });
    await collect();
    mkdirSync(join(logs, "ssh"));
    mkdirSync(join(logs, "x\ny"));
    await collect();
    expect(lines.filter((l) => l.includes(` path=${join(logs, "ssh")} problem=`))).toHaveLength(2);
    expect(lines.filter((l) => l.includes(` path=${JSON.stringify(join(logs, "x\ny"))} problem=`))).toHaveLength(1);
    expect(lines.filter((l) => l.includes("\n"))).toEqual([]);
    expect(existsSync(join(logs, "x\ny"))).toBe(true);
  });

  test("a log folder's name taken apart: namespace a DNS-1123 label, name a subdomain, UID as the agent accepts one", () => {
    expect(parsePodLogsDirectoryName("default_web-e2e-node_0d9e6679-7425-40de-944b-e07fc1f90ae7")).toEqual({
      namespace: "default",
      name: "web-e2e-node",
      uid: "0d9e6679-7425-40de-944b-e07fc1f90ae7",
    });
    expect(parsePodLogsDirectoryName("kube-system_etcd.v1_8b1a9953c4611296a827abf8c47804d7")).toEqual({
      namespace: "kube-system",
      name: "etcd.v1",
      uid: "8b1a9953c4611296a827abf8c47804d7",
    });
    expect(parsePodLogsDirectoryName("ssh")).toEqual({ problem: "not <namespace>_<name>_<uid> (0 underscores)" });
    expect(parsePodLogsDirectoryName("a_b")).toEqual({ problem: "not <namespace>_<name>_<uid> (1 underscores)" });
    expect(parsePodLogsDirectoryName("ns_name_NotAUid")).toMatchObject({
      problem: expect.stringContaining(`the UID "NotAUid" must consist of lowercase letters`),
    });
    expect(parsePodLogsDirectoryName("a.b_name_uid")).toEqual({ problem: `the namespace "a.b" is not a DNS-1123 label` });
    expect(parsePodLogsDirectoryName("ns_Name_uid")).toEqual({ problem: `the name "Name" is not a DNS-1123 subdomain` });
    expect(parsePodLogsDirectoryName(`ns_name_${"a".repeat(129)}`)).toMatchObject({ problem: expect.stringContaining("at most 128 characters") });
  });

  test("the pod UID of a log folder is what follows its last underscore", () => {
    expect(podUIDFromLogsDirectory("default_web_0d9e-11")).toBe("0d9e-11");
    expect(podUIDFromLogsDirectory("ns_name_with_underscores_uid")).toBe("uid");
  });
});

test("the loop: the first collection one period (1 min) after the start, then every period", async () => {
  const { rt, gc, live, dead, clock } = setup();
  expect(gc.periodMs).toBe(CONTAINER_GC_PERIOD_MS);
  const { sb } = live("web");
  dead(sb, "app");
  dead(sb, "app");
  const ac = new AbortController();
  const done = gc.run(ac.signal);
  await clock.advance(CONTAINER_GC_PERIOD_MS - 1);
  expect(rt.containers.size).toBe(2);
  await clock.advance(1);
  expect(rt.containers.size).toBe(1);
  dead(sb, "app");
  await clock.advance(CONTAINER_GC_PERIOD_MS);
  expect(rt.containers.size).toBe(1);
  ac.abort();
  await done;
});
