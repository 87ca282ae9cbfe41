import { describe, expect, test } from "bun:test";
import type { Container, Pod } from "kubernetes-types/core/v1";
import { ContainerManager, flatPodCgroupParent, type ContainerManagerOptions } from "../../src/cm/container-manager";
import { PathEscapeError } from "../../src/util/confined-path";
import { ConfigError } from "../../src/util/errors";
import { FakeCgroupManager } from "../fakes/cgroups";
import { CgroupBusyError } from "../../src/cm/cgroup-manager";
import { ORPHAN_RETRY_INITIAL_MS, ORPHAN_RETRY_MAX_MS } from "../../src/cm/container-manager";
import { FakeClock } from "../../src/util/clock";
import { textFields } from "../../src/util/log";

const GiB = 2 ** 30;
const c = (requests?: Record<string, string>, limits?: Record<string, string>): Container => ({
  name: "main",
  resources: { ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) },
});
const podOf = (uid: string, container: Container): Pod => ({ metadata: { name: uid, namespace: "default", uid }, spec: { containers: [container] } });
const guaranteed = podOf("g-1", c(undefined, { cpu: "250m", memory: "64Mi" }));
const burstable = podOf("b-1", c({ cpu: "300m" }));
const burstable2 = podOf("b-2", c({ cpu: "200m", memory: "1Gi" }));
const bestEffort = podOf("e-1", c());

function manager(over: Partial<ContainerManagerOptions> = {}, cgroups = new FakeCgroupManager()) {
  const active: Pod[] = [];
  const logs: string[] = [];
  const cm = new ContainerManager({
    cgroupRoot: "/na",
    cgroupsPerQOS: true,
    cgroups,
    allocatable: {
      capacity: { milliCpu: 4000, memoryBytes: 16 * GiB },
      kubeReserved: { milliCpu: 500, memoryBytes: GiB },
      systemReserved: { milliCpu: 500 },
      enforce: ["pods"],
    },
    activePods: () => active,
    log: { info: (m, f) => logs.push(`info: ${m}${textFields(f)}`), warn: (m, f) => logs.push(`warn: ${m}${textFields(f)}`) },
    systemdRunning: () => true,
    ...over,
  });
  return { cm, cgroups, active, logs };
}

