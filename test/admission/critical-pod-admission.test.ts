// CriticalPodAdmissionHandler behind the PredicateAdmitHandler: a critical pod (priority ≥ 2×10⁹)
// failing only on resources is admitted after the fewest, lowest lower-priority pods are preempted
// (reason Preempting); otherwise it is refused as the kubelet refuses it.
import { describe, expect, test } from "bun:test";
import type { Node, Pod } from "kubernetes-types/core/v1";
import { CriticalPodAdmissionHandler, PREEMPTED_MESSAGE, PREEMPTING_REASON, PredicateAdmitHandler } from "../../src/admission";
import { qosClass } from "../../src/status/api-status";
import { FakePreemptionTarget } from "../fakes/preemption-target";
import { node, pod, type PodOptions } from "./fixtures";

const CRITICAL = 2_000_000_000;

function setup(n: Node = node()) {
  const target = new FakePreemptionTarget();
  const handler = new PredicateAdmitHandler({ node: () => n, failureHandler: new CriticalPodAdmissionHandler({ target, qosClass }) });
  return { target, admit: (p: Pod, others: Pod[]) => handler.admit({ pod: p, otherPods: others }) };
}

/** A Guaranteed pod: limits equal to its requests. */
const guaranteed = (name: string, cpu: string, o: PodOptions = {}) => pod(name, { requests: { cpu, memory: "100Mi" }, limits: { cpu, memory: "100Mi" }, ...o });
const burstable = (name: string, cpu: string, o: PodOptions = {}) => pod(name, { requests: { cpu }, ...o });

