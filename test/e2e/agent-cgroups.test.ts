// The kubelet's cgroup hierarchy made by the compiled agent on containerd 1.6 and 1.7 (cgroupfs
// driver, cgroup v1 on this machine; issue 17): with --kube-reserved and the default
// --enforce-node-allocatable=pods, kubepods is capped at capacity − reserved; a Guaranteed, a
// Burstable and a BestEffort static pod each get pod<uid> in their QoS class's cgroup with
// ResourceConfigForPod's values, their sandbox and containers below it, the OOM score of their class;
// the burstable cgroup's shares follow the Burstable pods' cpu requests; and when the pods are deleted
// their cgroups are gone from every hierarchy and the burstable shares are back to 2.
// The agent runs under a cgroup root of its own, so no other test's agent writes the same QoS cgroups.
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { POD_UID } from "../../src/cri/labels";
import { running, useAgent } from "./agent-harness";
import { eventually } from "./proc";

const ROOT = "/nodeagent-e2e-cgroups";
const KUBEPODS = `${ROOT}/kubepods`;
const MOUNT = "/sys/fs/cgroup";
const MiB = 2 ** 20;
const GiB = 2 ** 30;

const pod = (name: string, resources: string) => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  terminationGracePeriodSeconds: 1
  containers:
    - name: main
      image: localhost/nodeagent/busybox:1.35
      command: ["sh", "-c", "exec sleep 3600"]
${resources}`;

const GUARANTEED = pod("guaranteed", `      resources:
        limits: { cpu: 250m, memory: 64Mi }
`);
// No cpu limit: the pod cgroup gets no quota; every container has a memory limit: it gets that.
const BURSTABLE = pod("burstable", `      resources:
        requests: { cpu: 300m, memory: 32Mi }
        limits: { memory: 128Mi }
`);
const BEST_EFFORT = pod("besteffort", "");

/** A v1 cgroup file's value. */
function read(controller: string, cgroup: string, file: string): string {
  return readFileSync(join(MOUNT, controller, cgroup, file), "utf8").trim();
}
const num = (controller: string, cgroup: string, file: string) => Number(read(controller, cgroup, file));

/** cAdvisor's MemoryCapacity and NumCores, which the agent takes its capacity from. */
function machine(): { memoryBytes: number; cpus: number } {
  const memoryBytes = Number(/^MemTotal:\s+(\d+) kB/m.exec(readFileSync("/proc/meminfo", "utf8"))![1]) * 1024;
  const cpus = readFileSync("/proc/cpuinfo", "utf8").split("\n").filter((l) => /^processor\s*:/.test(l)).length;
  return { memoryBytes, cpus };
}

/** Every hierarchy mounted under /sys/fs/cgroup. */
const hierarchies = () => readdirSync(MOUNT).filter((d) => existsSync(join(MOUNT, d, "cgroup.procs")));

const isV2 = existsSync(join(MOUNT, "cgroup.controllers"));

for (const version of ["1.6", "1.7"] as const) {
  describe.skipIf(isV2)(`the kubelet's cgroups on containerd ${version}`, () => {
    const env = useAgent(version, () => ["--kube-reserved", "cpu=500m,memory=1Gi"], { cgroupRoot: ROOT });

    test("kubepods at allocatable, each QoS class's pod cgroup with the kubelet's values and its containers inside, all removed with the pods", async () => {
      const agent = env.agent();
      const node = env.node();
      const { memoryBytes, cpus } = machine();

      // kubepods: capacity − kube-reserved (the eviction threshold is not taken off here).
      expect(num("cpu", KUBEPODS, "cpu.shares")).toBe(Math.floor(((cpus * 1000 - 500) * 1024) / 1000));
      expect(num("memory", KUBEPODS, "memory.limit_in_bytes")).toBe(memoryBytes - GiB);
      expect(num("cpu", `${KUBEPODS}/besteffort`, "cpu.shares")).toBe(2);
      expect(num("cpu", `${KUBEPODS}/burstable`, "cpu.shares")).toBe(2);

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
      expect(readdirSync(join(MOUNT, "cpu", ROOT), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name)).toEqual(["kubepods"]);

      // The sandbox and the container of each pod are in its cgroup, in every hierarchy runc uses,
      // and each container's processes have its class's OOM score. The test's containerd runs with
      // restrict_oom_score_adj (root here lacks CAP_SYS_RESOURCE), which raises a score below its own
      // (inherited from this process) to its own: Guaranteed's −997 shows as that.
      const floor = Number(readFileSync("/proc/self/oom_score_adj", "utf8"));
      const oom = { guaranteed: Math.max(-997, floor), burstable: Math.max(1000 - Math.trunc((1000 * 32 * MiB) / memoryBytes), floor), besteffort: 1000 };
      for (const [name, p] of [["guaranteed", g], ["burstable", b], ["besteffort", be]] as const) {
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
      await eventually("the pods' cgroups to be gone from every hierarchy", async () => {
        const left = hierarchies().flatMap((h) => Object.values(cgroupOf).filter((c) => existsSync(join(MOUNT, h, c))).map((c) => `${h}${c}`));
        return left.length === 0 ? true : undefined;
      }, 30_000, 250);
      expect(num("cpu", `${KUBEPODS}/burstable`, "cpu.shares")).toBe(2);
      // The node's cgroups stay for the next pods.
      expect(num("memory", KUBEPODS, "memory.limit_in_bytes")).toBe(memoryBytes - GiB);
    }, 120_000);
  });
}
