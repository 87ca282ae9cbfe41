// The agent phase: the Agent (the sync loop and everything it drives) made from the configuration and
// what the earlier phases started — the runtime's calls, the PLEG, the sources, the container manager,
// the object source, the admission chain — with the eviction manager, garbage collection, the Node
// builder and the hooks that feed the metrics, the cluster's mirror pods and sd_notify.
import { statSync } from "node:fs";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import type { NodeAddress } from "kubernetes-types/core/v1";
import type { ClusterNode } from "../cluster";
import type { ContainerManager } from "../cm";
import { recordNodeConditionEvents, type EventBroadcaster, type EventRecorder, type NodeEventRecorder } from "../events";
import { EvictionManager, hardEvictionReservation } from "../eviction";
import { runtimeCounts, type AgentMetrics } from "../server";
import { Agent } from "./agent";
import { agentHealth, type NodeContext } from "./node-context";
import type { NodeManagers } from "./node-managers";
import type { NodeRuntime } from "./node-runtime";
import type { NodeSources } from "./node-sources";
import { ContainerLogManager } from "../logs";
import { buildNode } from "../nodestatus";
import type { ObjectSource, ServiceLister } from "../objects";

export interface AgentInputs {
  cluster: ClusterNode | undefined;
  runtime: NodeRuntime;
  sources: NodeSources;
  objects: ObjectSource;
  services: ServiceLister;
  managers: NodeManagers;
  containerManager: ContainerManager;
  addresses: NodeAddress[];
  hostIPs: string[];
  metrics: AgentMetrics;
  broadcaster: EventBroadcaster;
  recorder: EventRecorder;
  nodeEvent: NodeEventRecorder;
}

