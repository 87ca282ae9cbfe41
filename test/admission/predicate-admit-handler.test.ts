// PredicateAdmitHandler: every reason the kubelet's predicate admit handler gives, with its message,
// against a Node as the agent builds it and the other active pods.
import { describe, expect, test } from "bun:test";
import type { Node, Pod } from "kubernetes-types/core/v1";
import { PredicateAdmitHandler, type AdmissionFailureHandler, type PredicateFailure } from "../../src/admission";
import { NODE, node, pod } from "./fixtures";

function admit(p: Pod, others: Pod[] = [], n: Node | undefined = node(), failureHandler?: AdmissionFailureHandler) {
  return new PredicateAdmitHandler({ node: () => n, ...(failureHandler ? { failureHandler } : {}) }).admit({ pod: p, otherPods: others });
}

describe("resources against allocatable minus the other pods' requests", () => {
  test("cpu: OutOfcpu with the kubelet's message, in millicores", () => {
    const others = [pod("a", { requests: { cpu: "500m" } }), pod("b", { requests: { cpu: "1" } })];
    expect(admit(pod("big", { requests: { cpu: "1" } }), others)).toEqual({
      admit: false,
      reason: "OutOfcpu",
      message: "Node didn't have enough resource: cpu, requested: 1000, used: 1500, capacity: 2000",
    });
    // What is left fits exactly.
    expect(admit(pod("fits", { requests: { cpu: "500m" } }), others)).toEqual({ admit: true });
  });

  test("a static pod asking for more cpu than the node has is refused even on an empty node", () => {
    expect(admit(pod("huge", { requests: { cpu: "1000" } }))).toEqual({
      admit: false,
      reason: "OutOfcpu",
      message: "Node didn't have enough resource: cpu, requested: 1000000, used: 0, capacity: 2000",
    });
  });

  test("memory and ephemeral-storage, in bytes", () => {
    expect(admit(pod("m", { requests: { memory: "5Gi" } }))).toEqual({
      admit: false,
      reason: "OutOfmemory",
      message: `Node didn't have enough resource: memory, requested: ${5 * 2 ** 30}, used: 0, capacity: ${4 * 2 ** 30}`,
    });
    expect(admit(pod("e", { requests: { "ephemeral-storage": "6Gi" } }), [pod("o", { requests: { "ephemeral-storage": "5Gi" } })])).toEqual({
      admit: false,
      reason: "OutOfephemeral-storage",
      message: `Node didn't have enough resource: ephemeral-storage, requested: ${6 * 2 ** 30}, used: ${5 * 2 ** 30}, capacity: ${10 * 2 ** 30}`,
    });
  });

  test("requests are max(sum of containers, largest init container) plus the overhead", () => {
    const init = pod("init", {
      requests: { cpu: "500m" },
      spec: { initContainers: [{ name: "setup", image: "busybox", resources: { requests: { cpu: "1500m" } } }] },
    });
    expect(admit(init, [pod("o", { requests: { cpu: "1" } })])).toMatchObject({
      reason: "OutOfcpu",
      message: "Node didn't have enough resource: cpu, requested: 1500, used: 1000, capacity: 2000",
    });
    const overhead = pod("oh", { requests: { cpu: "1" }, spec: { overhead: { cpu: "250m" } } });
    expect(admit(overhead, [pod("o", { requests: { cpu: "1" } })])).toMatchObject({
      reason: "OutOfcpu",
      message: "Node didn't have enough resource: cpu, requested: 1250, used: 1000, capacity: 2000",
    });
    // The other pods' init containers and overhead count the same way.
    expect(admit(pod("p", { requests: { cpu: "600m" } }), [init])).toMatchObject({
      reason: "OutOfcpu",
      message: "Node didn't have enough resource: cpu, requested: 600, used: 1500, capacity: 2000",
    });
  });

  test("an extended resource the node has is checked; one it does not have at all is dropped from the request", () => {
    const withGpu = node({ cpu: "2", memory: "4Gi", pods: "110", "example.com/gpu": "1" });
    expect(admit(pod("g", { requests: { "example.com/gpu": "2" } }), [], withGpu)).toEqual({
      admit: false,
      reason: "OutOfexample.com/gpu",
      message: "Node didn't have enough resource: example.com/gpu, requested: 2, used: 0, capacity: 1",
    });
    expect(admit(pod("f", { requests: { "example.com/fpga": "4", cpu: "100m" } }), [], withGpu)).toEqual({ admit: true });
    // hugepages are not extended resources: a node without any refuses them.
    expect(admit(pod("h", { requests: { "hugepages-2Mi": "4Mi" } }), [], withGpu)).toMatchObject({ admit: false, reason: "OutOfhugepages-2Mi" });
  });

  test("the pod count: OutOfpods, the message unchanged from --max-pods", () => {
    const two = node({ cpu: "2", memory: "4Gi", pods: "2" });
    expect(admit(pod("c"), [pod("a"), pod("b")], two)).toEqual({
      admit: false,
      reason: "OutOfpods",
      message: "Node didn't have enough resource: pods, requested: 1, used: 2, capacity: 2",
    });
    expect(admit(pod("b"), [pod("a")], two)).toEqual({ admit: true });
  });

  test("several failures: the first is reported, the pod count before cpu, resources before affinity", () => {
    const two = node({ cpu: "2", memory: "4Gi", pods: "1" });
    expect(admit(pod("x", { requests: { cpu: "3", memory: "8Gi" }, spec: { nodeSelector: { disk: "ssd" } } }), [pod("a")], two)).toMatchObject({
      reason: "OutOfpods",
    });
    expect(admit(pod("x", { requests: { cpu: "3", memory: "8Gi" }, spec: { nodeSelector: { disk: "ssd" } } }))).toMatchObject({ reason: "OutOfcpu" });
    expect(admit(pod("x", { requests: { memory: "8Gi" }, spec: { nodeSelector: { disk: "ssd" } } }))).toMatchObject({ reason: "OutOfmemory" });
  });
});

