// A Kubernetes cluster as the scheduler's source and binder (kube-scheduler's eventhandlers.go and
// DefaultBinder): informers on the nodes and on the non-terminal pods turn into the scheduler's
// cluster events — a pending pod is queued by the Scheduler when a profile serves its schedulerName,
// a bound pod counts on its node — and a placed pod is bound through POST pods/<name>/binding.
// The bound pod is not reported here after binding: the pod informer delivers it, and that event
// confirms the assumed pod in the cache, as upstream. Only cluster mode loads this (it imports
// @kubernetes/client-node through src/kube).
import type { Namespace, Node, Pod } from "kubernetes-types/core/v1";
import { isPodTerminal } from "../../api";
import { KubeInformer, apiErrorMessage, isNotFound, type InformerEvent, type KubeClient } from "../../kube";
import type { Clock, Logger } from "../../util";
import type { ClusterClient } from "../framework/interface";
import type { Labels } from "../model/labels";
import type { PodInfo } from "../model/pod-info";
import type { ClusterEvents } from "./agents";

/**
 * newPodInformer in pkg/scheduler/scheduler.go: the scheduler never sees Succeeded or Failed pods;
 * a pod that turns terminal leaves its watch as a deletion, which frees its room on the node.
 */
export const NON_TERMINAL_PODS = "status.phase!=Succeeded,status.phase!=Failed";

function objectKey(o: { metadata?: { namespace?: string; name?: string } }): string {
  return `${o.metadata?.namespace ?? ""}/${o.metadata?.name ?? ""}`;
}

export class KubeClusterError extends Error {
  override name = "KubeClusterError";
}

export class KubeClusterSource implements ClusterClient {
  private readonly nodeInformer: KubeInformer<Node>;
  private readonly podInformer: KubeInformer<Pod>;
  private readonly namespaceInformer: KubeInformer<Namespace>;
  /** The last version of each object handed to the scheduler: the "old" side of the next update. */
  private readonly nodes = new Map<string, Node>();
  private readonly pods = new Map<string, Pod>();

  constructor(
    private readonly client: KubeClient,
    private readonly events: ClusterEvents,
    /** Namespace labels, by name, for InterPodAffinity's and PodTopologySpread's namespaceSelector. */
    private readonly namespaceLabels: Map<string, Labels>,
    log: Logger,
    clock: Clock,
  ) {
    // The informers list and watch API JSON as the server sends it (no client-node models).
    this.namespaceInformer = new KubeInformer<Namespace>({ client, path: "/api/v1/namespaces", clock, log, what: "namespaces" });
    this.nodeInformer = new KubeInformer<Node>({ client, path: "/api/v1/nodes", clock, log, what: "nodes" });
    this.podInformer = new KubeInformer<Pod>({ client, path: "/api/v1/pods", fieldSelector: NON_TERMINAL_PODS, clock, log, what: "pods" });
    this.nodeInformer.onChange((event, obj) => this.onNode(event, obj));
    this.namespaceInformer.onChange((event, obj) => this.onNamespace(event, obj));
    this.podInformer.onChange((event, obj) => this.onPod(event, obj));
  }

  /** Starts the informers; nodes first so that the first pods find their nodes. */
  start(): void {
    this.namespaceInformer.start();
    this.nodeInformer.start();
    this.podInformer.start();
  }

  /** Resolves once nodes and pods have been listed (WaitForCacheSync before scheduling starts). */
  async synced(): Promise<void> {
    await Promise.all([this.namespaceInformer.synced(), this.nodeInformer.synced(), this.podInformer.synced()]);
  }

  async stop(): Promise<void> {
    await Promise.all([this.namespaceInformer.stop(), this.nodeInformer.stop(), this.podInformer.stop()]);
  }

  nodeNames(): string[] {
    return [...this.nodes.keys()];
  }

  /** The pod as the informer last saw it, by namespace and name. */
  pod(namespace: string, name: string): Pod | undefined {
    return this.pods.get(`${namespace}/${name}`);
  }

  private onNamespace(event: InformerEvent, ns: Namespace): void {
    const name = ns.metadata?.name ?? "";
    if (event === "delete") this.namespaceLabels.delete(name);
    // The API server sets kubernetes.io/metadata.name; older servers may not.
    else this.namespaceLabels.set(name, { "kubernetes.io/metadata.name": name, ...ns.metadata?.labels });
  }

  private onNode(event: InformerEvent, node: Node): void {
    const key = node.metadata?.name ?? "";
    const old = this.nodes.get(key);
    if (event === "delete") {
      if (!old) return;
      this.nodes.delete(key);
      this.events.onNodeDelete(old);
      return;
    }
    this.nodes.set(key, node);
    if (!old) this.events.onNodeAdd(node);
    else if (old.metadata?.resourceVersion !== node.metadata?.resourceVersion) this.events.onNodeUpdate(old, node);
  }

  private onPod(event: InformerEvent, pod: Pod): void {
    const key = objectKey(pod);
    const old = this.pods.get(key);
    // A server that ignores the field selector, or a relist racing a phase change: terminal pods
    // leave like deleted ones.
    if (event === "delete" || isPodTerminal(pod)) {
      if (!old) return;
      this.pods.delete(key);
      this.events.onPodDelete(old);
      return;
    }
    this.pods.set(key, pod);
    if (!old) return this.events.onPodAdd(pod);
    // A pod deleted and created again under the same name while the watch was away.
    if (old.metadata?.uid !== pod.metadata?.uid) {
      this.events.onPodDelete(old);
      this.events.onPodAdd(pod);
      return;
    }
    // updatePodInSchedulingQueue: an update carrying the same resourceVersion (a relist) is no change.
    if (old.metadata?.resourceVersion === pod.metadata?.resourceVersion) return;
    this.events.onPodUpdate(old, pod);
  }

  /**
   * DefaultBinder.Bind: POST pods/<name>/binding with the pod's UID, so that a pod deleted and
   * created again under the same name meanwhile is not bound by mistake. A 409 (already bound) is a
   * binding error like any other: the Scheduler forgets the assumed pod, runs Unreserve and requeues
   * the pod, which leaves the queue when the informer shows it bound.
   */
  async bind(pod: Pod, nodeName: string): Promise<void> {
    const name = pod.metadata?.name ?? "";
    const namespace = pod.metadata?.namespace || "default";
    try {
      await this.client.core.createNamespacedPodBinding({
        name,
        namespace,
        body: { apiVersion: "v1", kind: "Binding", metadata: { name, namespace, uid: pod.metadata?.uid }, target: { kind: "Node", name: nodeName } },
      });
    } catch (e) {
      throw new KubeClusterError(`binding ${namespace}/${name} to ${nodeName}: ${apiErrorMessage(e)}`);
    }
  }

  /** Preemption's victim: deleted through the API (util.DeletePod); one already gone is fine. */
  async deletePod(victim: PodInfo, nodeName: string): Promise<void> {
    try {
      await this.client.core.deleteNamespacedPod({ name: victim.name, namespace: victim.namespace });
    } catch (e) {
      if (isNotFound(e)) return;
      throw new KubeClusterError(`deleting preemption victim ${victim.key} on ${nodeName}: ${apiErrorMessage(e)}`);
    }
  }
}
