// The Summary from fake CRI stats, host files and du: which pods and containers are reported, the
// kubelet's arithmetic (usageNanoCores from two samples, ephemeral storage = rootfs + logs + disk
// volumes), only_cpu_and_memory, and /metrics/resource rendered from it.
import { describe, expect, test } from "bun:test";
import type { Pod } from "kubernetes-types/core/v1";
import type { ContainerStats, ImageFsInfoResponse, PodSandboxStats } from "../../src/cri/types";
import { renderResourceMetrics } from "../../src/stats/resource-metrics";
import { SummaryProvider, type StatsRuntime } from "../../src/stats/summary-provider";
import { FakeClock } from "../../src/util/clock";
import { createLogger } from "../../src/util/log";
import { fakeHost, v1Host } from "./fixtures";

const u = (value: number) => ({ value });
const UID = "11111111-2222-3333-4444-555555555555";

class FakeStatsRuntime implements StatsRuntime {
  cpuNs = 1e9;
  failContainers = false;
  async listPodSandboxStats(): Promise<PodSandboxStats[]> {
    return [
      {
        attributes: { id: "sb1", metadata: { name: "web", namespace: "default", uid: UID, attempt: 0 }, labels: {}, annotations: {} },
        linux: {
          cpu: { timestamp: 0, usageCoreNanoSeconds: u(this.cpuNs), usageNanoCores: null },
          memory: {
            timestamp: 0,
            workingSetBytes: u(3000),
            availableBytes: null,
            usageBytes: u(4000),
            rssBytes: u(2000),
            pageFaults: u(5),
            majorPageFaults: u(0),
          },
          network: {
            timestamp: 0,
            defaultInterface: { name: "eth0", rxBytes: u(10), rxErrors: u(0), txBytes: u(20), txErrors: u(0) },
            interfaces: [{ name: "eth0", rxBytes: u(10), rxErrors: u(0), txBytes: u(20), txErrors: u(0) }],
          },
          process: { timestamp: 0, processCount: u(3) },
          containers: [],
        },
        windows: null,
      },
      {
        // A sandbox of a pod the agent does not know: not reported.
        attributes: { id: "sb2", metadata: { name: "other", namespace: "default", uid: "99", attempt: 0 }, labels: {}, annotations: {} },
        linux: null,
        windows: null,
      },
    ] as PodSandboxStats[];
  }
  async listContainerStats(): Promise<ContainerStats[]> {
    if (this.failContainers) throw new Error("runtime down");
    const c = (id: string, cpu: number) => ({
      attributes: { id, metadata: { name: "app", attempt: 0 }, labels: {}, annotations: {} },
      cpu: { timestamp: 0, usageCoreNanoSeconds: u(cpu), usageNanoCores: null },
      memory: { timestamp: 0, workingSetBytes: u(1500), availableBytes: null, usageBytes: u(2000), rssBytes: u(1000), pageFaults: u(1), majorPageFaults: u(0) },
      writableLayer: { timestamp: 0, fsId: { mountpoint: "/var/lib/containerd" }, usedBytes: u(8192), inodesUsed: u(4) },
      swap: null,
    });
    // The exited first instance is still listed beside the running one.
    return [c("old", 7e9), c("cur", this.cpuNs / 2)] as ContainerStats[];
  }
  async imageFsInfo(): Promise<ImageFsInfoResponse> {
    return {
      imageFilesystems: [{ timestamp: 0, fsId: { mountpoint: "/var/lib/containerd" }, usedBytes: u(1 << 20), inodesUsed: u(100) }],
      containerFilesystems: [],
    } as ImageFsInfoResponse;
  }
}

const pod: Pod = {
  metadata: { name: "web", namespace: "default", uid: UID },
  spec: {
    containers: [{ name: "app", image: "busybox" }],
    volumes: [
      { name: "cache", emptyDir: {} },
      { name: "mem", emptyDir: { medium: "Memory" } },
      { name: "host", hostPath: { path: "/tmp" } },
    ],
  },
  status: {
    phase: "Running",
    startTime: "2026-11-23T10:00:00Z",
    containerStatuses: [
      {
        name: "app",
        image: "busybox",
        imageID: "",
        ready: true,
        restartCount: 1,
        containerID: "containerd://cur",
        state: { running: { startedAt: "2026-11-23T10:00:05Z" } },
      },
    ],
  },
};

const statfs = { blocks: 1000, bavail: 500, bfree: 600, bsize: 4096, files: 100, ffree: 60 };

function provider(rt: StatsRuntime, clock: FakeClock, du: Record<string, { bytes: number; inodes: number }>, pods: () => Pod[] = () => [pod]) {
  const asked: string[] = [];
  const p = new SummaryProvider({
    nodeName: "node-a",
    runtime: rt,
    pods,
    clock,
    log: createLogger("text", -999),
    rootDir: "/var/lib/na",
    podsDir: "/var/lib/na/pods",
    podLogsRoot: "/var/log/pods",
    cgroupRoot: "/nodeagent",
    files: fakeHost(
      {
        ...v1Host(),
        "/proc/stat": "cpu 1 2 3\nbtime 1700000000\n",
        "/proc/sys/kernel/pid_max": "32768\n",
        "/proc/sys/kernel/threads-max": "90000\n",
        "/proc/loadavg": "0 0 0 1/222 3\n",
      },
      { "/var/lib/na": statfs, "/var/lib/containerd": statfs, "/var/log/pods": statfs },
    ),
    du: { usage: async (path) => (asked.push(path), du[path]) },
  });
  return { p, asked };
}

