// The node: everything `nodeagent agent` runs, wired from one validated AgentConfig — the container
// runtime (a containerd started under the root dir when no socket is given), the CRI client, the
// metrics, the PLEG, PodConfig and its sources (the manifest directory, the URL, pushed pods, and
// with a kubeconfig the API server through ClusterNode), the Agent (the sync loop and everything it
// drives) and the HTTP API — started in an order that touches no pod until every resource is there,
// and stopped in the reverse order.
//
// The start is a sequence of phases, each in its own file: cluster (node-cluster.ts), events
// (node-events.ts), host addresses and cgroups (node-host.ts), runtime and PLEG (node-runtime.ts),
// objects (node-objects.ts), sources (node-sources.ts), managers (node-managers.ts), the Agent
// (node-agent.ts), the server (node-server.ts), then the loops that run beside it (here). Every
// resource is released on every path: each phase registers what it starts, with how to stop it, in
// the node's StartedThings (node-context.ts), and when a later phase fails (a port in use, a runtime
// that does not answer) what was started is stopped again, newest first, before the error goes up, so
// that a failed start never leaves a managed containerd running as an orphan. The kubeconfig is read
// before the runtime starts: a bad one costs nothing.
//
// The node-*.ts files are the ones of src/agent that import src/server and src/cluster: the Agent sees
// the server only through AgentView, and the cluster as a pod source and its PodStatusManager.
import pkg from "../../package.json" with { type: "json" };
import { LogindShutdownSignal, watchShutdownSignal } from "../nodeshutdown";
import { KmsgReader, OomWatcher } from "../oom";
import { AGENT_JIT_POLICY, createLogger, RealClock } from "../util";
import type { Agent } from "./agent";
import type { AgentConfig } from "./agent-config";
import { makeAgent } from "./node-agent";
import { connectCluster } from "./node-cluster";
import { nodeContext, type NodeContext, type NodeDeps } from "./node-context";
import { startEvents, type NodeEvents } from "./node-events";
import { nodeAddresses, startContainerManager } from "./node-host";
import { startObjects } from "./node-objects";
import { makeManagers } from "./node-managers";
import { startRuntime } from "./node-runtime";
import { startServer } from "./node-server";
import { makeSources } from "./node-sources";

export { chooseObjectSource, chooseServiceLister, type VolumeWiring } from "./node-objects";
export { StartedThings, type NodeDeps } from "./node-context";

/** A started node. */
export interface RunningNode {
  readonly agent: Agent;
  /** The HTTP API's base URL (its port when the config asked for any free port). */
  readonly url: string;
  /** Resolves once the Node exists in the API server (at once without --kubeconfig); never rejects. */
  readonly registered: Promise<void>;
  /** Stops the sync loop, the sources, the server and a runtime this process started; the pods keep running. */
  stop(): Promise<void>;
  /**
   * A graceful node shutdown now (src/nodeshutdown), as on logind's PrepareForShutdown: every pod
   * stopped by priority group within the budgets. Resolves when done; at once without a grace period.
   */
  shutdownPods(): Promise<void>;
}

