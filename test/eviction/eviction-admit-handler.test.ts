import { describe, expect, test } from "bun:test";
import type { Pod } from "kubernetes-types/core/v1";
import { EvictionAdmitHandler } from "../../src/eviction/eviction-admit-handler";
import type { PressureCondition } from "../../src/eviction/signals";

const bestEffort: Pod = { metadata: { name: "be" }, spec: { containers: [{ name: "c" }] } };
const burstable: Pod = { metadata: { name: "bu" }, spec: { containers: [{ name: "c", resources: { requests: { memory: "10Mi" } } }] } };
const initOnly: Pod = {
  metadata: { name: "init" },
  spec: { initContainers: [{ name: "i", resources: { limits: { cpu: "1" } } }], containers: [{ name: "c" }] },
};
const critical: Pod = { metadata: { name: "crit" }, spec: { containers: [{ name: "c" }], priority: 2_000_000_000 } };
const tolerating = (t: NonNullable<Pod["spec"]>["tolerations"]): Pod => ({ ...bestEffort, spec: { ...bestEffort.spec!, tolerations: t } });

function admit(conditions: PressureCondition[], pod: Pod) {
  return new EvictionAdmitHandler(() => new Set(conditions)).admit({ pod, otherPods: [] });
}

describe("EvictionAdmitHandler (the eviction manager's Admit)", () => {
  test("no pressure: every pod", () => {
    expect(admit([], bestEffort)).toEqual({ admit: true });
  });

  test("MemoryPressure alone: BestEffort pods refused with reason Evicted and the kubelet's message; others admitted", () => {
    expect(admit(["MemoryPressure"], bestEffort)).toEqual({ admit: false, reason: "Evicted", message: "The node had condition: [MemoryPressure]. " });
    expect(admit(["MemoryPressure"], burstable)).toEqual({ admit: true });
    // A request or limit on an init container is enough not to be BestEffort.
    expect(admit(["MemoryPressure"], initOnly)).toEqual({ admit: true });
  });

  test("MemoryPressure alone: a BestEffort pod tolerating node.kubernetes.io/memory-pressure:NoSchedule is admitted", () => {
    expect(admit(["MemoryPressure"], tolerating([{ key: "node.kubernetes.io/memory-pressure", operator: "Exists", effect: "NoSchedule" }]))).toEqual({
      admit: true,
    });
    expect(admit(["MemoryPressure"], tolerating([{ operator: "Exists" }]))).toEqual({ admit: true });
    expect(admit(["MemoryPressure"], tolerating([{ key: "node.kubernetes.io/memory-pressure", value: "", effect: "" }]))).toEqual({ admit: true });
    // Another taint's toleration, or the NoExecute effect only, does not do.
    expect(admit(["MemoryPressure"], tolerating([{ key: "node.kubernetes.io/disk-pressure", operator: "Exists" }])).admit).toBe(false);
    expect(admit(["MemoryPressure"], tolerating([{ key: "node.kubernetes.io/memory-pressure", operator: "Exists", effect: "NoExecute" }])).admit).toBe(false);
  });

  test("any other pressure refuses every non-critical pod, the conditions listed as Go prints a slice", () => {
    expect(admit(["DiskPressure"], burstable)).toEqual({ admit: false, reason: "Evicted", message: "The node had condition: [DiskPressure]. " });
    expect(admit(["MemoryPressure", "PIDPressure"], burstable)).toEqual({
      admit: false,
      reason: "Evicted",
      message: "The node had condition: [MemoryPressure PIDPressure]. ",
    });
    expect(admit(["DiskPressure"], tolerating([{ operator: "Exists" }])).admit).toBe(false);
  });

  test("critical pods are admitted under any pressure", () => {
    expect(admit(["MemoryPressure", "DiskPressure", "PIDPressure"], critical)).toEqual({ admit: true });
  });

  test("a kubeadm-style static pod (system-node-critical by name, no priority) is critical; a static pod without it only in a cluster", () => {
    const kubeadm: Pod = {
      metadata: { name: "etcd", annotations: { "kubernetes.io/config.source": "file" } },
      spec: { containers: [{ name: "c" }], priorityClassName: "system-node-critical" },
    };
    expect(admit(["DiskPressure"], kubeadm)).toEqual({ admit: true });
    const plain: Pod = { ...bestEffort, metadata: { name: "s", annotations: { "kubernetes.io/config.source": "file" } } };
    expect(admit(["DiskPressure"], plain).admit).toBe(false);
    expect(new EvictionAdmitHandler(() => new Set(["DiskPressure"]), { cluster: true }).admit({ pod: plain, otherPods: [] })).toEqual({ admit: true });
  });
});