describe("SummaryProvider", () => {
  test("node and pod figures, the current container instance only, ephemeral storage = rootfs + logs + disk volumes", async () => {
    const clock = new FakeClock(Date.parse("2026-11-23T10:01:00Z"));
    const rt = new FakeStatsRuntime();
    const { p, asked } = provider(rt, clock, {
      [`/var/lib/na/pods/${UID}/volumes/kubernetes.io~empty-dir/cache`]: { bytes: 4096, inodes: 2 },
      [`/var/lib/na/pods/${UID}/volumes/kubernetes.io~empty-dir/mem`]: { bytes: 1024, inodes: 1 },
      [`/var/log/pods/default_web_${UID}/app`]: { bytes: 512, inodes: 3 },
    });
    const s = await p.get();
    expect(s.node.nodeName).toBe("node-a");
    expect(s.node.startTime).toBe("2023-11-14T22:13:20Z");
    expect(s.node.memory).toMatchObject({ usageBytes: 500_000_000, workingSetBytes: 400_000_000, availableBytes: 1_000_000 * 1024 - 400_000_000 });
    expect(s.node.cpu).toEqual({ time: "2026-11-23T10:01:00Z", usageNanoCores: undefined, usageCoreNanoSeconds: 5e9 });
    expect(s.node.runtime?.imageFs).toMatchObject({ usedBytes: 1 << 20, inodesUsed: 100, capacityBytes: 1000 * 4096 });
    expect(s.node.rlimit).toMatchObject({ maxpid: 32768, curproc: 222 });
    expect(s.pods).toHaveLength(1);
    const ps = s.pods[0]!;
    expect(ps.podRef).toEqual({ name: "web", namespace: "default", uid: UID });
    expect(ps.containers.map((c) => c.name)).toEqual(["app"]);
    expect(ps.containers[0]).toMatchObject({
      startTime: "2026-11-23T10:00:05Z",
      cpu: { usageCoreNanoSeconds: 5e8 },
      memory: { workingSetBytes: 1500 },
      rootfs: { usedBytes: 8192, inodesUsed: 4 },
      logs: { usedBytes: 512, inodesUsed: 3 },
    });
    expect(ps.memory).toMatchObject({ workingSetBytes: 3000, usageBytes: 4000 });
    expect(ps.network).toMatchObject({ name: "eth0", rxBytes: 10, txBytes: 20 });
    expect(ps.process_stats).toEqual({ process_count: 3 });
    expect(ps.volume?.map((v) => [v.name, v.usedBytes])).toEqual([
      ["cache", 4096],
      ["mem", 1024],
    ]);
    // Memory-backed volumes are not disk: 8192 + 512 + 4096.
    expect(ps["ephemeral-storage"]).toMatchObject({ usedBytes: 8192 + 512 + 4096, inodesUsed: 4 + 3 + 2 });
    // hostPath is the host's, never walked.
    expect(asked.some((a) => a.includes("host"))).toBe(false);
  });

  test("ListPodSandboxStats failing as a whole (containerd 1.6 with a stopped sandbox): each ready sandbox is asked with PodSandboxStats", async () => {
    const clock = new FakeClock(1_000_000);
    const inner = new FakeStatsRuntime();
    const filters: unknown[] = [];
    const rt: StatsRuntime = {
      listPodSandboxStats: async () => {
        throw new Error('failed to get pod sandbox stats since sandbox container "x" is not in ready state');
      },
      listContainerStats: () => inner.listContainerStats(),
      imageFsInfo: () => inner.imageFsInfo(),
      listPodSandbox: async (filter) => (filters.push(filter), [{ id: "sb1" }, { id: "gone" }] as never),
      podSandboxStats: async (id) => {
        if (id === "gone") throw new Error("not found");
        return (await inner.listPodSandboxStats())[0]!;
      },
    };
    const { p } = provider(rt, clock, {});
    const s = await p.get();
    expect(filters).toEqual([{ state: { state: "SANDBOX_READY" } }]);
    expect(s.pods.map((x) => [x.podRef.name, x.memory?.workingSetBytes])).toEqual([["web", 3000]]);
    // Without the per-sandbox calls, no pod stats (as before).
    const { p: plain } = provider({ ...rt, listPodSandbox: undefined, podSandboxStats: undefined }, clock, {});
    expect((await plain.get()).pods).toEqual([]);
  });

  test("usageNanoCores is the rate between two summaries; du results are reused within the aggregation period", async () => {
    const clock = new FakeClock(1_000_000);
    const rt = new FakeStatsRuntime();
    const { p, asked } = provider(rt, clock, {});
    await p.get();
    const walks = asked.length;
    await clock.advance(10_000);
    rt.cpuNs += 5e9; // half a core over 10 s for the pod, a quarter for the container
    const s = await p.get();
    expect(s.pods[0]!.cpu?.usageNanoCores).toBe(500_000_000);
    expect(s.pods[0]!.containers[0]!.cpu?.usageNanoCores).toBe(250_000_000);
    expect(asked.length).toBe(walks);
    await clock.advance(60_000);
    await p.get();
    expect(asked.length).toBe(2 * walks);
  });

  test("the folder usage of pods that are gone is forgotten: 50 pods come and go, the cache returns to its baseline", async () => {
    const clock = new FakeClock(1_000_000);
    const base = new FakeStatsRuntime();
    let current: Pod[] = [pod];
    // Every current pod has a sandbox, so its log and volume folders are measured.
    const rt: StatsRuntime = {
      listContainerStats: () => base.listContainerStats(),
      imageFsInfo: () => base.imageFsInfo(),
      listPodSandboxStats: async () => {
        const [template] = await base.listPodSandboxStats();
        return current.map(
          (p) =>
            ({
              ...template!,
              attributes: {
                ...template!.attributes!,
                id: `sb-${p.metadata!.uid}`,
                metadata: { name: p.metadata!.name!, namespace: "default", uid: p.metadata!.uid!, attempt: 0 },
              },
            }) as PodSandboxStats,
        );
      },
    };
    const { p } = provider(rt, clock, {}, () => current);
    await p.get();
    const baseline = p.cachedFolders;
    expect(baseline).toBeGreaterThan(0);
    for (let wave = 0; wave < 10; wave++) {
      const churned = Array.from({ length: 5 }, (_, i) => ({ ...pod, metadata: { name: `push-${wave}-${i}`, namespace: "default", uid: `uid-${wave}-${i}` } }));
      current = [pod, ...churned];
      await p.get();
      await clock.advance(10_000);
    }
    expect(p.cachedFolders).toBeGreaterThan(baseline);
    current = [pod];
    // Two aggregation periods later (the eviction manager asks every 10 s), only the remaining pod's folders are left.
    for (let i = 0; i < 13; i++) {
      await clock.advance(10_000);
      await p.get();
    }
    expect(p.cachedFolders).toBe(baseline);
  });

  test("only_cpu_and_memory leaves out network, filesystems and volumes", async () => {
    const { p, asked } = provider(new FakeStatsRuntime(), new FakeClock(0), {});
    const s = await p.get(true);
    expect(s.node.fs).toBeUndefined();
    expect(s.node.network).toBeUndefined();
    expect(s.pods[0]!.volume).toBeUndefined();
    expect(s.pods[0]!.containers[0]!.rootfs).toBeUndefined();
    expect(s.pods[0]!.memory?.workingSetBytes).toBe(3000);
    expect(asked).toEqual([]);
  });

  test("a failing CRI call leaves its part out and is logged, the rest is served", async () => {
    const rt = new FakeStatsRuntime();
    rt.failContainers = true;
    const { p } = provider(rt, new FakeClock(0), {});
    const s = await p.get();
    expect(s.pods[0]!.containers).toEqual([]);
    expect(s.pods[0]!.memory?.workingSetBytes).toBe(3000);
  });
});