describe("the other predicates: `Predicate <Name> failed`", () => {
  test("nodeSelector and required node affinity against the node's labels: NodeAffinity", () => {
    const ssd = node(undefined, { labels: { disk: "ssd" } });
    expect(admit(pod("s", { spec: { nodeSelector: { disk: "hdd" } } }), [], ssd)).toEqual({
      admit: false,
      reason: "NodeAffinity",
      message: "Predicate NodeAffinity failed",
    });
    expect(admit(pod("s", { spec: { nodeSelector: { disk: "ssd" } } }), [], ssd)).toEqual({ admit: true });
    const affinity = (values: string[]) => ({
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: "disk", operator: "In", values }] }] },
        },
      },
    });
    expect(admit(pod("a", { spec: affinity(["nvme"]) }), [], ssd)).toMatchObject({ reason: "NodeAffinity" });
    expect(admit(pod("a", { spec: affinity(["nvme", "ssd"]) }), [], ssd)).toEqual({ admit: true });
  });

  test("spec.nodeName naming another node: NodeName", () => {
    expect(admit(pod("n", { spec: { nodeName: "node-2" } }))).toEqual({ admit: false, reason: "NodeName", message: "Predicate NodeName failed" });
    expect(admit(pod("n", { spec: { nodeName: NODE } }))).toEqual({ admit: true });
  });

  test("a host port another active pod holds: NodePorts (0.0.0.0 conflicts with every address, protocols apart)", () => {
    const holder = pod("web", { hostPort: { port: 8080 } });
    expect(admit(pod("web2", { hostPort: { port: 8080 } }), [holder])).toEqual({ admit: false, reason: "NodePorts", message: "Predicate NodePorts failed" });
    expect(admit(pod("web2", { hostPort: { port: 8080, hostIP: "127.0.0.1" } }), [holder])).toMatchObject({ reason: "NodePorts" });
    expect(admit(pod("dns", { hostPort: { port: 8080, protocol: "UDP" } }), [holder])).toEqual({ admit: true });
    expect(admit(pod("web3", { hostPort: { port: 8081 } }), [holder])).toEqual({ admit: true });
    const local = pod("local", { hostPort: { port: 9000, hostIP: "127.0.0.1" } });
    expect(admit(pod("other-ip", { hostPort: { port: 9000, hostIP: "127.0.0.2" } }), [local])).toEqual({ admit: true });
  });

  test("an untolerated NoExecute taint refuses API pods only: TaintToleration", () => {
    const tainted = node(undefined, { taints: [{ key: "dedicated", value: "db", effect: "NoExecute" }] });
    expect(admit(pod("api", { source: "api" }), [], tainted)).toEqual({ admit: false, reason: "TaintToleration", message: "Predicate TaintToleration failed" });
    // Static pods (file, URL, pushed: every pod of a standalone node) are never checked, as the kubelet's IsStaticPod.
    expect(admit(pod("file", { source: "file" }), [], tainted)).toEqual({ admit: true });
    expect(admit(pod("pushed", { source: "push" }), [], tainted)).toEqual({ admit: true });
    const tolerates = pod("tol", { source: "api", spec: { tolerations: [{ key: "dedicated", operator: "Equal", value: "db", effect: "NoExecute" }] } });
    expect(admit(tolerates, [], tainted)).toEqual({ admit: true });
    // NoSchedule is the scheduler's business: a pod bound by nodeName skipped it on purpose.
    const noSchedule = node(undefined, { taints: [{ key: "dedicated", value: "db", effect: "NoSchedule" }] });
    expect(admit(pod("api", { source: "api" }), [], noSchedule)).toEqual({ admit: true });
  });
});

