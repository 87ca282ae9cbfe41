// The managers phase: what the Agent is given beside the runtime — the stats provider (made when first
// asked for), the admission chain in the kubelet's order, graceful node shutdown, sd_notify, image GC
// and the RuntimeClasses of a cluster. The eviction manager is made by the Agent's options (node-agent.ts).
import { join } from "node:path";
import {
  AppArmorAdmitHandler,
  CriticalPodAdmissionHandler,
  PredicateAdmitHandler,
  SysctlAdmitHandler,
  UnsupportedFieldsAdmitHandler,
  NewerFieldsAdmitHandler,
  type PodAdmitHandler,
} from "../admission";
import type { ClusterNode } from "../cluster";
import type { ContainerManager } from "../cm";
import type { CriRuntime } from "../cri";
import type { NodeEventRecorder } from "../events";
import { EvictionAdmitHandler } from "../eviction";
import { ShutdownManager } from "../nodeshutdown";
import type { SummaryProvider } from "../stats";
import { qosClass } from "../status";
import { SdNotifier } from "../systemd";
import type { NodeContext } from "./node-context";
import { ApiRuntimeClasses } from "./runtime-class-manager";
import { CriImageFsStats, ImageGCManager } from "../gc";
import { loadSummaryProvider } from "../stats";

export interface NodeManagers {
  /** The one stats provider of /stats/summary and the eviction manager. */
  stats: () => Promise<SummaryProvider>;
  admitHandlers: PodAdmitHandler[];
  notifier: SdNotifier;
  imageGC: ImageGCManager;
  runtimeClasses: ApiRuntimeClasses | undefined;
}

export function makeManagers(
  ctx: NodeContext,
  cluster: ClusterNode | undefined,
  client: CriRuntime,
  containerManager: ContainerManager,
  nodeEvent: NodeEventRecorder,
): NodeManagers {
  const { config, deps, nodeName, clock, log } = ctx;
  // One stats provider for /stats/summary and the eviction manager (its cpu rates and du cache are
  // shared), made when first asked for: an agent with no eviction threshold that nobody scrapes never
  // loads it.
  let statsProvider: Promise<SummaryProvider> | undefined;
  const stats = (): Promise<SummaryProvider> =>
    (statsProvider ??= loadSummaryProvider().then(
      ({ SummaryProvider }) =>
        new SummaryProvider({
          nodeName,
          runtime: client,
          pods: () => ctx.theAgent().pods(),
          clock,
          log,
          rootDir: config.rootDir,
          podsDir: join(config.rootDir, "pods"),
          podLogsRoot: config.pods.logsDir,
          cgroupRoot: containerManager.podsCgroup,
        }),
    ));
  // The admission chain (issue 17), in the kubelet's order (NewMainKubelet): the eviction manager's
  // handler goes first (src/eviction), then the sysctl allowlist, AppArmor, the agent's unsupported fields, then the predicate
  // handler (resources against the Node's allocatable, max pods, affinity, ports, NoExecute taints;
  // critical pods preempt), then node shutdown when there is one.
  const admitHandlers: PodAdmitHandler[] = [
    // In a cluster (--kubeconfig) static and mirror pods are critical (src/api isCriticalPod).
    new EvictionAdmitHandler(() => ctx.late.evictionManager?.pressure() ?? new Set(), { cluster: !!config.cluster }),
    new SysctlAdmitHandler(config.allowedUnsafeSysctls),
    // An AppArmor profile the host cannot enforce (no AppArmor in the kernel): refused, as the kubelet's
    // AppArmor admit handler, rather than run unconfined.
    new AppArmorAdmitHandler(),
    // Fields the kubelet acts on and the agent does not: refused, never silently ignored (field ledger).
    new UnsupportedFieldsAdmitHandler(),
    // Newer fields whose 1.36 gates are on and that the agent does not act on (docs/feature-gates.md).
    new NewerFieldsAdmitHandler(),
    new PredicateAdmitHandler({
      // In a cluster, the API server's copy of the Node (labels and taints others set count), else
      // the one the agent built (the kubelet's getNodeAnyWay: nodeLister, then initialNode).
      node: () => cluster?.apiNode() ?? ctx.theAgent().lastNode(),
      failureHandler: new CriticalPodAdmissionHandler({
        target: { evictPod: (pod, status, grace) => ctx.theAgent().evictPod(pod, status, grace) },
        qosClass,
        log,
        cluster: !!config.cluster,
      }),
      log,
    }),
  ];
  if (config.shutdown.periods.length > 0) {
    const shutdownManager = (ctx.late.shutdownManager = new ShutdownManager({
      periods: config.shutdown.periods,
      target: { activePods: () => ctx.theAgent().activePods(), terminatePod: (pod, status, grace) => ctx.theAgent().terminatePod(pod, status, grace) },
      clock,
      log,
      events: nodeEvent,
    }));
    admitHandlers.push(shutdownManager);
    log.info("graceful node shutdown", {
      periods: shutdownManager.periods.map((p) => ({ priority: p.priority, gracePeriod: `${p.shutdownGracePeriodSeconds}s` })),
    });
  }
  // sd_notify (src/systemd): READY=1 after the first housekeeping that follows the PLEG's first relist.
  const notifier = new SdNotifier({
    env: deps.notifyEnv ?? process.env,
    pid: process.pid,
    clock,
    log,
    ...(deps.notifySocket ? { socket: deps.notifySocket } : {}),
  });
  // Image GC: its own loop, and the eviction manager's reclaim of unused images (ImageGC).
  const imageGC = new ImageGCManager({
    runtime: client,
    fsStats: new CriImageFsStats(client),
    policy: config.gc.image,
    sandboxImage: config.runtime.podInfraImage,
    clock,
    log,
    periodMs: config.gc.imagePeriodMs,
    onEvent: (e) => nodeEvent("Warning", e.reason, e.message),
  });
  // spec.runtimeClassName → the sandbox's runtime handler: RuntimeClasses from the API server.
  const runtimeClasses = cluster ? new ApiRuntimeClasses(cluster.client, clock) : undefined;
  return { stats, admitHandlers, notifier, imageGC, runtimeClasses };
}