test("renderResourceMetrics: the kubelet's names, labels and timestamps; scrape_error 1 without a summary", async () => {
  const clock = new FakeClock(Date.parse("2026-11-23T10:01:00Z"));
  const { p } = provider(new FakeStatsRuntime(), clock, {});
  const text = renderResourceMetrics(await p.get(true));
  const ts = Date.parse("2026-11-23T10:01:00Z");
  expect(text).toContain(
    "# HELP node_cpu_usage_seconds_total [ALPHA] Cumulative cpu time consumed by the node in core-seconds\n# TYPE node_cpu_usage_seconds_total counter\n",
  );
  expect(text).toContain(`node_cpu_usage_seconds_total 5 ${ts}\n`);
  expect(text).toContain(`node_memory_working_set_bytes 400000000 ${ts}\n`);
  expect(text).toContain(`container_cpu_usage_seconds_total{container="app",namespace="default",pod="web"} 0.5 ${ts}\n`);
  expect(text).toContain(`container_memory_working_set_bytes{container="app",namespace="default",pod="web"} 1500 ${ts}\n`);
  expect(text).toContain(`container_start_time_seconds{container="app",namespace="default",pod="web"} ${Date.parse("2026-11-23T10:00:05Z") / 1000}\n`);
  expect(text).toContain(`pod_memory_working_set_bytes{namespace="default",pod="web"} 3000 ${ts}\n`);
  expect(text).toContain("scrape_error 0\n");
  expect(renderResourceMetrics(undefined)).toBe(
    "# HELP scrape_error [ALPHA] 1 if there was an error while getting container metrics, 0 otherwise\n# TYPE scrape_error gauge\nscrape_error 1\n",
  );
});
