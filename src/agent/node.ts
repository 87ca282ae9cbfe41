// The node: everything `nodeagent agent` runs, wired from one validated AgentConfig — the container
// runtime (a containerd started under the root dir when no socket is given), the CRI client, the
// metrics, the PLEG, PodConfig and its sources (the manifest directory, the URL, pushed pods, and
// with a kubeconfig the API server through ClusterNode), the Agent (the sync loop and everything it
// drives) and the HTTP API — started in an order that touches no pod until every resource is there,
// and stopped in the reverse order.
//
// Every resource is released on every path: each step that starts something records how to stop it,
// and when a later step fails (a port in use, a runtime that does not answer) what was started is
// stopped again before the error goes up, so that a failed start never leaves a managed containerd
// running as an orphan. The kubeconfig is read before the runtime starts: a bad one costs nothing.
//
// This is the one file of src/agent that imports src/server and src/cluster: the Agent sees the
// server only through AgentView, and the cluster as a pod source and its PodStatusManager.
import { statSync } from "node:fs";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import type { ClusterNode } from "../cluster/cluster-node";
import { AppArmorAdmitHandler, CriticalPodAdmissionHandler, PredicateAdmitHandler, SysctlAdmitHandler, UnsupportedFieldsAdmitHandler, type PodAdmitHandler } from "../admission";
import { parseQuantity } from "../api/quantity";
import { ContainerManager, FsCgroupManager, type CgroupManager } from "../cm";
import { conflictCheck, FileSource, HttpSource, PodConfig, pushPolicyCheck, PushSource, type PodSource } from "../config";
import { CriClient, resolveRuntime } from "../cri";
import { EvictionAdmitHandler, EvictionManager, hardEvictionReservation } from "../eviction";
import type { SummaryProvider } from "../stats/summary-provider";
import { loadStaticPods, loadStaticPodsWithLocalObjects } from "../manifest/load";
import { Pleg } from "../pleg";
import { kubeletConfigz } from "./configz";
import { ApiRuntimeClasses } from "./runtime-class-manager";
import { storedServingCertificate } from "../certificate/node-certificates";
import { AgentMetrics, Authenticator, Authorizer, buildNode, isSpecificIP, readHostFacts, realHostNetwork, resolveNodeAddresses, runtimeCounts, servingCertificate, startAgentServer, type AgentServer, type AgentServerOptions, type HostNetwork } from "../server";
import { RealClock, type Clock } from "../util/clock";
import { ConfigError, errorMessage } from "../util/errors";
import { AGENT_JIT_POLICY } from "../util/jit-policy";
import { createLogger, type Logger } from "../util/log";
import { LocalObjectSource } from "../volume/local-object-source";
import { NoObjectSource } from "../volume/no-object-source";
import { NoServiceLister } from "../volume/no-service-lister";
import type { ObjectSource, ServiceLister, VolumePlugin } from "../volume/types";
import { KmsgReader, OomWatcher, type KernelLog } from "../oom";
import { LogindShutdownSignal, ShutdownManager, watchShutdownSignal, type ShutdownSignal } from "../nodeshutdown";
import { SdNotifier, type NotifySocket } from "../systemd";
import { ContainerLogManager, CriImageFsStats, ImageGCManager } from "../eviction";
import { EventBroadcaster, EventRing, nodeReference, recordNodeConditionEvents, type NodeEventRecorder } from "../events";
import { Agent } from "./agent";
import { qosClass } from "../status";
import type { AgentConfig } from "./agent-config";

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

/**
 * The services behind containers' service-link variables (KUBERNETES_SERVICE_HOST, …): with
 * --kubeconfig an informer over every namespace's services, started now as the kubelet starts its
 * service informer when it is made (ApiServiceLister, imported only then: it brings the Kubernetes
 * client); otherwise none, as the kubelet without a kube client (NoServiceLister: no variables, and
 * nothing to wait for).
 */
