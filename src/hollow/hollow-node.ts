// One hollow node: the agent's own configuration and start (src/agent's resolveAgentConfig and startNode),
// given the flags a kubelet of a scalability test would have and the dependencies that make its host
// imaginary — the in-memory runtime on the fleet's schedule, the in-memory cgroup tree, the host network
// and machine of hollow-host.ts, no kernel log, no systemd. Everything between the sources and the API
// server is the agent's real code; only what touches this machine is replaced.
import { join } from "node:path";
import { loadNode, resolveAgentConfig, type AgentConfig } from "../agent";
import { MemoryCgroupManager } from "../cm";
import { MemoryRuntime, type MemorySchedule } from "../cri";
import type { HostFacts } from "../nodestatus";
import { MemoryMounter } from "../volume";
import { type Clock, type Logger, withFields } from "../util";
import { hollowAddresses } from "./hollow-addresses";
import { HollowHostNetwork, hollowHostFacts } from "./hollow-host";
import type { HollowOptions } from "./hollow-options";

/** What the fleet's nodes share. */
export interface FleetShared {
  clock: Clock;
  log: Logger;
  /** One clock timer for every runtime's latencies and exits. */
  schedule: MemorySchedule;
  /** This host's kernel, OS and architecture, read once. */
  baseFacts: HostFacts;
}

export interface StartedHollowNode {
  name: string;
  runtime: MemoryRuntime;
  /** Resolves once its Node exists in the API server. */
  registered: Promise<void>;
  stop(): Promise<void>;
}

export function hollowNodeName(o: Pick<HollowOptions, "namePrefix">, i: number): string {
  return `${o.namePrefix}${i}`;
}

/** The agent's flags for hollow node i: every path under its own root, no server beyond loopback, no eviction of a host it does not own. */
export function hollowNodeFlags(o: HollowOptions, i: number): Record<string, string | boolean> {
  const name = hollowNodeName(o, i);
  const root = join(o.rootDir, name);
  return {
    "hostname-override": name,
    "root-dir": root,
    "pod-logs-dir": join(root, "logs"),
    "cert-dir": join(root, "pki"),
    // Plain HTTP on a loopback port of its own: the API server never reaches a hollow node's API (the
    // runtime has no logs and no streams), and a TLS key per node would cost a thousand key pairs.
    port: "0",
    "insecure-http": true,
    "max-pods": String(o.maxPods),
    // The kubelet's client limits, per node (the Lease and status heartbeat is not limited, as the kubelet's).
    "kube-api-qps": String(o.qps),
    "kube-api-burst": String(o.burst),
    // The host's memory and disks are not the hollow node's: no thresholds, no evictions.
    "eviction-hard": "",
    "log-format": o.logFormat,
    ...(o.nodeLabels ? { "node-labels": o.nodeLabels } : {}),
    ...(o.bootstrapKubeconfig ? { kubeconfig: join(root, "kubeconfig"), "bootstrap-kubeconfig": o.bootstrapKubeconfig } : { kubeconfig: o.kubeconfig }),
  };
}

/** The node's AgentConfig: the agent's own checks, so a hollow node is configured exactly as `nodeagent agent` would be. */
export function hollowNodeConfig(o: HollowOptions, i: number): AgentConfig {
  const flags = hollowNodeFlags(o, i);
  return resolveAgentConfig(flags, new Set(Object.keys(flags)));
}

export async function startHollowNode(o: HollowOptions, i: number, shared: FleetShared): Promise<StartedHollowNode> {
  const name = hollowNodeName(o, i);
  const { nodeIP, podCidr } = hollowAddresses(i);
  const config = hollowNodeConfig(o, i);
  const log = withFields(shared.log, { node: name });
  const runtime = new MemoryRuntime({
    clock: shared.clock,
    schedule: shared.schedule,
    startLatencyMs: o.podStartLatencyMs,
    podCidr,
    endpoint: `memory://${name}`,
    imageFsMountpoint: o.rootDir,
  });
  const { startNode } = await loadNode();
  const node = await startNode(config, {
    clock: shared.clock,
    log,
    resolveRuntime: async () => ({ endpoint: runtime.endpoint, release: async () => {} }),
    criClient: () => runtime,
    hostNetwork: new HollowHostNetwork(nodeIP),
    hostFacts: hollowHostFacts(shared.baseFacts, o.capacity, name),
    cgroups: new MemoryCgroupManager(config.cgroups.driver),
    mounter: new MemoryMounter(),
    systemdRunning: () => false,
    kernelLog: () => ({ drain: () => [], close() {} }),
    notifyEnv: {},
  });
  return { name, runtime, registered: node.registered, stop: () => node.stop() };
}