describe("the node's cgroups at start (setupNode)", () => {
  test("kubepods at capacity − kube-reserved − system-reserved with --enforce-node-allocatable=pods, then the QoS cgroups", () => {
    const { cm, cgroups } = manager();
    cm.start();
    expect(cgroups.calls.map((x) => `${x.op} ${x.name}`)).toEqual(["create /na/kubepods", "create /na/kubepods/besteffort", "create /na/kubepods/burstable"]);
    expect(cgroups.cgroups.get("/na/kubepods")).toEqual({ cpuShares: 3072, memoryLimitBytes: 15 * GiB });
    expect(cgroups.cgroups.get("/na/kubepods/besteffort")).toEqual({ cpuShares: 2 });
    expect(cgroups.cgroups.get("/na/kubepods/burstable")).toEqual({ cpuShares: 2 });
    expect(cm.podsCgroup).toBe("/na/kubepods");
  });

  test("without enforcement kubepods gets the capacity; a kubepods that exists is updated, not made again", () => {
    const cgroups = new FakeCgroupManager();
    cgroups.create(["na", "kubepods"], { cpuShares: 2 });
    const { cm } = manager(
      { allocatable: { capacity: { milliCpu: 4000, memoryBytes: 16 * GiB }, kubeReserved: { milliCpu: 500 }, systemReserved: {}, enforce: [] } },
      cgroups,
    );
    cm.start();
    expect(cgroups.calls[1]).toEqual({ op: "update", name: "/na/kubepods", config: { cpuShares: 4096, memoryLimitBytes: 16 * GiB } });
  });

  test("system-reserved and kube-reserved enforced on the cgroups named, which must exist", () => {
    const cgroups = new FakeCgroupManager("systemd");
    cgroups.create(["system"], {});
    const allocatable = {
      capacity: { milliCpu: 4000, memoryBytes: 16 * GiB },
      kubeReserved: { memoryBytes: GiB },
      systemReserved: { milliCpu: 500, memoryBytes: 2 * GiB },
      enforce: ["pods", "system-reserved", "kube-reserved"] as const,
      systemReservedCgroup: "/system.slice",
      kubeReservedCgroup: "/kube.slice",
    };
    const { cm } = manager({ allocatable: { ...allocatable, enforce: [...allocatable.enforce] } }, cgroups);
    expect(() => cm.start()).toThrow(`Failed to enforce Kube Reserved Cgroup Limits on "/kube.slice": "/kube.slice" cgroup does not exist`);
    expect(cgroups.cgroups.get("/system.slice")).toEqual({ cpuShares: 512, memoryLimitBytes: 2 * GiB });
    cgroups.create(["kube"], {});
    cm.start();
    expect(cgroups.cgroups.get("/kube.slice")).toEqual({ memoryLimitBytes: GiB });
    expect(cgroups.cgroups.get("/na.slice/na-kubepods.slice")).toEqual({ cpuShares: 3584, memoryLimitBytes: 13 * GiB });
  });

  test("the systemd driver without systemd is a ConfigError and nothing is made", () => {
    const cgroups = new FakeCgroupManager("systemd");
    const { cm } = manager({ systemdRunning: () => false }, cgroups);
    expect(() => cm.start()).toThrow(ConfigError);
    expect(cgroups.calls).toEqual([]);
  });

  test("a kubepods limit that cannot be lowered is logged (FailedNodeAllocatableEnforcement) and tried again at the next pod", () => {
    const cgroups = new FakeCgroupManager();
    cgroups.create(["na", "kubepods"], {});
    cgroups.failWith("update", "/na/kubepods", new Error("device or resource busy"));
    const { cm, logs } = manager({}, cgroups);
    cm.start();
    expect(logs.filter((l) => l.startsWith("warn"))).toEqual([
      'warn: FailedNodeAllocatableEnforcement: Failed to update Node Allocatable Limits cgroup=/na/kubepods err="device or resource busy"',
    ]);
    cm.ensure(guaranteed);
    expect(cgroups.cgroups.get("/na/kubepods")).toEqual({ cpuShares: 3072, memoryLimitBytes: 15 * GiB });
    expect(logs).toContain("info: NodeAllocatableEnforced: Updated Node Allocatable limit across pods");
  });

  test("the Node's events: NodeAllocatableEnforced at start; FailedNodeAllocatableEnforcement once, then NodeAllocatableEnforced when it works", () => {
    const events: string[] = [];
    const record = (type: string, reason: string, message: string) => void events.push(`${type} ${reason}: ${message}`);
    manager({ events: record }).cm.start();
    expect(events).toEqual(["Normal NodeAllocatableEnforced: Updated Node Allocatable limit across pods"]);

    events.length = 0;
    const cgroups = new FakeCgroupManager();
    cgroups.create(["na", "kubepods"], {});
    cgroups.failWith("update", "/na/kubepods", new Error("device or resource busy"));
    const { cm } = manager({ events: record }, cgroups);
    cm.start();
    cm.ensure(guaranteed);
    expect(events).toEqual([
      'Warning FailedNodeAllocatableEnforcement: Failed to update Node Allocatable Limits "/na/kubepods": device or resource busy',
      "Normal NodeAllocatableEnforced: Updated Node Allocatable limit across pods",
    ]);
  });
});

