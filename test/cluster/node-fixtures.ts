// A Node as the agent's buildNode makes it, small enough to read in a test.
import type { Node, NodeCondition } from "kubernetes-types/core/v1";

const T0 = "2026-01-01T00:00:00Z";

function condition(type: string, ok: boolean, reason: string, message: string): NodeCondition {
  return { type, status: ok ? "True" : "False", reason, message, lastHeartbeatTime: T0, lastTransitionTime: T0 };
}

export interface BuiltNodeOptions {
  name?: string;
  labels?: Record<string, string>;
  cpu?: string;
  internalIP?: string;
  /** The runtime's not-ready reason, as buildNode words it. */
  runtimeError?: string;
}

export function builtNode(o: BuiltNodeOptions = {}): Node {
  const name = o.name ?? "n1";
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name,
      labels: {
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        "beta.kubernetes.io/os": "linux",
        "beta.kubernetes.io/arch": "amd64",
        ...o.labels,
      },
    },
    spec: { taints: [{ key: "example.com/new", effect: "NoSchedule" }] },
    status: {
      capacity: { cpu: o.cpu ?? "4", memory: "8Gi", pods: "110" },
      allocatable: { cpu: o.cpu ?? "4", memory: "7Gi", pods: "110" },
      conditions: [
        condition("MemoryPressure", false, "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
        condition("DiskPressure", false, "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
        condition("PIDPressure", false, "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
        o.runtimeError
          ? condition("Ready", false, "KubeletNotReady", o.runtimeError)
          : condition("Ready", true, "KubeletReady", "kubelet is posting ready status"),
      ],
      addresses: [
        { type: "InternalIP", address: o.internalIP ?? "10.0.0.5" },
        { type: "Hostname", address: name },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        machineID: "m",
        systemUUID: "s",
        bootID: "b",
        kernelVersion: "6.1.0",
        osImage: "Debian GNU/Linux 12 (bookworm)",
        containerRuntimeVersion: "containerd://1.6.20",
        kubeletVersion: "nodeagent/0.1.0",
        kubeProxyVersion: "",
        operatingSystem: "linux",
        architecture: "amd64",
      },
      images: [{ names: ["docker.io/library/busybox:1.36"], sizeBytes: 1000 }],
    },
  };
}