/** Starts the node. On failure, everything it started is stopped again before the error is thrown. */
export async function startNode(config: AgentConfig, deps: NodeDeps = {}): Promise<RunningNode> {
  const log = deps.log ?? createLogger(config.logFormat);
  const clock = deps.clock ?? new RealClock();
  for (const w of config.warnings) log.warn(w);
  const ctx = nodeContext(config, deps, log, clock);
  try {
    const cluster = await connectCluster(ctx);
    const events = await startEvents(ctx, cluster);
    const { addresses, hostIPs } = await nodeAddresses(ctx);
    const containerManager = startContainerManager(config, deps, () => ctx.late.agent?.activePods() ?? [], log, events.nodeEvent, clock);
    const runtime = await startRuntime(ctx, events.metrics);
    const { objects, services } = await startObjects(ctx, cluster);
    const sources = makeSources(ctx, cluster);
    const managers = makeManagers(ctx, cluster, runtime.client, containerManager, events.nodeEvent);
    const agent = makeAgent(ctx, { cluster, runtime, sources, objects, services, managers, containerManager, addresses, hostIPs, ...events });
    const srv = await startServer(ctx, {
      agent,
      cluster,
      client: runtime.client,
      push: sources.push,
      stats: managers.stats,
      metrics: events.metrics,
      eventRing: events.eventRing,
      addresses,
      hostIPs,
    });
    log.info("nodeagent started", {
      version: pkg.version,
      node: config.nodeName,
      api: srv.url,
      runtime: runtime.runtime.endpoint,
      sources: sources.sources.map((s) => s.name),
      objects: objects.description,
    });
    if (cluster) log.info("joining the cluster", { server: cluster.client.server, node: config.nodeName });
    runLoops(ctx, agent, managers.notifier, events);
    const { shutdownManager } = ctx.late;
    return {
      agent,
      url: srv.url,
      registered: cluster ? cluster.registered : Promise.resolve(),
      shutdownPods: () => shutdownManager?.shutdown() ?? Promise.resolve(),
      async stop() {
        await ctx.started.releaseAll();
        log.info(shutdownManager?.shutdownStatus() ? "nodeagent stopped after the node shutdown stopped its pods" : "nodeagent stopped; the pods keep running");
      },
    };
  } catch (err) {
    await ctx.started.releaseAll();
    throw err;
  }
}

/**
 * The last phase: the agent's run (its sources, the sync loop), the OOM watcher, the systemd watchdog
 * and the host shutdown watch, registered as one started thing — the newest, so the first stopped.
 */
function runLoops(ctx: NodeContext, agent: Agent, notifier: { stopping(): void; runWatchdog(signal: AbortSignal): Promise<void> }, events: NodeEvents): void {
  const { deps, clock, log } = ctx;
  const { metrics, nodeEvent } = events;
  const { shutdownManager } = ctx.late;
  const ac = new AbortController();
  const loop = agent.run(ac.signal);
  // The OOM watcher (src/oom): a kill the kernel logs is counted and, for the node's own, logged.
  const oomWatcher = new OomWatcher({
    openKernelLog: deps.kernelLog ?? (() => new KmsgReader()),
    clock,
    log,
    onOom: (k, system) => {
      metrics.incOomKill(system);
      // The kubelet's SystemOOM event on the Node (oom_watcher_linux.go), for the node's own kills only.
      if (system)
        nodeEvent(
          "Warning",
          "SystemOOM",
          k.processName && k.pid ? `System OOM encountered, victim process: ${k.processName}, pid: ${k.pid}` : "System OOM encountered",
        );
    },
  });
  const oomLoop = oomWatcher.run(ac.signal);
  const watchdog = notifier.runWatchdog(ac.signal);
  const shutdownWatch = shutdownManager
    ? watchShutdownSignal(shutdownManager, deps.shutdownSignal ?? new LogindShutdownSignal({ log }), ac.signal, log)
    : Promise.resolve();
  ctx.started.add("the sync loop", async () => {
    notifier.stopping();
    ac.abort();
    await loop;
    await Promise.all([oomLoop, watchdog, shutdownWatch]);
  });
}

/**
 * Runs the node until SIGINT or SIGTERM, then stops it in order (a second signal ends the process at
 * once). With --shutdown-pods, SIGTERM first stops every pod as a node shutdown does (the host is going
 * down and there is no logind to announce it); SIGINT, and SIGTERM without it, leave the pods running.
 * The handlers are in place before anything starts, so a signal during the start stops the node as
 * soon as it is up instead of killing the process with a managed containerd still running.
 * The process is the agent's from here on: it takes the agent's JIT policy (src/util/jit-policy.ts;
 * the binary starts with it, and a test or another caller gets it here).
 */
export async function runNode(config: AgentConfig, deps: NodeDeps = {}): Promise<void> {
  Bun.unsafe.setJITPolicy(AGENT_JIT_POLICY);
  const stopRequested = new Promise<NodeJS.Signals>((resolve) => {
    process.once("SIGINT", () => resolve("SIGINT"));
    process.once("SIGTERM", () => resolve("SIGTERM"));
  });
  const node = await startNode(config, deps);
  const signal = await stopRequested;
  if (signal === "SIGTERM" && config.shutdown.shutdownPods) {
    await node.shutdownPods();
  }
  await node.stop();
}
