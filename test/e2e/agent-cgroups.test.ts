// The kubelet's cgroup hierarchy made by the compiled agent on containerd 1.6 and 1.7 (cgroupfs
// driver, cgroup v1 on this machine; issue 17): with --kube-reserved and the default
// --enforce-node-allocatable=pods, kubepods is capped at capacity − reserved; a Guaranteed, a
// Burstable and a BestEffort static pod each get pod<uid> in their QoS class's cgroup with
// ResourceConfigForPod's values, their sandbox and containers below it, the OOM score of their class;
// the burstable cgroup's shares follow the Burstable pods' cpu requests; and when the pods are deleted
// their cgroups are gone from every hierarchy and the burstable shares are back to 2; a pod cgroup
// whose pod nothing knows is removed by housekeeping.
// With --enforce-node-allocatable=pods,kube-reserved the existing --kube-reserved-cgroup is held to
// what is reserved. And --cgroups-per-qos=false keeps the flat layout, <cgroup-root>/pod<uid>.
// Each agent runs under a cgroup root of its own, so no other test's agent writes the same cgroups.
//
// Only the cgroupfs driver runs here: the systemd driver needs systemd as PID 1 (containerd's
// SystemdCgroup = true has runc ask systemd over D-Bus for a transient scope in the pod's slice, and
// the agent refuses --cgroup-driver=systemd without /run/systemd/system), and this machine's PID 1 is
// not systemd. The systemd names and folders are covered by the unit tests (test/cm).
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { POD_UID } from "../../src/cri/labels";
import { manifest, running, useAgent } from "./agent-harness";
import { removeCgroups } from "./node";
import { eventually } from "./proc";

const ROOT = "/nodeagent-e2e-cgroups";
/** The cgroup standing for the Kubernetes daemons' (--kube-reserved-cgroup); it must exist beforehand. */
const KUBE_RESERVED = "/nodeagent-e2e-cgroups-kube";
const KUBEPODS = `${ROOT}/kubepods`;
const MOUNT = "/sys/fs/cgroup";
const MiB = 2 ** 20;
const GiB = 2 ** 30;

/** A busybox pod whose main container has these resources (YAML, as the container's other fields). */
const pod = (name: string, resources: string) => manifest(name, "exec sleep 3600", { container: resources });

const GUARANTEED = pod(
  "guaranteed",
  `      resources:
        limits: { cpu: 250m, memory: 64Mi }
`,
);
// No cpu limit: the pod cgroup gets no quota; every container has a memory limit: it gets that.
const BURSTABLE = pod(
  "burstable",
  `      resources:
        requests: { cpu: 300m, memory: 32Mi }
        limits: { memory: 128Mi }
`,
);
const BEST_EFFORT = pod("besteffort", "");

/** A v1 cgroup file's value. */
function read(controller: string, cgroup: string, file: string): string {
  return readFileSync(join(MOUNT, controller, cgroup, file), "utf8").trim();
}
const num = (controller: string, cgroup: string, file: string) => Number(read(controller, cgroup, file));

/** cAdvisor's MemoryCapacity and NumCores, which the agent takes its capacity from. */
function machine(): { memoryBytes: number; cpus: number } {
  const memoryBytes = Number(/^MemTotal:\s+(\d+) kB/m.exec(readFileSync("/proc/meminfo", "utf8"))![1]) * 1024;
  const cpus = readFileSync("/proc/cpuinfo", "utf8")
    .split("\n")
    .filter((l) => /^processor\s*:/.test(l)).length;
  return { memoryBytes, cpus };
}

/** Every hierarchy mounted under /sys/fs/cgroup. */
const hierarchies = () => readdirSync(MOUNT).filter((d) => existsSync(join(MOUNT, d, "cgroup.procs")));

const isV2 = existsSync(join(MOUNT, "cgroup.controllers"));
// These checks read cgroup v1 files. Outside CI a v2 host skips them; under CI=true they run (and fail
// on such a host) rather than be skipped silently.
const skipV2 = isV2 && process.env.CI !== "true";

