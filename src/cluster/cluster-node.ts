// ClusterNode: everything `nodeagent agent --kubeconfig` adds to the standalone agent, wired together
// the way the kubelet wires them: one informer on the pods bound to this node feeds both the API source
// (what to run) and the status manager and mirror pods (where status goes); the heartbeat registers the
// Node and renews its Lease. The agent sees it as one more pod source (the "api" source, whose
// problems() show on /healthz?verbose) and as its PodStatusManager; node.ts calls housekeeping().
import type { Node, Pod, PodStatus } from "kubernetes-types/core/v1";
import { ApiserverSource, type SourceReport } from "../config";
import { type KubeClient, KubeInformer, loadKubeClient, type RateLimit } from "../kube";
import type { Clock, Logger } from "../util";
import { isStaticPod } from "./api-pods";
import { startNodeHeartbeat, type NodeHeartbeat } from "./heartbeat";
import { MirrorPods } from "./mirror-pods";
import type { NodeHealth } from "../nodestatus";
import { loadStatusManager, type StatusManager } from "../status";

export interface ClusterNodeOptions {
  kubeconfig: string;
  context?: string;
  nodeName: string;
  /** The v1 Node this host is now (the agent's GET /node). */
  buildNode: () => Promise<Node>;
  health: () => NodeHealth;
  nodeStatusUpdateFrequencyMs?: number;
  userAgent?: string;
  /** The node client's limit (kubeAPIQPS, kubeAPIBurst); unset: none. */
  rateLimit?: RateLimit;
  clock: Clock;
  log: Logger;
}

/**
 * The kubelet's event client limit, at the kubelet's defaults: eventRecordQPS 50, eventBurst 100. These two
 * KubeletConfiguration fields are not read from a config file (a file that sets them gets the agent's
 * warning that lists the fields it does not take), so every node's events go at this rate.
 */
export const EVENT_RATE_LIMIT: RateLimit = { qps: 50, burst: 100 };

export class ClusterNode {
  /** As a pod source of the agent (src/config PodSource): the kubelet's "api" source. */
  readonly name = "api" as const;
  readonly source: ApiserverSource;
  readonly statusManager: StatusManager;
  readonly mirrorPods: MirrorPods;
  /** The pods bound to this node, as JSON: the API source's input and the status writers' view. */
  private readonly informer: KubeInformer<Pod>;
  /**
   * This node's own Node object as the API server has it (the kubelet's nodeLister): the labels and
   * taints that others add (kubectl label, the node lifecycle controller's taints) are the ones
   * admission checks pods against, as in the kubelet's getNodeAnyWay.
   */
  private readonly nodeInformer: KubeInformer<Node>;
  private heartbeat?: NodeHeartbeat;
  private markRegistered!: () => void;
  /** Resolves once the Node exists in the API (created or adopted). */
  readonly registered = new Promise<void>((resolve) => (this.markRegistered = resolve));
  /**
   * The kubelet's three clients over one connection and one count (cmd/kubelet/app/server.go): `client`
   * with kubeAPIQPS/kubeAPIBurst for pods, watches, objects and reviews; the heartbeat's (Lease and node
   * status) with no limit, so a node busy with its pods still renews its Lease on time; the events'
   * with a limit of their own. The heartbeat's client also registers the Node, which the kubelet does
   * on its limited client: one create (or get) at start, while the bucket is full anyway.
   */
  private readonly heartbeatClient: KubeClient;
  readonly eventClient: KubeClient;

  private constructor(
    readonly client: KubeClient,
    private readonly o: ClusterNodeOptions,
    statusManager: typeof StatusManager,
  ) {
    this.heartbeatClient = client.withRateLimit(undefined);
    this.eventClient = client.withRateLimit(o.rateLimit ? EVENT_RATE_LIMIT : undefined);
    const fieldSelector = `spec.nodeName=${o.nodeName}`;
    this.informer = new KubeInformer<Pod>({ client, path: "/api/v1/pods", fieldSelector, clock: o.clock, log: o.log, what: `pods bound to ${o.nodeName}` });
    this.nodeInformer = new KubeInformer<Node>({
      client,
      path: "/api/v1/nodes",
      fieldSelector: `metadata.name=${o.nodeName}`,
      clock: o.clock,
      log: o.log,
      what: `node ${o.nodeName}`,
    });
    this.source = new ApiserverSource(this.informer, o.nodeName);
    this.mirrorPods = new MirrorPods({ client, apiPods: this.informer, nodeName: o.nodeName, nodeUid: () => this.heartbeat!.nodeUid(), log: o.log });
    this.statusManager = new statusManager({ client, apiPods: this.informer, mirrorPods: this.mirrorPods, clock: o.clock, log: o.log });
  }

