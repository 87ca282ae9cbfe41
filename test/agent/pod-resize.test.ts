// In-place resize in the pod sync: computePodActions' resize part (pod-resize.ts) as a pure function of
// the allocated pod, the runtime status and the actuated record, and PodResizer's order of pod cgroup
// and container updates (doPodResizeAction), with a fake runtime and fake cgroups.
import { describe, expect, test } from "bun:test";
import type { Pod, ResourceRequirements } from "kubernetes-types/core/v1";
import { computePodActions } from "../../src/agent/pod-actions";
import { podResizeInProgress } from "../../src/agent/pod-resize";
import { PodResizer } from "../../src/agent/pod-resizer";
import { PodResourceState } from "../../src/agent/resource-state";
import type { RuntimeConfigOptions } from "../../src/agent/runtime-config";
import { ContainerManager } from "../../src/cm/container-manager";
import { createLogger } from "../../src/util/log";
import { FakeCgroupManager } from "../fakes/cgroups";
import { pod as basePod, podStatus } from "./fixtures";

const log = createLogger("text", -999);

function pod(resources: Record<string, ResourceRequirements>, policy: Record<string, "RestartContainer" | "NotRequired"> = {}, sidecars: string[] = []): Pod {
  const p = basePod({ containers: Object.keys(resources).filter((n) => !sidecars.includes(n)), inits: sidecars, sidecars });
  for (const c of [...p.spec!.containers, ...(p.spec!.initContainers ?? [])]) {
    c.resources = resources[c.name];
    c.resizePolicy = Object.entries(policy).map(([resourceName, restartPolicy]) => ({ resourceName, restartPolicy }));
  }
  return p;
}

const r = (cpuReq: string, cpuLim: string, memReq: string, memLim: string): ResourceRequirements => ({
  requests: { cpu: cpuReq, memory: memReq },
  limits: { cpu: cpuLim, memory: memLim },
});

describe("computePodActions: resize", () => {
  test("equal allocated and actuated: nothing; without an actuated lookup: nothing either", () => {
    const p = pod({ app: r("100m", "200m", "64Mi", "128Mi") });
    const st = podStatus(p, { containers: [{ name: "app", state: "running" }] });
    const a = computePodActions(p, st, undefined, undefined, () => r("0.1", "200m", "64Mi", "128Mi"));
    expect(a.resize).toEqual({ memory: [], cpu: [], updatePodResources: false });
    expect(computePodActions(p, st).resize.cpu).toEqual([]);
  });

  test("NotRequired: running containers updated in place, decreases before increases; none killed", () => {
    const p = pod({ a: r("100m", "300m", "64Mi", "128Mi"), b: r("100m", "100m", "64Mi", "256Mi") });
    const st = podStatus(p, {
      containers: [
        { name: "a", state: "running", id: "ca" },
        { name: "b", state: "running", id: "cb" },
      ],
    });
    const actuated: Record<string, ResourceRequirements> = { a: r("100m", "200m", "64Mi", "128Mi"), b: r("100m", "200m", "64Mi", "128Mi") };
    const a = computePodActions(p, st, undefined, undefined, (n) => actuated[n]);
    expect(a.containersToKill).toEqual([]);
    expect(a.containersToStart).toEqual([]);
    // cpu: b's limit goes down (first), a's goes up; memory: only b.
    expect(a.resize.cpu.map((u) => [u.name, u.current.cpuLimit, u.desired.cpuLimit])).toEqual([
      ["b", 200, 100],
      ["a", 200, 300],
    ]);
    expect(a.resize.memory.map((u) => [u.name, u.id])).toEqual([["b", "cb"]]);
    expect(a.resize.updatePodResources).toBe(false);
  });

  test("RestartContainer for the resource that changed: killed with the kubelet's reason and started again", () => {
    const p = pod({ app: r("100m", "200m", "64Mi", "256Mi") }, { memory: "RestartContainer" });
    const st = podStatus(p, { containers: [{ name: "app", state: "running", id: "c1" }] });
    const a = computePodActions(p, st, undefined, undefined, () => r("100m", "200m", "64Mi", "128Mi"));
    expect(a.containersToKill).toEqual([{ id: "c1", name: "app", reason: "Container app resize requires restart" }]);
    expect(a.containersToStart).toEqual([0]);
    expect(a.resize.updatePodResources).toBe(true);
    // A cpu change of the same container is in place: its policy is NotRequired.
    const cpu = computePodActions(p, st, undefined, undefined, () => r("100m", "100m", "64Mi", "256Mi"));
    expect(cpu.containersToKill).toEqual([]);
    expect(cpu.resize.cpu.map((u) => u.name)).toEqual(["app"]);
  });

  test("a sidecar is resized like an app container; a container that is not running is not", () => {
    const p = pod({ side: r("100m", "300m", "64Mi", "128Mi"), app: r("100m", "300m", "64Mi", "128Mi") }, {}, ["side"]);
    const st = podStatus(p, {
      containers: [
        { name: "side", state: "running", init: true, id: "cs" },
        { name: "app", state: "exited", exitCode: 1 },
      ],
    });
    const a = computePodActions(p, st, undefined, undefined, () => r("100m", "200m", "64Mi", "128Mi"));
    expect(a.resize.cpu.map((u) => u.name)).toEqual(["side"]);
    expect(podResizeInProgress(p, st, () => r("100m", "200m", "64Mi", "128Mi"))).toBe(true);
    expect(podResizeInProgress(p, st, () => r("100m", "300m", "64Mi", "128Mi"))).toBe(false);
  });
});

