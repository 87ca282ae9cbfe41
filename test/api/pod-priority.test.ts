// A pod's priority and the kubelet's IsCriticalPod, the one rule every layer asks (src/api/pod-priority.ts).
import { describe, expect, test } from "bun:test";
import type { Pod } from "kubernetes-types/core/v1";
import {
  declaredPriority,
  isCriticalPod,
  isNodeCriticalPod,
  isPreemptable,
  podPriority,
  SYSTEM_CRITICAL_PRIORITY,
  SYSTEM_PRIORITY_CLASSES,
} from "../../src/api/pod-priority";

function pod(o: { priority?: number; className?: string; source?: string; mirror?: boolean } = {}): Pod {
  const annotations: Record<string, string> = {};
  if (o.source) annotations["kubernetes.io/config.source"] = o.source;
  if (o.mirror) annotations["kubernetes.io/config.mirror"] = "hash";
  return {
    metadata: { name: "p", annotations },
    spec: {
      containers: [{ name: "c" }],
      ...(o.priority !== undefined ? { priority: o.priority } : {}),
      ...(o.className ? { priorityClassName: o.className } : {}),
    },
  };
}

describe("podPriority", () => {
  test("the built-in classes have the scheduling API's values", () => {
    expect(SYSTEM_CRITICAL_PRIORITY).toBe(2_000_000_000);
    expect(SYSTEM_PRIORITY_CLASSES).toEqual({ "system-node-critical": 2_000_001_000, "system-cluster-critical": 2_000_000_000 });
  });

  test.each([
    ["no priority, no class", {}, undefined, 0],
    ["spec.priority", { priority: 7 }, 7, 7],
    ["a built-in class by name (a kubeadm manifest)", { className: "system-node-critical" }, 2_000_001_000, 2_000_001_000],
    ["system-cluster-critical by name", { className: "system-cluster-critical" }, 2_000_000_000, 2_000_000_000],
    ["spec.priority wins over the class name", { className: "system-node-critical", priority: 5 }, 5, 5],
    ["a class only the API server knows", { className: "high" }, undefined, 0],
  ] as const)("%s", (_name, o, declared, value) => {
    expect(declaredPriority(pod(o))).toBe(declared);
    expect(podPriority(pod(o))).toBe(value);
  });
});

describe("isCriticalPod (kubelettypes.IsCriticalPod)", () => {
  test.each([
    // [case, pod, standalone, cluster]
    ["an ordinary pod", {}, false, false],
    ["priority 2×10⁹", { priority: 2_000_000_000 }, true, true],
    ["priority just below", { priority: 1_999_999_999 }, false, false],
    ["kubeadm static pod: system-node-critical by name, no priority", { className: "system-node-critical", source: "file" }, true, true],
    ["system-cluster-critical by name", { className: "system-cluster-critical", source: "api" }, true, true],
    ["a static pod of no priority: critical only in a cluster", { source: "file" }, false, true],
    ["a pushed pod of no priority: critical only in a cluster", { source: "push" }, false, true],
    ["a URL pod of no priority: critical only in a cluster", { source: "http" }, false, true],
    ["a mirror pod: critical in a cluster", { source: "api", mirror: true }, false, true],
    ["an API pod of no priority: never", { source: "api" }, false, false],
  ] as const)("%s", (_name, o, standalone, cluster) => {
    expect(isCriticalPod(pod(o), { cluster: false })).toBe(standalone);
    expect(isCriticalPod(pod(o), { cluster: true })).toBe(cluster);
  });

  test("isNodeCriticalPod: critical and of the system-node-critical class", () => {
    expect(isNodeCriticalPod(pod({ className: "system-node-critical" }), { cluster: false })).toBe(true);
    expect(isNodeCriticalPod(pod({ className: "system-cluster-critical" }), { cluster: false })).toBe(false);
    // The name with a priority that says otherwise: not critical standalone, critical as a static pod of a cluster.
    const low = pod({ className: "system-node-critical", priority: 0, source: "file" });
    expect(isNodeCriticalPod(low, { cluster: false })).toBe(false);
    expect(isNodeCriticalPod(low, { cluster: true })).toBe(true);
  });

  test("isPreemptable: a critical pod preempts a non-critical one; otherwise only a lower declared priority", () => {
    const kubeadm = pod({ className: "system-node-critical", source: "file" });
    expect(isPreemptable(kubeadm, pod({ priority: 10 }), { cluster: false })).toBe(true);
    expect(isPreemptable(kubeadm, pod({ className: "system-cluster-critical" }), { cluster: false })).toBe(true); // 2000001000 > 2000000000
    expect(isPreemptable(pod({ className: "system-cluster-critical" }), kubeadm, { cluster: false })).toBe(false);
    expect(isPreemptable(pod({ priority: 10 }), pod({ priority: 5 }), { cluster: false })).toBe(true);
    // A pod without a priority (nil in the kubelet) is never preempted by priority alone.
    expect(isPreemptable(pod({ priority: 10 }), pod(), { cluster: false })).toBe(false);
    // In a cluster a static pod is critical: not preemptable by another critical pod.
    expect(isPreemptable(kubeadm, pod({ source: "file" }), { cluster: true })).toBe(false);
    expect(isPreemptable(kubeadm, pod({ source: "file" }), { cluster: false })).toBe(true);
  });
});