describe("pod cgroups", () => {
  test("each QoS class's pods below its cgroup, made with ResourceConfigForPod's values, in the driver's spelling", () => {
    const { cm, cgroups, active } = manager();
    cm.start();
    expect(cm.parent(guaranteed)).toBe("/na/kubepods/podg-1");
    expect(cm.parent(burstable)).toBe("/na/kubepods/burstable/podb-1");
    expect(cm.parent(bestEffort)).toBe("/na/kubepods/besteffort/pode-1");
    active.push(guaranteed, burstable, bestEffort);
    for (const p of active) cm.ensure(p);
    expect(cgroups.cgroups.get("/na/kubepods/podg-1")).toEqual({ cpuShares: 256, cpuQuota: 25_000, cpuPeriod: 100_000, memoryLimitBytes: 64 * 2 ** 20 });
    expect(cgroups.cgroups.get("/na/kubepods/burstable/podb-1")).toEqual({ cpuShares: 307 });
    expect(cgroups.cgroups.get("/na/kubepods/besteffort/pode-1")).toEqual({ cpuShares: 2 });
    expect(cgroups.cgroups.get("/na/kubepods/burstable")).toEqual({ cpuShares: 307 });

    const systemd = manager({}, new FakeCgroupManager("systemd")).cm;
    expect(systemd.parent(burstable)).toBe("/na.slice/na-kubepods.slice/na-kubepods-burstable.slice/na-kubepods-burstable-podb_1.slice");
    expect(systemd.parent(guaranteed)).toBe("/na.slice/na-kubepods.slice/na-kubepods-podg_1.slice");
  });

  test("the burstable shares follow the Burstable pods as they come and go; an existing pod cgroup is left as it is", () => {
    const { cm, cgroups, active } = manager();
    cm.start();
    active.push(burstable);
    cm.ensure(burstable);
    active.push(burstable2);
    cm.ensure(burstable2);
    expect(cgroups.cgroups.get("/na/kubepods/burstable")).toEqual({ cpuShares: 512 });
    const before = cgroups.calls.length;
    cm.ensure(burstable2);
    expect(cgroups.calls.length).toBe(before);
    active.splice(0, 1);
    cm.remove("b-1");
    expect(cgroups.cgroups.has("/na/kubepods/burstable/podb-1")).toBe(false);
    expect(cgroups.cgroups.get("/na/kubepods/burstable")).toEqual({ cpuShares: 204 });
    // Removed in every place a pod of that UID could have been, and in the flat layout's.
    expect(cgroups.calls.filter((x) => x.op === "destroy").map((x) => x.name)).toEqual([
      "/na/podb-1",
      "/na/kubepods/podb-1",
      "/na/kubepods/burstable/podb-1",
      "/na/kubepods/besteffort/podb-1",
    ]);
  });

  test("a QoS cgroup removed behind the agent's back is made again at the next pod; a failed QoS update is only logged", () => {
    const { cm, cgroups, active, logs } = manager();
    cm.start();
    cgroups.destroy(["na", "kubepods", "burstable"]);
    active.push(burstable);
    cm.ensure(burstable);
    expect(cgroups.cgroups.get("/na/kubepods/burstable")).toEqual({ cpuShares: 307 });
    cgroups.failWith("update", "/na/kubepods/besteffort", new Error("permission denied"));
    cm.ensure(bestEffort);
    expect(cgroups.cgroups.has("/na/kubepods/besteffort/pode-1")).toBe(true);
    expect(logs).toContain('warn: cgroups: failed to update QoS cgroups while syncing pod uid=e-1 err="permission denied"');
  });

  test("housekeeping removes the pod cgroups of pods nothing knows, in either driver's spelling, and nothing else", () => {
    for (const driver of ["cgroupfs", "systemd"] as const) {
      const { cm, cgroups, active, logs } = manager({}, new FakeCgroupManager(driver));
      cm.start();
      active.push(guaranteed, burstable, bestEffort);
      for (const p of active) cm.ensure(p);
      cgroups.create(["na", "kubepods", "burstable", "podgone-1"], { cpuShares: 1024 });
      cgroups.create(["na", "kubepods", "podgone-2"], {});
      cgroups.create(["na", "kubepods", "someone-elses"], {});
      const before = new Set(cgroups.cgroups.keys());
      cm.housekeeping(new Set(["g-1", "b-1", "e-1"]));
      const gone = [...before].filter((k) => !cgroups.cgroups.has(k)).sort();
      expect(gone).toEqual([cgroups.name(["na", "kubepods", "burstable", "podgone-1"]), cgroups.name(["na", "kubepods", "podgone-2"])].sort());
      expect(logs).toContain(`info: cgroups: removing the cgroup of a pod that is gone cgroup=${cgroups.name(["na", "kubepods", "podgone-2"])}`);
      expect(cgroups.cgroups.get(cgroups.name(["na", "kubepods", "burstable"]))).toEqual({ cpuShares: 307 });
    }
  });

  test("an orphan with sub-cgroups and processes left below it: reported once, untouched while a process is left, retried with exponential backoff, then removed bottom-up with its children", async () => {
    const clock = new FakeClock(0);
    const { cm, cgroups, logs } = manager({ clock });
    cm.start();
    const orphan = ["na", "kubepods", "besteffort", "podgone-1"];
    const key = cgroups.name(orphan);
    cgroups.create([...orphan, "sandbox"], {});
    cgroups.create([...orphan, "sandbox", "c1"], {});
    cgroups.procs.set(`${key}/sandbox/c1`, 1);
    const attempts: number[] = [];
    const processes = cgroups.processes.bind(cgroups);
    cgroups.processes = (n) => (attempts.push(clock.now()), processes(n));
    // Housekeeping every 2 s for 10 minutes with the process left.
    for (let t = 0; t <= 600_000; t += 2_000) {
      await clock.advance(t - clock.now());
      cm.housekeeping(new Set());
    }
    expect(cgroups.cgroups.has(key)).toBe(true);
    expect(cgroups.calls.filter((x) => x.op === "destroy")).toEqual([]);
    // Tried at 0, then 2, 4, 8, … s after each failure, capped at ORPHAN_RETRY_MAX_MS: not every pass.
    const gaps = attempts.slice(1).map((t, i) => t - attempts[i]!);
    expect(gaps.slice(0, 5)).toEqual([2_000, 4_000, 8_000, 16_000, 32_000]);
    expect(Math.max(...gaps)).toBe(ORPHAN_RETRY_MAX_MS);
    expect(attempts.length).toBeLessThan(15);
    // Said once: found, and why it cannot go yet.
    expect(logs.filter((l) => l.includes(key))).toEqual([
      `info: cgroups: removing the cgroup of a pod that is gone cgroup=${key}`,
      `warn: cgroups: cgroup of a gone pod cannot be removed yet; retrying with backoff cgroup=${key} reason="1 process(es) left in it or below it" maxInterval=${ORPHAN_RETRY_MAX_MS / 1000}s`,
    ]);
    // The process exits: at the next attempt the whole subtree goes, and that is said once.
    cgroups.procs.clear();
    for (let i = 0; i < 100; i++) {
      await clock.advance(2_000);
      cm.housekeeping(new Set());
    }
    expect([...cgroups.cgroups.keys()].filter((k) => k.startsWith(key))).toEqual([]);
    expect(logs.filter((l) => l.includes(key)).length).toBe(3);
    expect(logs.at(-1)).toMatch(new RegExp(`^info: cgroups: removed the cgroup of a pod that is gone cgroup=${key.replace(/[/.]/g, "\\$&")} attempts=\\d+$`));
  });

  test("a cgroup rmdir refuses (EBUSY) is retried after ORPHAN_RETRY_INITIAL_MS, not at every pass, and logged once", async () => {
    const clock = new FakeClock(0);
    const { cm, cgroups, logs } = manager({ clock });
    cm.start();
    const key = cgroups.name(["na", "kubepods", "podgone-2"]);
    cgroups.create(["na", "kubepods", "podgone-2"], {});
    cgroups.failWith("destroy", key, new CgroupBusyError(`${key}: EBUSY: resource busy or locked, rmdir`));
    cm.housekeeping(new Set());
    await clock.advance(ORPHAN_RETRY_INITIAL_MS - 1);
    cm.housekeeping(new Set());
    expect(cgroups.calls.filter((x) => x.op === "destroy").length).toBe(0);
    expect(cgroups.cgroups.has(key)).toBe(true);
    await clock.advance(1);
    cm.housekeeping(new Set());
    expect(cgroups.cgroups.has(key)).toBe(false);
    expect(logs.filter((l) => l.includes(key))).toEqual([
      `info: cgroups: removing the cgroup of a pod that is gone cgroup=${key}`,
      `warn: cgroups: cgroup of a gone pod cannot be removed yet; retrying with backoff cgroup=${key} reason="${key}: EBUSY: resource busy or locked, rmdir" maxInterval=${ORPHAN_RETRY_MAX_MS / 1000}s`,
      `info: cgroups: removed the cgroup of a pod that is gone cgroup=${key} attempts=2`,
    ]);
  });

  test("housekeeping sets the burstable shares from pods adopted after a restart, and writes nothing while they hold", () => {
    const cgroups = new FakeCgroupManager();
    cgroups.create(["na", "kubepods", "burstable", "podb-1"], { cpuShares: 307 });
    const { cm, active } = manager({}, cgroups);
    cm.start();
    expect(cgroups.cgroups.get("/na/kubepods/burstable")).toEqual({ cpuShares: 2 });
    // The agent adopts the running pod: its cgroup exists, so its sync makes nothing.
    active.push(burstable);
    cm.ensure(burstable);
    cm.housekeeping(new Set(["b-1"]));
    expect(cgroups.cgroups.get("/na/kubepods/burstable")).toEqual({ cpuShares: 307 });
    const writes = cgroups.calls.length;
    cm.housekeeping(new Set(["b-1"]));
    expect(cgroups.calls.length).toBe(writes);
  });

  test("a pod cgroup that cannot be made says so in the kubelet's words", () => {
    const { cm, cgroups } = manager();
    cm.start();
    cgroups.failWith("create", "/na/kubepods/podg-1", new Error("no space left on device"));
    expect(() => cm.ensure(guaranteed)).toThrow("failed to ensure that the pod: g-1 cgroups exist and are correctly applied: no space left on device");
  });

  test("a UID that cannot name a folder names no cgroup", () => {
    const { cm } = manager();
    expect(() => cm.parent(podOf("../x", c()))).toThrow(PathEscapeError);
    expect(() => cm.remove("a/b")).toThrow(PathEscapeError);
  });

  test("--cgroups-per-qos=false: <cgroup-root>/pod<uid>, nothing made at start or per pod", () => {
    const { cm, cgroups } = manager({
      cgroupsPerQOS: false,
      allocatable: { capacity: { milliCpu: 1000, memoryBytes: GiB }, kubeReserved: {}, systemReserved: {}, enforce: [] },
    });
    cm.start();
    cm.ensure(guaranteed);
    expect(cm.parent(guaranteed)).toBe("/na/podg-1");
    expect(cm.parent(guaranteed)).toBe(flatPodCgroupParent("/na", "g-1"));
    expect(cm.podsCgroup).toBe("/na");
    cm.remove("g-1");
    expect(cgroups.calls).toEqual([{ op: "destroy", name: "/na/podg-1" }]);
  });
});