for (const version of ["1.6", "1.7"] as const) {
  describe.skipIf(skipV2)(`the kubelet's cgroups on containerd ${version}`, () => {
    const env = useAgent(
      version,
      () => {
        for (const h of ["cpu", "cpuacct", "cpuset", "memory", "pids"]) mkdirSync(join(MOUNT, h, KUBE_RESERVED), { recursive: true });
        return ["--kube-reserved", "cpu=500m,memory=1Gi", "--enforce-node-allocatable", "pods,kube-reserved", "--kube-reserved-cgroup", KUBE_RESERVED];
      },
      { cgroupRoot: ROOT },
    );
    afterAll(() => removeCgroups(KUBE_RESERVED));

    test("kubepods at allocatable, each QoS class's pod cgroup with the kubelet's values and its containers inside, all removed with the pods", async () => {
      const agent = env.agent();
      const node = env.node();
      const { memoryBytes, cpus } = machine();

      // kubepods: capacity − kube-reserved (the eviction threshold is not taken off here).
      expect(num("cpu", KUBEPODS, "cpu.shares")).toBe(Math.floor(((cpus * 1000 - 500) * 1024) / 1000));
      expect(num("memory", KUBEPODS, "memory.limit_in_bytes")).toBe(memoryBytes - GiB);
      expect(num("cpu", `${KUBEPODS}/besteffort`, "cpu.shares")).toBe(2);
      expect(num("cpu", `${KUBEPODS}/burstable`, "cpu.shares")).toBe(2);
      // kube-reserved enforced on its cgroup.
      expect(num("cpu", KUBE_RESERVED, "cpu.shares")).toBe(512);
      expect(num("memory", KUBE_RESERVED, "memory.limit_in_bytes")).toBe(GiB);

      // A pod cgroup whose pod nothing knows (gone while the agent was down): removed by housekeeping.
      const orphan = `${KUBEPODS}/burstable/pod00000000-0000-0000-0000-00000000dead`;
      for (const h of ["cpu", "memory"]) mkdirSync(join(MOUNT, h, orphan));
      await eventually(
        "the orphaned pod cgroup to be removed",
        async () => (["cpu", "memory"].every((h) => !existsSync(join(MOUNT, h, orphan))) ? true : undefined),
        30_000,
        250,
      );

      agent.writeManifest("guaranteed.yaml", GUARANTEED);
      agent.writeManifest("burstable.yaml", BURSTABLE);
      agent.writeManifest("besteffort.yaml", BEST_EFFORT);
      const g = await agent.waitPod("guaranteed", "running", running);
      const b = await agent.waitPod("burstable", "running", running);
      const be = await agent.waitPod("besteffort", "running", running);
      expect([g.status?.qosClass, b.status?.qosClass, be.status?.qosClass]).toEqual(["Guaranteed", "Burstable", "BestEffort"]);

      const cgroupOf = {
        guaranteed: `${KUBEPODS}/pod${g.metadata!.uid}`,
        burstable: `${KUBEPODS}/burstable/pod${b.metadata!.uid}`,
        besteffort: `${KUBEPODS}/besteffort/pod${be.metadata!.uid}`,
      };
      const unlimited = 2 ** 60;

      // Guaranteed: shares and quota from 250m, the memory limit.
      expect(num("cpu", cgroupOf.guaranteed, "cpu.shares")).toBe(256);
      expect(num("cpu", cgroupOf.guaranteed, "cpu.cfs_period_us")).toBe(100_000);
      expect(num("cpu", cgroupOf.guaranteed, "cpu.cfs_quota_us")).toBe(25_000);
      expect(num("memory", cgroupOf.guaranteed, "memory.limit_in_bytes")).toBe(64 * MiB);
      // Burstable: shares from 300m, no quota (no cpu limit), the memory limit (every container has one).
      expect(num("cpu", cgroupOf.burstable, "cpu.shares")).toBe(307);
      expect(num("cpu", cgroupOf.burstable, "cpu.cfs_quota_us")).toBe(-1);
      expect(num("memory", cgroupOf.burstable, "memory.limit_in_bytes")).toBe(128 * MiB);
      // BestEffort: 2 shares and nothing else.
      expect(num("cpu", cgroupOf.besteffort, "cpu.shares")).toBe(2);
      expect(num("cpu", cgroupOf.besteffort, "cpu.cfs_quota_us")).toBe(-1);
      expect(num("memory", cgroupOf.besteffort, "memory.limit_in_bytes")).toBeGreaterThan(unlimited);
      // The burstable QoS cgroup weighs the Burstable pods' requests together.
      expect(num("cpu", `${KUBEPODS}/burstable`, "cpu.shares")).toBe(307);
      expect(num("cpu", `${KUBEPODS}/besteffort`, "cpu.shares")).toBe(2);
      // Nothing of the pods is left directly under the cgroup root (the flat layout).
      expect(
        readdirSync(join(MOUNT, "cpu", ROOT), { withFileTypes: true })
          .filter((d) => d.isDirectory())
          .map((d) => d.name),
      ).toEqual(["kubepods"]);

      // The sandbox and the container of each pod are in its cgroup, in every hierarchy runc uses,
      // and each container's processes have its class's OOM score. The test's containerd runs with
      // restrict_oom_score_adj (root here lacks CAP_SYS_RESOURCE), which raises a score below its own
      // (inherited from this process) to its own: Guaranteed's −997 shows as that.
      const floor = Number(readFileSync("/proc/self/oom_score_adj", "utf8"));
      const oom = { guaranteed: Math.max(-997, floor), burstable: Math.max(1000 - Math.trunc((1000 * 32 * MiB) / memoryBytes), floor), besteffort: 1000 };
      for (const [name, p] of [
        ["guaranteed", g],
        ["burstable", b],
        ["besteffort", be],
      ] as const) {
        const uid = p.metadata!.uid!;
        const [sandbox] = await node.client.listPodSandbox({ labelSelector: { [POD_UID]: uid } });
        const containers = await node.client.listContainers({ labelSelector: { [POD_UID]: uid } });
        expect(containers).toHaveLength(1);
        for (const h of ["cpu", "memory", "pids", "cpuacct"]) {
          expect(existsSync(join(MOUNT, h, cgroupOf[name], sandbox!.id))).toBe(true);
          expect(existsSync(join(MOUNT, h, cgroupOf[name], containers[0]!.id))).toBe(true);
        }
        const pid = read("memory", join(cgroupOf[name], containers[0]!.id), "cgroup.procs").split("\n")[0]!;
        expect(Number(readFileSync(`/proc/${pid}/oom_score_adj`, "utf8"))).toBe(oom[name]);
      }

      for (const f of ["guaranteed", "burstable", "besteffort"]) agent.removeManifest(`${f}.yaml`);
      await eventually(
        "the pods' cgroups to be gone from every hierarchy",
        async () => {
          const left = hierarchies().flatMap((h) =>
            Object.values(cgroupOf)
              .filter((c) => existsSync(join(MOUNT, h, c)))
              .map((c) => `${h}${c}`),
          );
          return left.length === 0 ? true : undefined;
        },
        30_000,
        250,
      );
      expect(num("cpu", `${KUBEPODS}/burstable`, "cpu.shares")).toBe(2);
      // The node's cgroups stay for the next pods.
      expect(num("memory", KUBEPODS, "memory.limit_in_bytes")).toBe(memoryBytes - GiB);
    }, 120_000);
  });
}