export function makeAgent(ctx: NodeContext, i: AgentInputs): Agent {
  const { config, deps, nodeName, clock, log } = ctx;
  const { cluster, objects, services, containerManager, addresses, hostIPs, metrics, broadcaster, recorder, nodeEvent } = i;
  const { client, pleg, runtimeName } = i.runtime;
  const { podConfig, sources } = i.sources;
  const { stats, admitHandlers, notifier, imageGC, runtimeClasses } = i.managers;
  let lastNode: Awaited<ReturnType<typeof buildNode>> | undefined;
  const a: Agent = (ctx.late.agent = new Agent({
    runtime: client,
    pleg,
    config: podConfig,
    sources,
    clock,
    log,
    runtimeName,
    runtimeConfig: {
      podLogsRoot: config.pods.logsDir,
      podsDir: join(config.rootDir, "pods"),
      cgroupRoot: config.pods.cgroupRoot,
      nodeName,
      hostIP: hostIPs[0]!,
      hostIPs,
      // The kubelet's seccomp-profile-root: Localhost seccomp profiles are <root-dir>/seccomp/<localhostProfile>.
      seccompProfileRoot: join(config.rootDir, "seccomp"),
      podCgroups: containerManager,
      // spec.runtimeClassName: RuntimeClasses from the API server (none standalone: such pods wait).
      ...(runtimeClasses ? { runtimeClasses } : {}),
      clusterDns: { servers: config.pods.clusterDNS, domain: config.pods.clusterDomain, resolvConf: config.pods.resolvConf },
      cluster: !!config.cluster,
    },
    syncFrequencyMs: config.syncFrequencyMs,
    evictionMonitoringPeriodMs: config.evictionMonitoringPeriodMs,
    // The eviction manager: the configured thresholds over the shared stats provider, and the
    // local-storage check, in one loop. Node-level reclaim for disk signals is the
    // image GC's and the container GC's (src/eviction/node-reclaim.ts).
    evictionManager: (target, localStorage) =>
      (ctx.late.evictionManager = new EvictionManager({
        ...config.eviction,
        summary: { get: async (only) => (await stats()).get(only) },
        target,
        localStorage,
        reclaim: { images: imageGC, containers: { deleteAllUnusedContainers: async () => a.containerGC?.deleteAllUnusedContainers() } },
        dedicatedImageFs: async () => {
          const mountpoint = (await client.imageFsInfo()).imageFilesystems?.[0]?.fsId?.mountpoint;
          return !!mountpoint && statSync(mountpoint).dev !== statSync(config.rootDir).dev;
        },
        clock,
        log,
        monitoringPeriodMs: config.evictionMonitoringPeriodMs,
        events: nodeEvent,
        cluster: !!config.cluster,
      })),
    // Garbage collection and log rotation (the kubelet's StartGarbageCollection and container log
    // manager), each a loop beside the sync loop for as long as the agent runs.
    containerGC: {
      runtime: client,
      policy: config.gc.container,
      periodMs: config.gc.containerPeriodMs,
      onEvent: (e) => nodeEvent("Warning", e.reason, e.message),
    },
    backgroundLoops: [imageGC, new ContainerLogManager({ runtime: client, policy: config.gc.containerLogs, podLogsRoot: config.pods.logsDir, clock, log })],
    node: async () => {
      const health = agentHealth(ctx);
      // The events compare with the Node built last; the first one, in a cluster, with the API
      // server's copy when the informer has it (the kubelet's setters run on that), so that a reboot
      // while the agent was down is seen (Rebooted). Later builds do not ask the informer: it lags
      // the agent's own status writes, and each build would record the same change again.
      const previous = lastNode ?? cluster?.apiNode();
      lastNode = await buildNode({
        nodeName,
        labels: config.node.labels,
        taints: config.node.taints,
        runtime: client,
        ...(deps.hostFacts ? { host: deps.hostFacts } : {}),
        maxPods: config.node.maxPods,
        reserved: config.node.reserved,
        now: clock.now(),
        version: pkg.version,
        runtimeName,
        addresses,
        port: ctx.late.server?.port,
        previous: lastNode,
        conditions: { ready: { ok: health.ready, message: health.message }, pressure: ctx.late.evictionManager?.pressure() },
        evictionReservation: (capacity) => hardEvictionReservation(config.eviction.thresholds, capacity),
      });
      recordNodeConditionEvents(nodeEvent, nodeName, previous, lastNode);
      return lastNode;
    },
    stateDir: config.rootDir,
    objects,
    services,
    volumePlugins: deps.volumes?.plugins?.(objects) ?? [],
    ...(deps.mounter ? { mounter: deps.mounter } : {}),
    statusManager: cluster,
    admitHandlers,
    events: recorder,
    hooks: {
      podStarted: (_pod, seconds) => metrics.observePodStart(seconds),
      containerRestarted: (pod, container) => metrics.incContainerRestart(pod.metadata?.namespace ?? "default", pod.metadata?.name ?? "", container),
      podRemoved: (pod) => {
        metrics.forgetPod(pod.metadata?.namespace ?? "default", pod.metadata?.name ?? "");
        broadcaster.forgetObject(pod.metadata?.uid ?? "");
      },
      // Each source logs an error once, when it first appears; here it is only counted.
      sourceReported: (r) => metrics.setSourceErrors(r.source, r.errors.length),
      probeObserved: (o) => metrics.observeProbe(o),
      afterHousekeeping: () => {
        if (pleg.relistStats.lastRelistTime) notifier.ready();
        void cluster
          ?.housekeeping(a.workers.states().map((s) => ({ pod: s.pod, terminating: a.workers.isPodTerminationRequested(s.uid) })))
          .catch((err) => log.warn("mirror pods: housekeeping failed", { err }));
        const stats = pleg.relistStats;
        if (stats.lastRelistTime) metrics.setPlegLastSeen(stats.lastRelistTime);
        const { pods, containers } = runtimeCounts(pleg.cache);
        metrics.setRunningPods(pods);
        metrics.setRunningContainers(containers);
      },
    },
  }));
  return a;
}