  /** Reads the kubeconfig (a bad one is an error now, not a retry loop later). */
  static async connect(o: ClusterNodeOptions): Promise<ClusterNode> {
    const client = await loadKubeClient(o.kubeconfig, { context: o.context, userAgent: o.userAgent, rateLimit: o.rateLimit, clock: o.clock, log: o.log });
    return new ClusterNode(client, o, (await loadStatusManager()).StatusManager);
  }

  /** Starts the heartbeat, the pod informer (its sets go to `feed`) and the status batch. */
  start(feed: (r: SourceReport) => void): void {
    this.heartbeat = startNodeHeartbeat({
      client: this.heartbeatClient,
      nodeName: this.o.nodeName,
      buildNode: this.o.buildNode,
      health: this.o.health,
      updateFrequencyMs: this.o.nodeStatusUpdateFrequencyMs,
      // The kubelet's nodeLister: the status update reads the Node from this watch, not with a GET.
      nodeLister: () => this.apiNode(),
      clock: this.o.clock,
      log: this.o.log,
    });
    void this.heartbeat.nodeUid().then(() => this.markRegistered());
    this.source.start(feed);
    this.informer.start();
    this.nodeInformer.start();
    this.statusManager.start();
  }

  /** The Node as the API server last told it (undefined before it is registered and listed). */
  apiNode(): Node | undefined {
    return this.nodeInformer.get(this.o.nodeName);
  }

  // The agent's PodStatusManager (src/status/pod-status-manager.ts): every computed status, terminations,
  // removals go to the API server, and static pods' statuses onto their mirror pods.

  setPodStatus(pod: Pod, status: PodStatus): void {
    this.statusManager.setPodStatus(pod, status);
    if (isStaticPod(pod) && !pod.metadata?.deletionTimestamp) void this.mirrorPods.syncStaticPod(pod);
  }

  terminatePod(pod: Pod, status: PodStatus): void {
    this.statusManager.podTerminated(pod, status);
  }

  removePod(pod: Pod): void {
    this.statusManager.removePod(pod.metadata?.uid ?? "");
    if (isStaticPod(pod)) this.mirrorPods.forget(pod);
  }

  /**
   * Housekeeping (every 2 s): mirror pods for the static pods the agent has — created where missing,
   * replaced where outdated, deleted where their static pod is gone (HandlePodCleanups).
   */
  housekeeping(pods: readonly { pod: Pod; terminating: boolean }[]): Promise<void> {
    const statics = pods.filter((p) => isStaticPod(p.pod));
    const terminating = new Set(statics.filter((p) => p.terminating).map((p) => p.pod.metadata?.uid));
    // Orphans are only known once the informer has listed; before that, nothing is deleted.
    if (!this.informer.hasSynced) return Promise.resolve();
    return this.mirrorPods.reconcile(
      statics.map((p) => p.pod),
      (p) => terminating.has(p.metadata?.uid),
    );
  }

  /** The informer's and heartbeat's last errors, for the health checks and logs. */
  problems(): string[] {
    const out: string[] = [];
    if (this.informer.lastError) out.push(`pod watch: ${this.informer.lastError}`);
    if (this.nodeInformer.lastError) out.push(`node watch: ${this.nodeInformer.lastError}`);
    if (this.heartbeat?.lease.lastError) out.push(`lease: ${this.heartbeat.lease.lastError}`);
    if (this.heartbeat?.status.lastError) out.push(`node status: ${this.heartbeat.status.lastError}`);
    return out;
  }

  async stop(): Promise<void> {
    this.source.stop();
    this.statusManager.stop();
    await Promise.all([this.informer.stop(), this.nodeInformer.stop(), this.heartbeat?.stop()]);
  }
}