export async function chooseServiceLister(cluster: ClusterNode | undefined, wiring: VolumeWiring, clock: Clock, log: Logger): Promise<ServiceLister> {
  if (!cluster) return new NoServiceLister();
  if (wiring.apiServices) return wiring.apiServices(cluster);
  const { ApiServiceLister } = await import("../volume/api-service-lister");
  return new ApiServiceLister({ client: cluster.client, clock, log }).start();
}

/**
 * The node's ObjectSource: the API server with --kubeconfig, the --local-objects folder, otherwise
 * none (NoObjectSource: a static or pushed pod that names an API object waits and says why, never
 * runs without it). The API source is imported here only with --kubeconfig: it brings the Kubernetes
 * client, which an agent without a cluster never loads.
 */
export async function chooseObjectSource(config: AgentConfig, cluster: ClusterNode | undefined, wiring: VolumeWiring, clock: Clock, log: Logger): Promise<ObjectSource> {
  if (cluster) {
    if (wiring.apiObjects) return wiring.apiObjects(cluster);
    const { ApiObjectSource } = await import("../volume/api-object-source");
    return new ApiObjectSource({ client: cluster.client, clock, log });
  }
  if (config.localObjects) {
    if (wiring.localObjects) return wiring.localObjects(config.localObjects);
    const local = new LocalObjectSource({ dir: config.localObjects, clock, log });
    await local.start();
    return local;
  }
  return new NoObjectSource();
}

export interface NodeDeps {
  clock?: Clock;
  log?: Logger;
  /** How the runtime is found or started (src/cri resolveRuntime); a fake in tests. */
  resolveRuntime?: typeof resolveRuntime;
  /** The object sources and content volume plugins (see VolumeWiring). */
  volumes?: VolumeWiring;
  /** Where the node's addresses are looked up (src/server/node-address.ts); a fake in tests. */
  hostNetwork?: HostNetwork;
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

/** A reserved quantity as the container manager counts it: millicores of cpu, bytes of memory. */
function reservedAmounts(r: AgentConfig["node"]["kubeReserved"]): { milliCpu?: number; memoryBytes?: number } {
  return { ...(r.cpu ? { milliCpu: parseQuantity(r.cpu).milli() } : {}), ...(r.memory ? { memoryBytes: parseQuantity(r.memory).value() } : {}) };
}

/**
 * The node's cgroups (src/cm), set up before the runtime starts (the kubelet's setupNode): a
 * systemd driver without systemd stops the start here, before a containerd is started for nothing;
 * kubepods, its limits and the QoS cgroups are in place before any pod.
 */
function startContainerManager(config: AgentConfig, deps: NodeDeps, activePods: () => import("kubernetes-types/core/v1").Pod[], log: Logger, events: NodeEventRecorder, clock: Clock): ContainerManager {
  const host = readHostFacts(config.rootDir);
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

/** A started node. */
export interface RunningNode {
  readonly agent: Agent;
  /** The HTTP API's base URL (its port when the config asked for any free port). */
  readonly url: string;
  /** Stops the sync loop, the sources, the server and a runtime this process started; the pods keep running. */
  stop(): Promise<void>;
  /**
   * A graceful node shutdown now (src/nodeshutdown), as on logind's PrepareForShutdown: every pod
   * stopped by priority group within the budgets. Resolves when done; at once without a grace period.
   */
  shutdownPods(): Promise<void>;
}

/** Stops what was started, newest first; a step that fails to stop is logged and the rest still run. */
class Resources {
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
        this.log.warn(`stopping ${what}: ${errorMessage(err)}`);
      }
    }
  }
}

/** How long a stopping node waits for its queued events to be written. */
const EVENT_FLUSH_MS = 2_000;

/** How long the start waits for the runtime to say its name. */
const RUNTIME_NAME_DEADLINE_MS = 5_000;

