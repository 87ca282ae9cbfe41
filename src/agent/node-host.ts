// The host phase: the Node's addresses, by the kubelet's rules, once (the pods' hostIP is the Node's
// InternalIP, so both come from this one answer), and the node's cgroups (src/cm), set up before the
// runtime starts.
import type { Pod } from "kubernetes-types/core/v1";
import { parseQuantity } from "../api";
import { ContainerManager, FsCgroupManager } from "../cm";
import type { NodeEventRecorder } from "../events";
import { type Clock, ConfigError, errorMessage, type Logger } from "../util";
import type { AgentConfig } from "./agent-config";
import type { NodeContext, NodeDeps } from "./node-context";
import { readHostFacts, realHostNetwork, resolveNodeAddresses } from "../nodestatus";

/** The Node's addresses (the kubelet's getHostIPAnyWay reads the pods' hostIP off the Node). */
export async function nodeAddresses(ctx: NodeContext): Promise<Awaited<ReturnType<typeof resolveNodeAddresses>>> {
  const { config, deps, nodeName, log } = ctx;
  let nodeAddresses;
  try {
    nodeAddresses = await resolveNodeAddresses({ nodeIPs: config.nodeIPs, nodeName, net: deps.hostNetwork ?? realHostNetwork });
  } catch (e) {
    throw new ConfigError(`--node-ip ${config.nodeIPs.join(",")}: ${errorMessage(e)}`);
  }
  if (nodeAddresses.warning) log.warn(nodeAddresses.warning);
  return nodeAddresses;
}

/** A reserved quantity as the container manager counts it: millicores of cpu, bytes of memory. */
function reservedAmounts(r: AgentConfig["node"]["kubeReserved"]): { milliCpu?: number; memoryBytes?: number } {
  return { ...(r.cpu ? { milliCpu: parseQuantity(r.cpu).milli() } : {}), ...(r.memory ? { memoryBytes: parseQuantity(r.memory).value() } : {}) };
}

/**
 * The node's cgroups (src/cm), set up before the runtime starts (the kubelet's setupNode): a
 * systemd driver without systemd stops the start here, before a containerd is started for nothing;
 * kubepods, its limits and the QoS cgroups are in place before any pod.
 */
export function startContainerManager(
  config: AgentConfig,
  deps: NodeDeps,
  activePods: () => Pod[],
  log: Logger,
  events: NodeEventRecorder,
  clock: Clock,
): ContainerManager {
  const host = deps.hostFacts ?? readHostFacts(config.rootDir);
  const cm = new ContainerManager({
    cgroupRoot: config.pods.cgroupRoot,
    cgroupsPerQOS: config.cgroups.perQOS,
    cgroups: deps.cgroups ?? new FsCgroupManager(config.cgroups.driver),
    allocatable: {
      capacity: { milliCpu: host.cpus * 1000, memoryBytes: host.memoryBytes },
      kubeReserved: reservedAmounts(config.node.kubeReserved),
      systemReserved: reservedAmounts(config.node.systemReserved),
      enforce: config.cgroups.enforceNodeAllocatable,
      ...(config.cgroups.systemReservedCgroup ? { systemReservedCgroup: config.cgroups.systemReservedCgroup } : {}),
      ...(config.cgroups.kubeReservedCgroup ? { kubeReservedCgroup: config.cgroups.kubeReservedCgroup } : {}),
    },
    activePods,
    log,
    events,
    clock,
    ...(deps.systemdRunning ? { systemdRunning: deps.systemdRunning } : {}),
  });
  cm.start();
  return cm;
}