describe("the node, the OS, and the failure handler", () => {
  test("no Node (not built yet, or its getter throws): InvalidNodeInfo", () => {
    const none = new PredicateAdmitHandler({ node: () => undefined });
    expect(none.admit({ pod: pod("p"), otherPods: [] })).toEqual({ admit: false, reason: "InvalidNodeInfo", message: "Kubelet cannot get node info." });
    const throwing = new PredicateAdmitHandler({
      node: () => {
        throw new Error("runtime down");
      },
    });
    expect(throwing.admit({ pod: pod("p"), otherPods: [] })).toMatchObject({ reason: "InvalidNodeInfo" });
  });

  test("a kubernetes.io/os pod label other than linux, and a spec.os that is not linux", () => {
    expect(admit(pod("w", { labels: { "kubernetes.io/os": "windows" } }))).toEqual({
      admit: false,
      reason: "PodOSSelectorNodeLabelDoesNotMatch",
      message: "Failed to admit pod as the `kubernetes.io/os` label doesn't match node label",
    });
    expect(admit(pod("l", { labels: { "kubernetes.io/os": "linux" } }))).toEqual({ admit: true });
    expect(admit(pod("w", { spec: { os: { name: "windows" } } }))).toEqual({
      admit: false,
      reason: "PodOSNotSupported",
      message: "Failed to admit pod as the OS field doesn't match node OS",
    });
    expect(admit(pod("l", { spec: { os: { name: "linux" } } }))).toEqual({ admit: true });
  });

  test("the failure handler sees every failure and decides what stands; an error is UnexpectedAdmissionError", () => {
    const seen: PredicateFailure[][] = [];
    const clearing: AdmissionFailureHandler = {
      handleAdmissionFailure: (_p, failures) => {
        seen.push([...failures]);
        return { failures: failures.filter((f) => f.kind !== "resource") };
      },
    };
    const holder = pod("web", { hostPort: { port: 80 } });
    expect(admit(pod("x", { requests: { cpu: "3" } }), [holder], node(), clearing)).toEqual({ admit: true });
    expect(admit(pod("y", { requests: { cpu: "3" }, hostPort: { port: 80 } }), [holder], node(), clearing)).toMatchObject({ reason: "NodePorts" });
    expect(seen[1]!.map((f) => (f.kind === "resource" ? `OutOf${f.resource.resourceName}` : f.name))).toEqual(["OutOfcpu", "NodePorts"]);
    const failing: AdmissionFailureHandler = { handleAdmissionFailure: () => ({ error: "boom" }) };
    expect(admit(pod("z", { requests: { cpu: "3" } }), [], node(), failing)).toEqual({
      admit: false,
      reason: "UnexpectedAdmissionError",
      message: "Unexpected error while attempting to recover from admission failure: boom",
    });
  });
});