/**
 * The runtime's name (CRI Version's runtimeName, "containerd"), asked once at start as the kubelet's
 * runtime manager does (NewKubeGenericRuntimeManager → getTypedVersion): container IDs in pod
 * statuses are `<runtimeName>://<id>`. The kubelet refuses to start without an answer; the agent
 * starts anyway, as it always has with a runtime that is down (its health checks and GET /node say
 * so until the runtime answers), and says "containerd" meanwhile, with a warning.
 */
async function askRuntimeName(client: CriClient, log: Logger): Promise<string> {
  try {
    return (await client.version(RUNTIME_NAME_DEADLINE_MS)).runtimeName || "containerd";
  } catch (err) {
    log.warn(`the runtime at ${client.endpoint} did not say its name (${errorMessage(err)}); container IDs are reported as containerd://<id>`);
    return "containerd";
  }
}

/**
 * The API's TLS, authenticator and authorizer from the configuration (the kubelet's InitializeTLS and
 * BuildAuth): the serving certificate given, or the self-signed one kept under <root-dir>/pki; the
 * TokenReview and SubjectAccessReview webhooks over the cluster's client, with the node's own
 * credentials, as the kubelet sends them (the Node authorizer lets a node create both: its static
 * rules are the system:node ClusterRole's, which has tokenreviews and subjectaccessreviews create).
 */
function apiSecurity(config: AgentConfig, hostIPs: readonly string[], cluster: ClusterNode | undefined, clock: Clock, log: Logger): Pick<AgentServerOptions, "tls" | "nodeName" | "authenticator" | "authorizer"> {
  const { server } = config;
  const authn = server.authentication;
  let tls: AgentServerOptions["tls"];
  if (!server.insecureHttp) {
    // serverTLSBootstrap: a serving pair issued before (under --cert-dir) is served from the start.
    const issued = config.cluster?.certificates.serverTLSBootstrap ? storedServingCertificate(config.certDir, clock.now(), log) : undefined;
    const cert = servingCertificate({
      ...(server.tls ?? (issued ? { certFile: issued.path, keyFile: issued.path } : {})),
      certDir: config.certDir,
      hostname: config.nodeName,
      alternateNames: [...hostIPs, ...(isSpecificIP(server.address) ? [server.address] : [])],
    });
    if (cert.generated) log.info(`made a self-signed serving certificate ${cert.certFile} (clients can trust that file)`);
    tls = { certFile: cert.certFile, keyFile: cert.keyFile, ...(authn.clientCAFile ? { clientCAFile: authn.clientCAFile } : {}) };
  }
  const client = cluster?.client;
  const authenticator = new Authenticator({
    x509: !!authn.clientCAFile,
    pushToken: config.pushToken,
    ...(client && authn.webhook.enabled
      ? { webhook: { reviewer: { createTokenReview: (r) => client.postJson("/apis/authentication.k8s.io/v1/tokenreviews", r) }, cacheTTLMs: authn.webhook.cacheTTLMs } }
      : {}),
    anonymous: authn.anonymous,
    clock,
  });
  const authz = server.authorization;
  const authorizer = new Authorizer({
    mode: authz.mode,
    ...(client && authz.mode === "Webhook"
      ? { webhook: { reviewer: { createSubjectAccessReview: (r) => client.postJson("/apis/authorization.k8s.io/v1/subjectaccessreviews", r) }, ...authz.webhook } }
      : {}),
    clock,
  });
  return { ...(tls ? { tls } : {}), nodeName: config.nodeName, authenticator, authorizer };
}

