import { describe, expect, test } from "bun:test";
import type { Container, Pod } from "kubernetes-types/core/v1";
import { milliCpuToQuota, milliCpuToShares, podRequestsAndLimits, resourceConfigForPod, sharesToWeight } from "../../src/cm/resource-config";
import { podRequests } from "../../src/scheduler/model/resource";

const MiB = 2 ** 20;
const c = (name: string, requests?: Record<string, string>, limits?: Record<string, string>): Container => ({
  name,
  resources: { ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) },
});
const podOf = (containers: Container[], initContainers: Container[] = [], overhead?: Record<string, string>): Pod => ({
  metadata: { name: "p", uid: "u1" },
  spec: { containers, initContainers, ...(overhead ? { overhead } : {}) },
});

describe("cpu arithmetic (helpers_linux.go)", () => {
  test("shares: 1024 per cpu, clamped to [2, 262144], 2 without a request", () => {
    expect(milliCpuToShares(0)).toBe(2);
    expect(milliCpuToShares(1)).toBe(2);
    expect(milliCpuToShares(250)).toBe(256);
    expect(milliCpuToShares(300)).toBe(307);
    expect(milliCpuToShares(1000)).toBe(1024);
    expect(milliCpuToShares(300_000)).toBe(262144);
  });

  test("quota: milliCPU × period / 1000, at least 1000 µs; none without a limit", () => {
    expect(milliCpuToQuota(0)).toBe(0);
    expect(milliCpuToQuota(250)).toBe(25_000);
    expect(milliCpuToQuota(5)).toBe(1000);
    expect(milliCpuToQuota(1500, 50_000)).toBe(75_000);
  });

  test("cgroup v2 weight from shares as runc converts it", () => {
    expect(sharesToWeight(2)).toBe(1);
    expect(sharesToWeight(1024)).toBe(39);
    expect(sharesToWeight(262144)).toBe(10000);
    expect(sharesToWeight(0)).toBe(0);
  });
});

describe("ResourceConfigForPod", () => {
  test("Guaranteed: shares, quota and period, memory limit = the sum of the limits plus overhead", () => {
    const p = podOf([c("a", undefined, { cpu: "250m", memory: "64Mi" }), c("b", undefined, { cpu: "250m", memory: "64Mi" })], [], {
      cpu: "100m",
      memory: "16Mi",
    });
    expect(resourceConfigForPod(p)).toEqual({ cpuShares: 614, cpuQuota: 60_000, cpuPeriod: 100_000, memoryLimitBytes: 144 * MiB });
  });

  test("Burstable: quota only when every app container has a cpu limit, memory only when every one has a memory limit", () => {
    expect(resourceConfigForPod(podOf([c("a", { cpu: "300m", memory: "32Mi" }, { memory: "128Mi" })]))).toEqual({
      cpuShares: 307,
      memoryLimitBytes: 128 * MiB,
    });
    expect(resourceConfigForPod(podOf([c("a", { cpu: "100m" }, { cpu: "1" }), c("b", { cpu: "100m" }, { cpu: "500m" })]))).toEqual({
      cpuShares: 204,
      cpuQuota: 150_000,
      cpuPeriod: 100_000,
    });
    expect(resourceConfigForPod(podOf([c("a", { cpu: "100m" }, { cpu: "1", memory: "1Gi" }), c("b")]))).toEqual({ cpuShares: 102 });
  });

  test("BestEffort: 2 shares and nothing else", () => {
    expect(resourceConfigForPod(podOf([c("a"), c("b")]))).toEqual({ cpuShares: 2 });
  });

  test("init containers count as the max of each and the app containers' sum", () => {
    const p = podOf([c("a", { cpu: "100m", memory: "10Mi" }, { cpu: "200m", memory: "20Mi" })], [c("i", { cpu: "1" }, { cpu: "2", memory: "5Mi" })]);
    const { requests, limits } = podRequestsAndLimits(p);
    expect(Object.fromEntries(requests)).toEqual({ cpu: 1000, memory: 10 * MiB });
    expect(Object.fromEntries(limits)).toEqual({ cpu: 2000, memory: 20 * MiB });
    expect(resourceConfigForPod(p)).toEqual({ cpuShares: 1024, cpuQuota: 200_000, cpuPeriod: 100_000, memoryLimitBytes: 20 * MiB });
  });

  test("native sidecars (KEP-753) add to the app containers' sum and to every later init container's peak, as the scheduler counts them", () => {
    const sidecar = { ...c("proxy", { cpu: "200m", memory: "50Mi" }, { cpu: "300m", memory: "50Mi" }), restartPolicy: "Always" };
    const p = podOf(
      [c("a", { cpu: "100m", memory: "10Mi" }, { cpu: "100m", memory: "10Mi" })],
      [c("before", { cpu: "1" }, { cpu: "1" }), sidecar, c("after", { cpu: "900m" }, { cpu: "900m" })],
    );
    const { requests, limits } = podRequestsAndLimits(p);
    // cpu: max(100m + 200m, 1, 900m + 200m) = 1100m; memory: 10Mi + 50Mi.
    expect(Object.fromEntries(requests)).toEqual({ cpu: 1100, memory: 60 * MiB });
    expect(Object.fromEntries(limits)).toEqual({ cpu: 1200, memory: 60 * MiB });
    expect(Object.fromEntries(podRequests(p))).toEqual({ cpu: 1100, memory: 60 * MiB });
  });

  test("overhead is added to the limits only where there is one", () => {
    const { limits } = podRequestsAndLimits(podOf([c("a", { cpu: "100m" }, { memory: "10Mi" })], [], { cpu: "50m", memory: "1Mi" }));
    expect(Object.fromEntries(limits)).toEqual({ memory: 11 * MiB });
  });
});