describe("a critical pod short of resources", () => {
  test("is admitted once a lower pod that frees enough is preempted: Failed, Preempting, its own grace period", () => {
    const t = setup();
    const others = [burstable("b", "1500m", { grace: 7 }), guaranteed("g", "500m")];
    expect(t.admit(pod("crit", { requests: { cpu: "1" }, priority: CRITICAL }), others)).toEqual({ admit: true });
    // Burstable before Guaranteed: the Guaranteed pod is needed only for what the others cannot free.
    expect(t.target.evicted).toEqual([{ name: "b", reason: PREEMPTING_REASON, message: PREEMPTED_MESSAGE, gracePeriodSeconds: 7 }]);
    expect(PREEMPTED_MESSAGE).toBe("Preempted in order to admit critical pod");
  });

  test("only asked (a push being checked): admitted, nothing preempted", () => {
    const t = setup();
    const handler = new PredicateAdmitHandler({ node: () => node(), failureHandler: new CriticalPodAdmissionHandler({ target: t.target, qosClass }) });
    expect(handler.admit({ pod: pod("crit", { requests: { cpu: "1" }, priority: CRITICAL }), otherPods: [burstable("b", "1500m")], dryRun: true })).toEqual({
      admit: true,
    });
    expect(t.target.evicted).toEqual([]);
  });

  test("the fewest pods: the one closest to what is missing, the smaller on a tie", () => {
    const t = setup();
    const others = [burstable("small", "300m"), burstable("right", "600m"), burstable("large", "1000m")];
    // 1900m used of 2000m: 600m missing for 700m. 600m and 1000m both cover it; 600m is smaller.
    expect(t.admit(pod("crit", { requests: { cpu: "700m" }, priority: CRITICAL }), others)).toEqual({ admit: true });
    expect(t.target.evicted.map((e) => e.name)).toEqual(["right"]);
  });

  test("several pods when no one pod is enough, and BestEffort pods first for a pod slot", () => {
    const t = setup();
    const others = [burstable("a", "700m"), burstable("b", "700m"), burstable("c", "600m")];
    // 1200m missing: one 700m pod first (the closest; of two equal ones the later, as the kubelet's
    // tie-break), then the 600m one, which covers the remaining 500m with the smaller request.
    expect(t.admit(pod("crit", { requests: { cpu: "1200m" }, priority: CRITICAL }), others)).toEqual({ admit: true });
    expect(t.target.evicted.map((e) => e.name)).toEqual(["b", "c"]);

    const slots = setup(node({ cpu: "2", memory: "4Gi", pods: "2" }));
    expect(slots.admit(pod("crit", { priority: CRITICAL }), [guaranteed("g", "100m"), pod("be")])).toEqual({ admit: true });
    expect(slots.target.evicted.map((e) => e.name)).toEqual(["be"]);
  });

  test("critical pods and pods of higher priority are never preempted; when the rest cannot free enough nothing is, and the pod is refused", () => {
    const t = setup();
    const others = [burstable("other-critical", "1500m", { priority: CRITICAL }), burstable("low", "400m")];
    expect(t.admit(pod("crit", { requests: { cpu: "1" }, priority: CRITICAL }), others)).toEqual({
      admit: false,
      reason: "UnexpectedAdmissionError",
      message:
        "Unexpected error while attempting to recover from admission failure: preemption: error finding a set of pods to preempt: no set of running pods found to reclaim resources: [(res: cpu, q: 500), ]",
    });
    expect(t.target.evicted).toEqual([]);
  });

  test("a failure other than resources stands, and only it is reported; nothing is preempted", () => {
    const t = setup();
    const others = [burstable("web", "1500m", { hostPort: { port: 80 } })];
    expect(t.admit(pod("crit", { requests: { cpu: "1" }, priority: CRITICAL, hostPort: { port: 80 } }), others)).toEqual({
      admit: false,
      reason: "NodePorts",
      message: "Predicate NodePorts failed",
    });
    expect(t.target.evicted).toEqual([]);
  });

  test("a pod that is not critical is refused as usual, and a static pod is not critical by itself (standalone: every pod is static)", () => {
    const t = setup();
    const others = [burstable("low", "1500m", { priority: 0 })];
    expect(t.admit(pod("high", { requests: { cpu: "1" }, priority: CRITICAL - 1 }), others)).toMatchObject({ admit: false, reason: "OutOfcpu" });
    expect(t.admit(pod("static", { requests: { cpu: "1" }, source: "file" }), others)).toMatchObject({ admit: false, reason: "OutOfcpu" });
    expect(t.target.evicted).toEqual([]);
  });

  test("a kubeadm-style pod (system-node-critical by name, no priority) is critical; in a cluster a static pod is critical by itself", () => {
    const t = setup();
    const others = [burstable("low", "1500m")];
    expect(t.admit(pod("etcd", { requests: { cpu: "1" }, spec: { priorityClassName: "system-node-critical" }, source: "file" }), others)).toEqual({
      admit: true,
    });
    expect(t.target.evicted.map((e) => e.name)).toEqual(["low"]);
    const target = new FakePreemptionTarget();
    const inCluster = new PredicateAdmitHandler({ node: () => node(), failureHandler: new CriticalPodAdmissionHandler({ target, qosClass, cluster: true }) });
    // The victim must be an API pod: in a cluster a static one is critical too, never preempted.
    expect(inCluster.admit({ pod: pod("static", { requests: { cpu: "1" }, source: "file" }), otherPods: [burstable("static-low", "1500m")] })).toMatchObject({
      admit: false,
      reason: "UnexpectedAdmissionError",
    });
    expect(
      inCluster.admit({ pod: pod("static", { requests: { cpu: "1" }, source: "file" }), otherPods: [burstable("low", "1500m", { source: "api" })] }),
    ).toEqual({ admit: true });
    expect(target.evicted.map((e) => e.name)).toEqual(["low"]);
  });

  test("a victim already on its way out is skipped (logged), and the critical pod is still admitted", () => {
    const t = setup();
    t.target.gone.add("b");
    expect(t.admit(pod("crit", { requests: { cpu: "1" }, priority: CRITICAL }), [burstable("b", "1500m")])).toEqual({ admit: true });
    expect(t.target.evicted).toEqual([]);
  });
});
