// What every phase of the node's start (node.ts) shares: the configuration, the injected dependencies,
// the registry of what has been started (StartedThings, stopped in reverse order), and the things made
// later that earlier phases' closures reach only once the node runs (the Agent, the server, …).
import type { CgroupManager } from "../cm";
import type { CriRuntime, resolveRuntime } from "../cri";
import type { EvictionManager } from "../eviction";
import type { ShutdownManager, ShutdownSignal } from "../nodeshutdown";
import type { KernelLog } from "../oom";
import type { AgentServer } from "../server";
import type { NotifySocket } from "../systemd";
import type { Clock, Logger } from "../util";
import type { Agent } from "./agent";
import type { AgentConfig } from "./agent-config";
import type { ClusterNode } from "../cluster";
import type { Mounter, VolumePlugin } from "../volume";
import type { HostFacts, HostNetwork } from "../nodestatus";
import type { ObjectSource, ServiceLister } from "../objects";

/**
 * Where the node gets its ObjectSource and extra volume plugins (issue 15): by default the API server
 * (ApiObjectSource over the cluster's client: a watch per object its pods name, the token manager)
 * with --kubeconfig, the --local-objects folder (LocalObjectSource, watched) with that flag, otherwise
 * none; tests inject their own.
 */
export interface VolumeWiring {
  /** With --kubeconfig: the API server's objects, read with the node's own credentials. */
  apiObjects?(cluster: ClusterNode): ObjectSource;
  /** With --local-objects DIR: ConfigMap and Secret manifests in DIR, watched. */
  localObjects?(dir: string): ObjectSource;
  /** Plugins tried before the node's own (src/volume/plugins.ts). */
  plugins?(objects: ObjectSource): VolumePlugin[];
  /** With --kubeconfig: the services containers get service-link variables from. */
  apiServices?(cluster: ClusterNode): ServiceLister;
}

export interface NodeDeps {
  clock?: Clock;
  log?: Logger;
  /** How the runtime is found or started (src/cri resolveRuntime); a fake in tests. */
  resolveRuntime?: typeof resolveRuntime;
  /** The CRI client for the resolved endpoint: a CriClient over gRPC by default, an in-memory runtime for hollow nodes. */
  criClient?: (endpoint: string) => CriRuntime;
  /** The object sources and content volume plugins (see VolumeWiring). */
  volumes?: VolumeWiring;
  /** Where the node's addresses are looked up (src/server/node-address.ts); a fake in tests. */
  hostNetwork?: HostNetwork;
  /** The machine the Node reports (cpus, memory, ids, kernel): read from this host by default; a hollow node's own. */
  hostFacts?: HostFacts;
  /** tmpfs mounts of memory-backed volumes: util-linux mount and the host's mount table by default; in memory for hollow nodes. */
  mounter?: Mounter;
  /** Every cgroup write (src/cm); /sys/fs/cgroup by default, a fake in tests. */
  cgroups?: CgroupManager;
  /** Whether systemd is the init system (the systemd cgroup driver needs it); /run/systemd/system by default. */
  systemdRunning?: () => boolean;
  /** The kernel's log the OOM watcher reads (/dev/kmsg); a fake in tests. */
  kernelLog?: () => KernelLog;
  /** Where a host shutdown is announced (systemd-logind over the system bus by default); a fake in tests. */
  shutdownSignal?: ShutdownSignal;
  /** sd_notify's environment (NOTIFY_SOCKET, WATCHDOG_USEC, WATCHDOG_PID): process.env by default. */
  notifyEnv?: Record<string, string | undefined>;
  /** Where sd_notify datagrams go (libc on $NOTIFY_SOCKET by default); a recorder in tests. */
  notifySocket?: NotifySocket;
}

/**
 * The registry of what the node's phases started, each with how to stop it: stopped newest first on
 * shutdown or when a later phase fails; a step that fails to stop is logged and the rest still run.
 */
export class StartedThings {
  private readonly stops: Array<{ what: string; stop: () => void | Promise<void> }> = [];

  constructor(private readonly log: Logger) {}

  add(what: string, stop: () => void | Promise<void>): void {
    this.stops.push({ what, stop });
  }

  async releaseAll(): Promise<void> {
    for (const { what, stop } of this.stops.splice(0).reverse()) {
      try {
        await stop();
      } catch (err) {
        this.log.warn("stopping failed", { what, err });
      }
    }
  }
}

/** Made by a later phase; read only by closures that run once the node runs. */
export interface LateParts {
  agent?: Agent;
  server?: AgentServer;
  /** Graceful node shutdown (src/nodeshutdown), when a grace period is configured. */
  shutdownManager?: ShutdownManager;
  evictionManager?: EvictionManager;
}

export interface NodeContext {
  readonly config: AgentConfig;
  readonly deps: NodeDeps;
  readonly log: Logger;
  readonly clock: Clock;
  readonly nodeName: string;
  readonly started: StartedThings;
  readonly late: LateParts;
  /** The Agent, for closures called once the node runs. */
  theAgent(): Agent;
}

export function nodeContext(config: AgentConfig, deps: NodeDeps, log: Logger, clock: Clock): NodeContext {
  const late: LateParts = {};
  return {
    config,
    deps,
    log,
    clock,
    nodeName: config.nodeName,
    started: new StartedThings(log),
    late,
    theAgent: () => {
      if (!late.agent) throw new Error("the agent is starting");
      return late.agent;
    },
  };
}

/**
 * The node's Ready verdict from the agent's health checks, for GET /node and the Node in the API, and
 * `node is shutting down` during a graceful shutdown (the kubelet's ReadyCondition takes the shutdown
 * manager's status as one of its errors).
 */
export function agentHealth(ctx: NodeContext): { ready: boolean; message: string } {
  const bad = ctx
    .theAgent()
    .healthChecks()
    .filter((c) => !c.ok)
    .map((c) => `${c.name}: ${c.message}`);
  const shutdown = ctx.late.shutdownManager?.shutdownStatus();
  if (shutdown) bad.push(shutdown);
  return { ready: bad.length === 0, message: bad.join("; ") };
}
