// /stats/summary and /metrics/resource of the compiled agent on containerd 1.6 and 1.7 (issue 16):
// a pod that burns cpu shows a cpu rate near a core while an idle one stays near zero, a pod that
// fills memory shows the working set grow by what it allocated, a pod that writes to its emptyDir
// shows that volume's usage, and the node's figures are there; /metrics/resource carries the same
// numbers under the kubelet's names.
import { describe, expect, test } from "bun:test";
import { AGENT_CGROUP, NODE_NAME, manifest, running, useAgent } from "./agent-harness";
import { eventually } from "./proc";
import type { PodStats, Summary } from "../../src/stats/types";

const MiB = 1024 * 1024;

for (const version of ["1.6", "1.7"] as const) {
  describe(`stats on containerd ${version}`, () => {
    const { agent } = useAgent(version);

    async function summary(): Promise<Summary> {
      const a = agent();
      const r = await fetch(`${a.url}/stats/summary`, { headers: a.auth() });
      expect(r.status).toBe(200);
      return (await r.json()) as Summary;
    }
    const podOf = (s: Summary, name: string): PodStats | undefined => s.pods.find((p) => p.podRef.name === `${name}-${NODE_NAME}`);

    test("cpu, memory and volume figures move with what the pods do", async () => {
      const a = agent();
      a.writeManifest("burn.yaml", manifest("burn", "while :; do :; done"));
      a.writeManifest("idle.yaml", manifest("idle", "exec sleep 3600"));
      // 48 MiB in a shell variable's worth of memory: a tmpfs file counts in the pod's memory cgroup.
      a.writeManifest(
        "mem.yaml",
        manifest("mem", "mkdir -p /dev/shm/x; dd if=/dev/zero of=/dev/shm/x/fill bs=1M count=48 2>/dev/null; echo filled > /work/done; exec sleep 3600"),
      );
      for (const n of ["burn", "idle", "mem"]) await a.waitPod(n, "running", running);

      const s = await eventually(
        "a summary with cpu rates of the three pods",
        async () => {
          const x = await summary();
          const ok =
            ["burn", "idle", "mem"].every((n) => podOf(x, n)?.cpu?.usageNanoCores !== undefined) && (podOf(x, "mem")?.memory?.workingSetBytes ?? 0) > 40 * MiB;
          return ok ? x : undefined;
        },
        30_000,
        1000,
      );
      const burn = podOf(s, "burn")!;
      const idle = podOf(s, "idle")!;
      const mem = podOf(s, "mem")!;
      expect(burn.cpu!.usageNanoCores!).toBeGreaterThan(300_000_000);
      expect(idle.cpu!.usageNanoCores!).toBeLessThan(100_000_000);
      expect(mem.memory!.workingSetBytes!).toBeGreaterThan(idle.memory!.workingSetBytes! + 40 * MiB);
      expect(burn.containers.map((c) => c.name)).toEqual(["main"]);
      expect(burn.containers[0]!.cpu!.usageCoreNanoSeconds!).toBeGreaterThan(0);
      expect(mem.volume?.find((v) => v.name === "work")?.usedBytes).toBeGreaterThan(0);
      expect(mem["ephemeral-storage"]?.usedBytes).toBeGreaterThan(0);
      expect(s.node.nodeName).toBe(NODE_NAME);
      expect(s.node.memory?.workingSetBytes).toBeGreaterThan(0);
      expect(s.node.cpu?.usageCoreNanoSeconds).toBeGreaterThan(0);
      expect(s.node.fs?.capacityBytes).toBeGreaterThan(0);
      // containerd refreshes the image filesystem's usage on its own period: it may still read 0 this early.
      expect(s.node.runtime?.imageFs?.usedBytes).toBeNumber();
      expect(s.node.runtime?.imageFs?.capacityBytes).toBeGreaterThan(0);

      const only = (await (await fetch(`${a.url}/stats/summary?only_cpu_and_memory=true`, { headers: a.auth() })).json()) as Summary;
      expect(only.node.fs).toBeUndefined();
      expect(podOf(only, "mem")?.memory?.workingSetBytes).toBeGreaterThan(40 * MiB);

      const text = await (await fetch(`${a.url}/metrics/resource`, { headers: a.auth() })).text();
      expect(text).toMatch(new RegExp(`^pod_memory_working_set_bytes\\{namespace="default",pod="mem-${NODE_NAME}"\\} (\\d+) \\d+$`, "m"));
      const ws = Number(new RegExp(`^pod_memory_working_set_bytes\\{namespace="default",pod="mem-${NODE_NAME}"\\} (\\d+)`, "m").exec(text)![1]);
      expect(ws).toBeGreaterThan(40 * MiB);
      expect(text).toMatch(
        new RegExp(`^container_cpu_usage_seconds_total\\{container="main",namespace="default",pod="burn-${NODE_NAME}"\\} [0-9.e+-]+ \\d+$`, "m"),
      );
      expect(text).toContain("scrape_error 0");
      for (const n of ["burn", "idle", "mem"]) a.removeManifest(`${n}.yaml`);

      // /configz: the configuration in use, under KubeletConfiguration's names.
      const z = (await (await fetch(`${a.url}/configz`, { headers: a.auth() })).json()) as { kubeletconfig: Record<string, unknown> };
      expect(z.kubeletconfig).toMatchObject({ kind: "KubeletConfiguration", staticPodPath: a.manifests, cgroupRoot: AGENT_CGROUP, fileCheckFrequency: "2s" });
    }, 90_000);
  });
}
