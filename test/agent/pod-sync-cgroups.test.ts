// The pod sync and the node's cgroups (src/cm): a pod's cgroup is made, with its values, before its
// sandbox, whose cgroup_parent it is; a cgroup that cannot be made leaves the pod waiting with the
// kubelet's message and no sandbox; the removal of a pod takes its cgroup with it and the burstable
// shares follow. On the fake runtime, with a fake CgroupManager.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod } from "kubernetes-types/core/v1";
import { Backoff } from "../../src/agent/backoff";
import { PodSyncer } from "../../src/agent/pod-sync";
import type { RuntimeConfigOptions } from "../../src/agent/runtime-config";
import { ContainerManager } from "../../src/cm/container-manager";
import type { PodSandboxConfigInput } from "../../src/cri/types";
import { FakeClock } from "../../src/util/clock";
import { createLogger } from "../../src/util/log";
import { FakeCgroupManager } from "../fakes/cgroups";
import { FakeRuntime } from "../fakes/runtime";
import { volumesFor } from "../fakes/volumes";

const base = mkdtempSync(join(tmpdir(), "nodeagent-pod-sync-cgroups-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));
const log = createLogger("text", -999);

const pod: Pod = {
  metadata: { name: "web", namespace: "default", uid: "u-1" },
  spec: { containers: [{ name: "main", image: "busybox", resources: { requests: { cpu: "500m" }, limits: { memory: "64Mi" } } }] },
};

/** A runtime that records which cgroups existed when each sandbox was asked for. */
class CgroupCheckingRuntime extends FakeRuntime {
  readonly seen: { parent: string; existed: boolean }[] = [];
  constructor(
    clock: FakeClock,
    private readonly cgroups: FakeCgroupManager,
  ) {
    super(clock);
  }
  override async runPodSandbox(config: PodSandboxConfigInput, handler = ""): Promise<string> {
    const parent = config.linux?.cgroupParent ?? "";
    this.seen.push({ parent, existed: this.cgroups.cgroups.has(parent) });
    return super.runPodSandbox(config, handler);
  }
}

function setup(name: string) {
  const clock = new FakeClock();
  const cgroups = new FakeCgroupManager();
  const active: Pod[] = [];
  const cm = new ContainerManager({
    cgroupRoot: "/na",
    cgroupsPerQOS: true,
    cgroups,
    activePods: () => active,
    log,
    allocatable: { capacity: { milliCpu: 2000, memoryBytes: 2 ** 33 }, kubeReserved: {}, systemReserved: {}, enforce: ["pods"] },
  });
  cm.start();
  const root = join(base, name);
  const opts: RuntimeConfigOptions = {
    podLogsRoot: join(root, "logs"),
    podsDir: join(root, "pods"),
    cgroupRoot: "/na",
    nodeName: "n",
    hostIP: "192.0.2.10",
    podCgroups: cm,
  };
  const rt = new CgroupCheckingRuntime(clock, cgroups);
  const syncer = new PodSyncer({
    runtime: rt,
    clock,
    crashBackoff: new Backoff(clock),
    imageBackoff: new Backoff(clock),
    config: opts,
    log,
    volumes: volumesFor(opts, clock, log),
  });
  return { rt, syncer, cgroups, active };
}

test("the pod's cgroup is made with its values before the sandbox, which gets it as cgroup_parent; it goes with the pod", async () => {
  const { rt, syncer, cgroups, active } = setup("ok");
  active.push(pod);
  const r = await syncer.syncPod(pod, undefined);
  expect(r.errors).toEqual([]);
  expect(rt.seen).toEqual([{ parent: "/na/kubepods/burstable/podu-1", existed: true }]);
  expect(cgroups.cgroups.get("/na/kubepods/burstable/podu-1")).toEqual({ cpuShares: 512, memoryLimitBytes: 64 * 2 ** 20 });
  expect(cgroups.cgroups.get("/na/kubepods/burstable")).toEqual({ cpuShares: 512 });

  active.splice(0);
  await syncer.removePod("u-1", undefined);
  expect(cgroups.cgroups.has("/na/kubepods/burstable/podu-1")).toBe(false);
  expect(cgroups.cgroups.get("/na/kubepods/burstable")).toEqual({ cpuShares: 2 });
});

test("a pod cgroup that cannot be made: no sandbox, the containers wait with the kubelet's message", async () => {
  const { rt, syncer, cgroups } = setup("fail");
  cgroups.failWith("create", "/na/kubepods/burstable/podu-1", new Error("mkdir: no space left on device"));
  const r = await syncer.syncPod(pod, undefined);
  const message = "failed to ensure that the pod: u-1 cgroups exist and are correctly applied: mkdir: no space left on device";
  expect(r.errors).toEqual([message]);
  expect(r.waiting.get("main")).toEqual({ reason: "ContainerCreating", message });
  expect(rt.seen).toEqual([]);
  // The next sync makes it.
  await syncer.syncPod(pod, undefined);
  expect(rt.seen).toEqual([{ parent: "/na/kubepods/burstable/podu-1", existed: true }]);
});