for (const version of ["1.6", "1.7"] as const) {
  describe.skipIf(skipV2)(`--cgroups-per-qos=false on containerd ${version}`, () => {
    const FLAT = "/nodeagent-e2e-cgroups-flat";
    const env = useAgent(version, () => ["--cgroups-per-qos=false", "--enforce-node-allocatable="], { cgroupRoot: FLAT });

    test("the flat layout: the pod's sandbox and container in <cgroup-root>/pod<uid>, no kubepods, gone with the pod", async () => {
      const agent = env.agent();
      agent.writeManifest("flat.yaml", GUARANTEED);
      const p = await agent.waitPod("guaranteed", "running", running);
      const cgroup = `${FLAT}/pod${p.metadata!.uid}`;
      const [container] = await env.node().client.listContainers({ labelSelector: { [POD_UID]: p.metadata!.uid! } });
      expect(existsSync(join(MOUNT, "memory", cgroup, container!.id))).toBe(true);
      // The container keeps its own limit; the pod level has none (runc made the folder, not the agent).
      expect(num("memory", join(cgroup, container!.id), "memory.limit_in_bytes")).toBe(64 * MiB);
      expect(num("memory", cgroup, "memory.limit_in_bytes")).toBeGreaterThan(2 ** 60);
      expect(existsSync(join(MOUNT, "memory", FLAT, "kubepods"))).toBe(false);
      agent.removeManifest("flat.yaml");
      await eventually(
        "the pod's cgroup to be gone",
        async () => (hierarchies().every((h) => !existsSync(join(MOUNT, h, cgroup))) ? true : undefined),
        30_000,
        250,
      );
    }, 60_000);
  });
}
