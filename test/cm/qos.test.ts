import { describe, expect, test } from "bun:test";
import type { Container, Pod } from "kubernetes-types/core/v1";
import { qosClass } from "../../src/cm/qos";
import { containerOomScoreAdj } from "../../src/cm/oom-score";

const c = (name: string, requests?: Record<string, string>, limits?: Record<string, string>): Container => ({
  name,
  resources: { ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) },
});
const podOf = (containers: Container[], initContainers: Container[] = [], extra: Partial<Pod["spec"]> = {}, annotations: Record<string, string> = {}): Pod => ({
  metadata: { name: "p", namespace: "default", uid: "u1", annotations },
  spec: { containers, initContainers, ...extra },
});

describe("QoS class as GetPodQOS", () => {
  test("BestEffort: no cpu or memory anywhere (other resources and zero quantities do not count)", () => {
    expect(qosClass(podOf([c("a"), c("b")]))).toBe("BestEffort");
    expect(qosClass(podOf([c("a", { "ephemeral-storage": "1Gi" }, { "ephemeral-storage": "2Gi" })]))).toBe("BestEffort");
    expect(qosClass(podOf([c("a", { cpu: "0" }, { memory: "0" })]))).toBe("BestEffort");
  });

  test("Guaranteed: every container (init ones too) has cpu and memory limits equal to its requests; requests default to limits", () => {
    expect(qosClass(podOf([c("a", undefined, { cpu: "1", memory: "1Gi" })]))).toBe("Guaranteed");
    expect(qosClass(podOf([c("a", { cpu: "1000m", memory: "1024Mi" }, { cpu: "1", memory: "1Gi" })]))).toBe("Guaranteed");
    expect(qosClass(podOf([c("a", undefined, { cpu: "1", memory: "1Gi" })], [c("i", undefined, { cpu: "2", memory: "1Gi" })]))).toBe("Guaranteed");
  });

  test("Burstable: anything in between", () => {
    expect(qosClass(podOf([c("a", { cpu: "100m" })]))).toBe("Burstable");
    expect(qosClass(podOf([c("a", { cpu: "500m", memory: "1Gi" }, { cpu: "1", memory: "1Gi" })]))).toBe("Burstable");
    // One container without limits makes the pod Burstable even when the other is Guaranteed-like.
    expect(qosClass(podOf([c("a", undefined, { cpu: "1", memory: "1Gi" }), c("b")]))).toBe("Burstable");
    // An init container without a memory limit.
    expect(qosClass(podOf([c("a", undefined, { cpu: "1", memory: "1Gi" })], [c("i", undefined, { cpu: "1" })]))).toBe("Burstable");
    // Only a memory limit: Burstable, not Guaranteed.
    expect(qosClass(podOf([c("a", undefined, { memory: "1Gi" })]))).toBe("Burstable");
  });
});

describe("OOM score adjustment as policy.go", () => {
  const GiB = 2 ** 30;
  test("Guaranteed −997, BestEffort 1000, Burstable by its memory request within [3, 999]", () => {
    const g = c("a", undefined, { cpu: "1", memory: "1Gi" });
    expect(containerOomScoreAdj(podOf([g]), g, 16 * GiB)).toBe(-997);
    const be = c("a");
    expect(containerOomScoreAdj(podOf([be]), be, 16 * GiB)).toBe(1000);
    const b = c("a", { memory: "4Gi" });
    expect(containerOomScoreAdj(podOf([b]), b, 16 * GiB)).toBe(750);
    // No memory request: 1000, which is BestEffort's, so one less.
    const cpuOnly = c("a", { cpu: "1" });
    expect(containerOomScoreAdj(podOf([cpuOnly]), cpuOnly, 16 * GiB)).toBe(999);
    // A request as large as the machine: not below 3, so still above every Guaranteed container.
    const huge = c("a", { memory: "32Gi" });
    expect(containerOomScoreAdj(podOf([huge]), huge, 16 * GiB)).toBe(3);
  });

  test("a node-critical static pod is −997 whatever its class", () => {
    const be = c("a");
    const critical = podOf([be], [], { priorityClassName: "system-node-critical" }, { "kubernetes.io/config.source": "file" });
    expect(containerOomScoreAdj(critical, be, 16 * GiB)).toBe(-997);
    // The built-in class by name gives the critical priority when the pod carries none (a kubeadm manifest).
    const api = podOf([be], [], { priorityClassName: "system-node-critical" }, { "kubernetes.io/config.source": "api" });
    expect(containerOomScoreAdj(api, be, 16 * GiB)).toBe(-997);
    // A priority that says otherwise wins over the name: not critical, so its QoS class decides.
    expect(containerOomScoreAdj({ ...api, spec: { ...api.spec!, priority: 0 } }, be, 16 * GiB)).toBe(1000);
    // In a cluster a static pod is critical whatever its priority (kubelettypes.IsCriticalPod).
    const staticLow = podOf([be], [], { priorityClassName: "system-node-critical", priority: 0 }, { "kubernetes.io/config.source": "file" });
    expect(containerOomScoreAdj(staticLow, be, 16 * GiB)).toBe(1000);
    expect(containerOomScoreAdj(staticLow, be, 16 * GiB, { cluster: true })).toBe(-997);
  });
});