/** A resizer over fake cgroups (--cgroups-per-qos) and a runtime that records its calls beside the cgroup writes. */
function resizer(usage?: number) {
  const cgroups = new FakeCgroupManager();
  const order: string[] = [];
  const cm = new ContainerManager({
    cgroupRoot: "/",
    cgroupsPerQOS: true,
    cgroups,
    activePods: () => [],
    log,
    allocatable: { capacity: { milliCpu: 4000, memoryBytes: 8 << 30 }, kubeReserved: {}, systemReserved: {}, enforce: [] },
  });
  cm.start();
  const runtime = {
    updateContainerResources: async (id: string, linux: unknown) => {
      order.push(`container ${id} ${JSON.stringify(linux)}`);
    },
  };
  const origUpdate = cgroups.update.bind(cgroups);
  cgroups.update = (name, config) => {
    if (name.some((s) => s.startsWith("pod"))) order.push(`pod ${JSON.stringify(config)}`);
    origUpdate(name, config);
  };
  const actuated = new PodResourceState(undefined);
  const config = { podsDir: "/x", podLogsRoot: "/y", cgroupRoot: "/", nodeName: "n", hostIP: "1.2.3.4", memoryCapacityBytes: 8 << 30 } as RuntimeConfigOptions;
  const rz = new PodResizer({ runtime, cgroups: () => cm, actuated, config, memoryUsage: usage === undefined ? undefined : async () => usage, log });
  return { rz, cm, order, actuated };
}

describe("PodResizer", () => {
  test("a limit that grows: the pod's cgroup first, then the container; one that shrinks: the container first", async () => {
    const before = r("100m", "200m", "64Mi", "128Mi");
    const grown = pod({ app: r("100m", "400m", "64Mi", "128Mi") });
    const { rz, cm, order, actuated } = resizer();
    cm.ensure(grown);
    actuated.setContainer("uid-1", "app", before);
    const st = podStatus(grown, { containers: [{ name: "app", state: "running", id: "c1" }] });
    let a = computePodActions(grown, st, undefined, undefined, rz.actuatedOf("uid-1"));
    expect(await rz.resize(grown, a.resize)).toBeUndefined();
    expect(order.map((l) => l.split(" ")[0])).toEqual(["pod", "container"]);
    expect(order[0]).toBe('pod {"cpuQuota":40000,"cpuPeriod":100000}');
    expect(order[1]).toContain('"cpuQuota":40000');
    expect(actuated.container("uid-1", "app")?.limits?.cpu).toBe("400m");

    order.length = 0;
    const shrunk = pod({ app: r("100m", "100m", "64Mi", "128Mi") });
    a = computePodActions(shrunk, st, undefined, undefined, rz.actuatedOf("uid-1"));
    expect(await rz.resize(shrunk, a.resize)).toBeUndefined();
    expect(order.map((l) => l.split(" ")[0])).toEqual(["container", "pod"]);
    expect(order[1]).toBe('pod {"cpuQuota":10000,"cpuPeriod":100000}');
  });

  test("a memory limit is not lowered below what the container uses: nothing is written, the message says why", async () => {
    const { rz, cm, order, actuated } = resizer(100 * 1024 * 1024);
    const p = pod({ app: r("100m", "200m", "64Mi", "64Mi") });
    cm.ensure(p);
    actuated.setContainer("uid-1", "app", r("100m", "200m", "64Mi", "128Mi"));
    const st = podStatus(p, { containers: [{ name: "app", state: "running", id: "c1" }] });
    const a = computePodActions(p, st, undefined, undefined, rz.actuatedOf("uid-1"));
    expect(await rz.resize(p, a.resize)).toBe(
      'cannot decrease memory limits: attempting to set container "app" memory limit (67108864) below current usage (104857600)',
    );
    expect(order).toEqual([]);
    expect(actuated.container("uid-1", "app")?.limits?.memory).toBe("128Mi");
  });
});