/** Starts the node. On failure, everything it started is stopped again before the error is thrown. */
export async function startNode(config: AgentConfig, deps: NodeDeps = {}): Promise<RunningNode> {
  const log = deps.log ?? createLogger(config.logFormat);
  const clock = deps.clock ?? new RealClock();
  const { nodeName } = config;
  for (const w of config.warnings) log.warn(w);
  const resources = new Resources(log);
  // The closures below are called only once the node runs, after every `let` here is set.
  let agent: Agent | undefined;
  let server: AgentServer | undefined;
  let cluster: ClusterNode | undefined;
  const theAgent = (): Agent => {
    if (!agent) throw new Error("the agent is starting");
    return agent;
  };
  // Graceful node shutdown (src/nodeshutdown), when a grace period is configured: its admit handler is
  // the chain's last, and while it shuts down the node is NotReady.
  let shutdownManager: ShutdownManager | undefined;
  /**
   * The node's Ready verdict from the agent's health checks, for GET /node and the Node in the API, and
   * `node is shutting down` during a graceful shutdown (the kubelet's ReadyCondition takes the shutdown
   * manager's status as one of its errors).
   */
  const agentHealth = () => {
    const bad = theAgent().healthChecks().filter((c) => !c.ok).map((c) => `${c.name}: ${c.message}`);
    const shutdown = shutdownManager?.shutdownStatus();
    if (shutdown) bad.push(shutdown);
    return { ready: bad.length === 0, message: bad.join("; ") };
  };

  try {
    // A node of a cluster: the API server is one more source, and the Node, its Lease, pod statuses
    // and mirror pods are written back. Loaded only here, so other commands never load the API client.
    if (config.cluster) {
      const { ClusterNode } = await import("../cluster/cluster-node");
      // TLS bootstrap (src/certificate): a usable --kubeconfig first, requested with the bootstrap credentials when needed.
      const bootstrapKubeconfig = config.cluster.certificates.bootstrapKubeconfig;
      if (bootstrapKubeconfig) {
        const { bootstrapClientCertificate } = await import("../certificate/bootstrap");
        try {
          await bootstrapClientCertificate({ kubeconfig: config.cluster.kubeconfig, bootstrapKubeconfig, certDir: config.certDir, nodeName, clock, log, userAgent: `nodeagent/${pkg.version} (agent on ${nodeName})` });
        } catch (e) {
          throw new ConfigError(`TLS bootstrap with --bootstrap-kubeconfig ${bootstrapKubeconfig}: ${errorMessage(e)}`);
        }
      }
      try {
        cluster = await ClusterNode.connect({
          kubeconfig: config.cluster.kubeconfig,
          context: config.cluster.context,
          nodeName,
          buildNode: () => theAgent().node(),
          health: () => agentHealth(),
          nodeStatusUpdateFrequencyMs: config.cluster.nodeStatusUpdateFrequencyMs,
          userAgent: `nodeagent/${pkg.version} (agent on ${nodeName})`,
          clock,
          log,
        });
      } catch (e) {
        throw new ConfigError(`--kubeconfig ${config.cluster.kubeconfig}: ${errorMessage(e)}`);
      }
      if (config.cluster.certificates.rotateCertificates) {
        const { startClientCertificateRotation } = await import("../certificate/node-certificates");
        const rotation = startClientCertificateRotation({ certDir: config.certDir, nodeName, clock, log, kubeconfig: config.cluster.kubeconfig, client: cluster.client });
        if (rotation) resources.add("the client certificate rotation", () => rotation.stop());
      }
    }

    // The node's events (src/events): always kept in memory for GET /events, and in a cluster posted
    // to the API server with the node's credentials, as the kubelet's recorder does. "Starting kubelet."
    // first, as the kubelet's Run records it before its managers start.
    const metrics = new AgentMetrics();
    metrics.setNodeName(nodeName);
    const broadcaster = new EventBroadcaster({ clock, log, onDrop: (sink, reason) => metrics.incEventDropped(sink, reason) });
    const eventRing = new EventRing();
    metrics.setRuntimeSampler(() => ({ timers: RealClock.liveTimers(), eventRingEvents: eventRing.count, eventWatchers: eventRing.subscribers }));
    broadcaster.startRecordingToSink("memory", eventRing);
    // The API sink brings the Kubernetes client: loaded only with a cluster, as src/cluster is.
    if (cluster) broadcaster.startRecordingToSink("api", new (await import("../events/api-event-sink")).ApiEventSink(cluster.client));
    resources.add("the event recorder", async () => {
      // What is queued gets a moment to go out (the pods' Killing events of a stop), then the rest is dropped.
      const ac = new AbortController();
      await Promise.race([broadcaster.idle(), clock.sleep(EVENT_FLUSH_MS, ac.signal).catch(() => {})]);
      ac.abort();
      broadcaster.shutdown();
    });
    const recorder = broadcaster.newRecorder({ component: "kubelet", host: nodeName });
    const nodeRef = nodeReference(nodeName);
    const nodeEvent: NodeEventRecorder = (type, reason, message) => recorder.event(nodeRef, type, reason, message);
    nodeEvent("Normal", "Starting", "Starting kubelet.");

    // The Node's addresses, by the kubelet's rules, once: the pods' hostIP is the Node's InternalIP
    // (the kubelet's getHostIPAnyWay reads it off the Node), so both come from this one answer.
    let nodeAddresses;
    try {
      nodeAddresses = await resolveNodeAddresses({ nodeIPs: config.nodeIPs, nodeName, net: deps.hostNetwork ?? realHostNetwork });
    } catch (e) {
      throw new ConfigError(`--node-ip ${config.nodeIPs.join(",")}: ${errorMessage(e)}`);
    }
    if (nodeAddresses.warning) log.warn(nodeAddresses.warning);
    const { addresses, hostIPs } = nodeAddresses;

    const containerManager = startContainerManager(config, deps, () => agent?.activePods() ?? [], log, nodeEvent, clock);
    const runtime = await (deps.resolveRuntime ?? resolveRuntime)({ endpoint: config.runtime.endpoint, rootDir: config.rootDir, podInfraImage: config.runtime.podInfraImage, log });
    resources.add("the runtime", () => runtime.release());
    const client = new CriClient(runtime.endpoint, { timeoutMs: config.runtime.requestTimeoutMs });
    resources.add("the CRI client", () => client.close());
    const runtimeName = await askRuntimeName(client, log);

    const pleg = new Pleg(client, clock, {
      mode: config.plegMode,
      onModeChange: (m) => log.info(`PLEG mode ${m.mode}: ${m.reason}`),
      onError: (what, err) => {
        log.warn(`PLEG ${what}: ${errorMessage(err)}`);
        if (what.startsWith("event stream")) metrics.incEventedPlegConnectionErrors();
      },
      onRelist: (r) => {
        metrics.observePlegRelist(r.durationMs / 1000);
        if (r.intervalMs !== undefined) metrics.observePlegRelistInterval(r.intervalMs / 1000);
      },
      onStreamConnected: () => metrics.incEventedPlegConnections(),
    });
    const podConfig = new PodConfig({ clock, log });
    const objects = await chooseObjectSource(config, cluster, deps.volumes ?? {}, clock, log);
    resources.add(objects.description, () => objects.close());
    const services = await chooseServiceLister(cluster, deps.volumes ?? {}, clock, log);
    resources.add(services.description, () => services.close());

    // The sources, started by the agent's run() once the server is up. The file and URL sources keep
    // their last good pods under the root directory, so a restart with a manifest gone bad, a URL
    // away or serving nothing, loses no running pod.
    const sources: PodSource[] = [];
    // With --local-objects, static and pushed pods may name the ConfigMaps and Secrets it serves;
    // otherwise the kubelet's PreventStaticPodAPIReferences refuses them at load.
    const loader = config.localObjects ? loadStaticPodsWithLocalObjects : loadStaticPods;
    const sourceState = join(config.rootDir, "sources");
    if (config.manifestPath) {
      sources.push(new FileSource({ path: config.manifestPath, nodeName, loader, clock, log, checkFrequencyMs: config.fileCheckFrequencyMs, stateDir: sourceState }));
    }
    if (config.manifestUrl) {
      sources.push(new HttpSource({ url: config.manifestUrl, headers: config.manifestUrlHeaders, nodeName, loader, clock, log, checkFrequencyMs: config.httpCheckFrequencyMs, stateDir: sourceState }));
    }
    // Pushed pods are kept under the root directory, so that a restarted agent adopts them. A push
    // obeys --push-policy (403), never takes over another source's pod (409), and is refused (403,
    // with admission's reason: OutOfpods, OutOfcpu, NodePorts, SysctlForbidden, …) when admission
    // would reject it.
    const push = new PushSource({
      nodeName, loader, log, stateFile: join(config.rootDir, "pushed-pods.json"),
      checks: [pushPolicyCheck(config.pushPolicy), conflictCheck(podConfig), (pod) => {
        // Pods restored from pushed-pods.json (checked before the agent exists) were admitted before.
        // Only asked: a critical pod that would preempt others is accepted; the preemption happens at its ADD.
        // Before the agent's first Node the answer would be InvalidNodeInfo: such a push is taken, and the
        // sync loop (which waits for that Node) admits or refuses the pod at its ADD, as any source's.
        if (!agent?.lastNode()) return undefined;
        const r = agent.canAdmitPod(pod, { dryRun: true });
        return r.admit ? undefined : { status: 403, message: `${r.reason}: ${r.message}` };
      }],
    });
    sources.push(push);
    if (cluster) sources.push(cluster);

    let lastNode: Awaited<ReturnType<typeof buildNode>> | undefined;
    // One stats provider for /stats/summary and the eviction manager (its cpu rates and du cache are
    // shared), made when first asked for: an agent with no eviction threshold that nobody scrapes never
    // loads it.
    let statsProvider: Promise<SummaryProvider> | undefined;
    const stats = (): Promise<SummaryProvider> =>
      (statsProvider ??= import("../stats/summary-provider").then(({ SummaryProvider }) => new SummaryProvider({
        nodeName, runtime: client, pods: () => a.pods(), clock, log, rootDir: config.rootDir, podsDir: join(config.rootDir, "pods"),
        podLogsRoot: config.pods.logsDir, cgroupRoot: containerManager.podsCgroup,
      })));
    let evictionManager: EvictionManager | undefined;
    // The admission chain (issue 17), in the kubelet's order (NewMainKubelet): the eviction manager's
    // handler goes first (src/eviction), then the sysctl allowlist, AppArmor, the agent's unsupported fields, then the predicate
    // handler (resources against the Node's allocatable, max pods, affinity, ports, NoExecute taints;
    // critical pods preempt), then node shutdown when there is one.
    const admitHandlers: PodAdmitHandler[] = [
      // In a cluster (--kubeconfig) static and mirror pods are critical (src/api isCriticalPod).
      new EvictionAdmitHandler(() => evictionManager?.pressure() ?? new Set(), { cluster: !!config.cluster }),
      new SysctlAdmitHandler(config.allowedUnsafeSysctls),
      // An AppArmor profile the host cannot enforce (no AppArmor in the kernel): refused, as the kubelet's
      // AppArmor admit handler, rather than run unconfined.
      new AppArmorAdmitHandler(),
      // Fields the kubelet acts on and the agent does not: refused, never silently ignored (field ledger).
      new UnsupportedFieldsAdmitHandler(),
      new PredicateAdmitHandler({
        // In a cluster, the API server's copy of the Node (labels and taints others set count), else
        // the one the agent built (the kubelet's getNodeAnyWay: nodeLister, then initialNode).
        node: () => cluster?.apiNode() ?? theAgent().lastNode(),
        failureHandler: new CriticalPodAdmissionHandler({ target: { evictPod: (pod, status, grace) => theAgent().evictPod(pod, status, grace) }, qosClass, log, cluster: !!config.cluster }),
        log,
      }),
    ];
    if (config.shutdown.periods.length > 0) {
      shutdownManager = new ShutdownManager({
        periods: config.shutdown.periods,
        target: { activePods: () => theAgent().activePods(), terminatePod: (pod, status, grace) => theAgent().terminatePod(pod, status, grace) },
        clock,
        log,
        events: nodeEvent,
      });
      admitHandlers.push(shutdownManager);
      log.info(`graceful node shutdown: ${shutdownManager.periods.map((p) => `priority ${p.priority} and up ${p.shutdownGracePeriodSeconds}s`).join(", ")}`);
    }
    // sd_notify (src/systemd): READY=1 after the first housekeeping that follows the PLEG's first relist.
    const notifier = new SdNotifier({ env: deps.notifyEnv ?? process.env, pid: process.pid, clock, log, ...(deps.notifySocket ? { socket: deps.notifySocket } : {}) });
    // Image GC: its own loop, and the eviction manager's reclaim of unused images (ImageGC).
    const imageGC = new ImageGCManager({
      runtime: client, fsStats: new CriImageFsStats(client), policy: config.gc.image, sandboxImage: config.runtime.podInfraImage,
      clock, log, periodMs: config.gc.imagePeriodMs, onEvent: (e) => nodeEvent("Warning", e.reason, e.message),
    });
    // spec.runtimeClassName → the sandbox's runtime handler: RuntimeClasses from the API server.
    const runtimeClasses = cluster ? new ApiRuntimeClasses(cluster.client, clock) : undefined;
    const a: Agent = new Agent({
      runtime: client,
      pleg,
      config: podConfig,
      sources,
      clock,
      log,
      runtimeName,
      runtimeConfig: {
        podLogsRoot: config.pods.logsDir, podsDir: join(config.rootDir, "pods"), cgroupRoot: config.pods.cgroupRoot, nodeName, hostIP: hostIPs[0]!, hostIPs,
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
      evictionManager: (target, localStorage) => (evictionManager = new EvictionManager({
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
      containerGC: { runtime: client, policy: config.gc.container, periodMs: config.gc.containerPeriodMs, onEvent: (e) => nodeEvent("Warning", e.reason, e.message) },
      backgroundLoops: [imageGC, new ContainerLogManager({ runtime: client, policy: config.gc.containerLogs, podLogsRoot: config.pods.logsDir, clock, log })],
      node: async () => {
        const health = agentHealth();
        // The events compare with the Node built last; the first one, in a cluster, with the API
        // server's copy when the informer has it (the kubelet's setters run on that), so that a reboot
        // while the agent was down is seen (Rebooted). Later builds do not ask the informer: it lags
        // the agent's own status writes, and each build would record the same change again.
        const previous = lastNode ?? cluster?.apiNode();
        lastNode = await buildNode({
          nodeName, labels: config.node.labels, taints: config.node.taints, runtime: client, maxPods: config.node.maxPods, reserved: config.node.reserved,
          now: clock.now(), version: pkg.version, runtimeName, addresses, port: server?.port, previous: lastNode,
          conditions: { ready: { ok: health.ready, message: health.message }, pressure: evictionManager?.pressure() },
          evictionReservation: (capacity) => hardEvictionReservation(config.eviction.thresholds, capacity),
        });
        recordNodeConditionEvents(nodeEvent, nodeName, previous, lastNode);
        return lastNode;
      },
      stateDir: config.rootDir,
      objects,
      services,
      volumePlugins: deps.volumes?.plugins?.(objects) ?? [],
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
          void cluster?.housekeeping(a.workers.states().map((s) => ({ pod: s.pod, terminating: a.workers.isPodTerminationRequested(s.uid) }))).catch((err) => log.warn(`mirror pods: ${errorMessage(err)}`));
          const stats = pleg.relistStats;
          if (stats.lastRelistTime) metrics.setPlegLastSeen(stats.lastRelistTime);
          const { pods, containers } = runtimeCounts(pleg.cache);
          metrics.setRunningPods(pods);
          metrics.setRunningContainers(containers);
        },
      },
    });
    agent = a;

    const srv = await startAgentServer({
      address: config.server.address,
      port: config.server.port,
      ...apiSecurity(config, hostIPs, cluster, clock, log),
      token: config.pushToken,
      anonymousReadOnly: config.server.anonymousReadOnly,
      metrics,
      log,
      view: {
        pods: () => a.pods(),
        healthChecks: () => a.healthChecks(),
        node: () => a.node(),
        pushPod: async (pod) => push.add(pod as never),
        deletePushedPod: async (ns, name) => push.remove(ns, name),
        summary: async (onlyCpuAndMemory) => (await stats()).get(onlyCpuAndMemory),
        configz: () => kubeletConfigz(config),
        events: () => eventRing.list(),
        streamUrl: async (r) => {
          const t = a.streamTarget(r.namespace, r.pod, r.uid, r.container);
          if ("status" in t) return t;
          try {
            if (r.kind === "portForward") return await client.portForward(t.sandboxId, r.ports);
            const streams = { containerId: t.containerId!, tty: r.tty, stdin: r.stdin, stdout: r.stdout, stderr: r.stderr };
            return r.kind === "exec" ? await client.exec({ ...streams, cmd: r.command }) : await client.attach(streams);
          } catch (err) {
            // The kubelet's streaming.WriteError: the runtime's error, 500 unless it says otherwise.
            return { status: 500, message: errorMessage(err) };
          }
        },
        containerLog: async (id) => {
          const s = await client.containerStatus(id);
          return { path: s.logPath, running: s.state === "CONTAINER_RUNNING" };
        },
      },
    });
    server = srv;
    resources.add("the HTTP API", () => srv.stop());
    // serverTLSBootstrap: the serving certificate from the cluster, served once issued and on each renewal.
    if (cluster && config.cluster?.certificates.serverTLSBootstrap) {
      const { startServingCertificateRotation } = await import("../certificate/node-certificates");
      const serving = startServingCertificateRotation({ certDir: config.certDir, nodeName, clock, log, client: cluster.client, addresses, serve: (cert, key) => srv.setServingCertificate(cert, key) });
      resources.add("the serving certificate rotation", () => serving.stop());
    }

    log.info(`nodeagent ${pkg.version} on node ${nodeName}: API at ${srv.url}, runtime ${runtime.endpoint}, sources ${sources.map((s) => s.name).join(", ")}, API objects from ${objects.description}`);
    if (cluster) log.info(`joining the cluster at ${cluster.client.server} as node ${nodeName}`);

    const ac = new AbortController();
    const loop = a.run(ac.signal);
    // The OOM watcher (src/oom): a kill the kernel logs is counted and, for the node's own, logged.
    const oomWatcher = new OomWatcher({ openKernelLog: deps.kernelLog ?? (() => new KmsgReader()), clock, log, onOom: (k, system) => {
      metrics.incOomKill(system);
      // The kubelet's SystemOOM event on the Node (oom_watcher_linux.go), for the node's own kills only.
      if (system) nodeEvent("Warning", "SystemOOM", k.processName && k.pid ? `System OOM encountered, victim process: ${k.processName}, pid: ${k.pid}` : "System OOM encountered");
    } });
    const oomLoop = oomWatcher.run(ac.signal);
    const watchdog = notifier.runWatchdog(ac.signal);
    const shutdownWatch = shutdownManager ? watchShutdownSignal(shutdownManager, deps.shutdownSignal ?? new LogindShutdownSignal({ log }), ac.signal, log) : Promise.resolve();
    return {
      agent: a,
      url: srv.url,
      shutdownPods: () => shutdownManager?.shutdown() ?? Promise.resolve(),
      async stop() {
        notifier.stopping();
        ac.abort();
        await loop;
        await Promise.all([oomLoop, watchdog, shutdownWatch]);
        await resources.releaseAll();
        log.info(shutdownManager?.shutdownStatus() ? "nodeagent stopped after the node shutdown stopped its pods" : "nodeagent stopped; the pods keep running");
      },
    };
  } catch (err) {
    await resources.releaseAll();
    throw err;
  }
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
