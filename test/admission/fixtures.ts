// Pods and a Node for the admission tests: the Node as the agent builds it (labels, taints,
// allocatable), pods with requests, host ports, priorities and a config source.
import type { Container, Node, Pod, Taint } from "kubernetes-types/core/v1";
import { CONFIG_SOURCE_ANNOTATION } from "../../src/api/annotations";

export const NODE = "node-1";

export function node(
  allocatable: Record<string, string> = { cpu: "2", memory: "4Gi", pods: "110", "ephemeral-storage": "10Gi" },
  extra: { labels?: Record<string, string>; taints?: Taint[] } = {},
): Node {
  return {
    metadata: { name: NODE, labels: { "kubernetes.io/hostname": NODE, "kubernetes.io/os": "linux", ...extra.labels } },
    spec: extra.taints ? { taints: extra.taints } : {},
    status: { capacity: allocatable, allocatable },
  };
}

export interface PodOptions {
  requests?: Record<string, string>;
  limits?: Record<string, string>;
  priority?: number;
  /** kubernetes.io/config.source: "api" for an API pod, "file" (default) for a static pod. */
  source?: string;
  hostPort?: { port: number; protocol?: string; hostIP?: string };
  spec?: Partial<NonNullable<Pod["spec"]>>;
  labels?: Record<string, string>;
  grace?: number;
}

export function pod(name: string, o: PodOptions = {}): Pod {
  const c: Container = {
    name: "app",
    image: "busybox",
    ...(o.requests || o.limits ? { resources: { ...(o.requests ? { requests: o.requests } : {}), ...(o.limits ? { limits: o.limits } : {}) } } : {}),
    ...(o.hostPort
      ? {
          ports: [
            {
              containerPort: 80,
              hostPort: o.hostPort.port,
              ...(o.hostPort.protocol ? { protocol: o.hostPort.protocol } : {}),
              ...(o.hostPort.hostIP ? { hostIP: o.hostPort.hostIP } : {}),
            },
          ],
        }
      : {}),
  };
  return {
    metadata: {
      name,
      namespace: "default",
      uid: `uid-${name}`,
      annotations: { [CONFIG_SOURCE_ANNOTATION]: o.source ?? "file" },
      ...(o.labels ? { labels: o.labels } : {}),
    },
    spec: {
      containers: [c],
      ...(o.priority !== undefined ? { priority: o.priority } : {}),
      ...(o.grace !== undefined ? { terminationGracePeriodSeconds: o.grace } : {}),
      ...o.spec,
    },
  };
}
