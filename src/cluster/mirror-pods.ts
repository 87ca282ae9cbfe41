// Mirror pods: the API's stand-in for each static pod, so that `kubectl get pods` shows what runs from
// the manifest directory or URL, and so that the static pod's status has somewhere to go. As the kubelet
// (pkg/kubelet/pod/mirror_client.go; kubelet.go SyncPod and HandlePodCleanups): a copy of the static pod
// with `kubernetes.io/config.mirror` = its config hash and the Node as controlling owner; an outdated one
// (other hash, or being deleted) is deleted with a UID precondition and created again; one whose static
// pod is gone is deleted. Deleting a mirror pod in the API just makes the agent create it again.
import type { Pod } from "kubernetes-types/core/v1";
import type { V1DeleteOptions, V1Pod } from "@kubernetes/client-node";
import { CONFIG_MIRROR_ANNOTATION, podKey } from "../api";
import { apiErrorMessage, isConflict, isNotFound, type KubeClient } from "../kube";
import type { Logger } from "../util";
import { isMirrorPod, isMirrorPodOf, staticPodHash, type ApiPodView } from "./api-pods";

export interface MirrorPodsOptions {
  client: Pick<KubeClient, "core">;
  apiPods: ApiPodView;
  nodeName: string;
  /** The Node object's uid, for the owner reference (the caller knows it once the Node is registered). */
  nodeUid: () => Promise<string>;
  log: Logger;
}

export class MirrorPods {
  /** The static pods that run, by full name: what should have a mirror pod. */
  private readonly running = new Map<string, Pod>();
  /** Full names with a create or delete in flight, and whether another pass was asked for meanwhile. */
  private readonly busy = new Map<string, { again: boolean; done: Promise<void> }>();

  constructor(private readonly o: MirrorPodsOptions) {
    // A mirror pod deleted (or marked for deletion) behind our back comes back at once, not at the next
    // housekeeping (docs "static pods": deleting the mirror pod just makes the kubelet recreate it).
    o.apiPods.onChange((event, pod) => {
      if (!isMirrorPod(pod) || (event !== "delete" && !pod.metadata?.deletionTimestamp)) return;
      // Only the current version's: an outdated one goes because we deleted it, and is replaced already.
      const staticPod = this.running.get(podKey(pod));
      if (staticPod && isMirrorPodOf(pod, staticPod)) void this.syncStaticPod(staticPod);
    });
  }

  /** The API pod that mirrors this version of the static pod, if the API source has seen it. */
  mirrorOf(staticPod: Pod): Pod | undefined {
    const pod = this.o.apiPods.get(staticPod.metadata?.name ?? "", staticPod.metadata?.namespace ?? "default");
    return pod && isMirrorPodOf(pod, staticPod) && !pod.metadata?.deletionTimestamp ? pod : undefined;
  }

  /**
   * Every static pod the agent has now, terminating ones included: each running one gets its mirror pod,
   * and mirror pods of static pods the agent no longer has are deleted (HandlePodCleanups).
   */
  async reconcile(staticPods: readonly Pod[], terminating: (pod: Pod) => boolean = () => false): Promise<void> {
    const all = new Set(staticPods.map(podKey));
    for (const name of this.running.keys()) if (!all.has(name)) this.running.delete(name);
    await Promise.all([...staticPods.filter((p) => !terminating(p)).map((p) => this.syncStaticPod(p)), this.deleteOrphans(all)]);
  }

  /** SyncPod's part for a static pod that runs: make sure its mirror pod exists and is current. */
  syncStaticPod(staticPod: Pod): Promise<void> {
    const name = podKey(staticPod);
    this.running.set(name, staticPod);
    return this.serialized(name, () => this.ensureMirror(name));
  }

  /** The static pod stopped for good (its manifest went away): it gets no mirror pod any more. */
  forget(staticPod: Pod): void {
    this.running.delete(podKey(staticPod));
  }

  private async deleteOrphans(staticPodNames: ReadonlySet<string>): Promise<void> {
    const orphans = this.o.apiPods.list().filter((p) => isMirrorPod(p) && p.spec?.nodeName === this.o.nodeName && !staticPodNames.has(podKey(p)));
    await Promise.all(
      orphans.map((p) =>
        this.serialized(podKey(p), async () => {
          const current = this.o.apiPods.get(p.metadata?.name ?? "", p.metadata?.namespace);
          if (current && current.metadata?.uid === p.metadata?.uid && !this.running.has(podKey(p))) await this.deleteMirror(current, "its static pod is gone");
        }),
      ),
    );
  }

  private async ensureMirror(fullName: string): Promise<void> {
    const staticPod = this.running.get(fullName);
    if (!staticPod) return;
    const existing = this.o.apiPods.get(staticPod.metadata?.name ?? "", staticPod.metadata?.namespace ?? "default");
    if (existing && isMirrorPodOf(existing, staticPod) && !existing.metadata?.deletionTimestamp) return;
    if (existing && !isMirrorPod(existing)) {
      // Never delete a pod someone created in the API: the name is taken, the static pod runs without one.
      this.o.log.warn("static pod has no mirror pod: an API pod that is not a mirror pod has its name", { pod: fullName });
      return;
    }
    if (existing) {
      const why = existing.metadata?.deletionTimestamp ? "it is being deleted" : "it is outdated";
      if (!(await this.deleteMirror(existing, why))) return;
    }
    await this.createMirror(staticPod);
  }

  private async createMirror(staticPod: Pod): Promise<void> {
    const m = staticPod.metadata ?? {};
    const mirror: Pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: {
        name: m.name,
        namespace: m.namespace ?? "default",
        ...(m.labels ? { labels: m.labels } : {}),
        annotations: { ...m.annotations, [CONFIG_MIRROR_ANNOTATION]: staticPodHash(staticPod) },
        // NodeRestriction admits a node's mirror pod only with this exact owner: the Node, as controller.
        ownerReferences: [{ apiVersion: "v1", kind: "Node", name: this.o.nodeName, uid: await this.o.nodeUid(), controller: true }],
      },
      spec: { ...staticPod.spec!, nodeName: this.o.nodeName },
    };
    try {
      await this.o.client.core.createNamespacedPod({ namespace: mirror.metadata!.namespace!, body: mirror as V1Pod });
      this.o.log.info("created mirror pod", { pod: podKey(staticPod), hash: staticPodHash(staticPod).slice(0, 8) });
    } catch (err) {
      // AlreadyExists: the informer has not shown our own earlier create yet; the next pass sees it.
      if (isConflict(err)) return;
      this.o.log.warn("creating a mirror pod failed", { pod: podKey(staticPod), err: apiErrorMessage(err) });
    }
  }

  /** Deletes a mirror pod now (grace 0) if it is still the one we saw (UID precondition). True if gone. */
  private async deleteMirror(pod: Pod, why: string): Promise<boolean> {
    const uid = pod.metadata?.uid ?? "";
    const body: V1DeleteOptions = { gracePeriodSeconds: 0, preconditions: { uid } };
    try {
      await this.o.client.core.deleteNamespacedPod({ name: pod.metadata?.name ?? "", namespace: pod.metadata?.namespace ?? "default", body });
      this.o.log.info("deleted mirror pod", { pod: podKey(pod), uid, reason: why });
      return true;
    } catch (err) {
      if (isNotFound(err)) return true;
      // A failed UID precondition: the name now holds another pod, which the next pass judges afresh.
      if (!isConflict(err)) this.o.log.warn("deleting a mirror pod failed", { pod: podKey(pod), err: apiErrorMessage(err) });
      return false;
    }
  }

  /** Runs fn for one full name at a time; calls made meanwhile fold into one more pass after it. */
  private serialized(fullName: string, fn: () => Promise<void>): Promise<void> {
    const current = this.busy.get(fullName);
    if (current) {
      current.again = true;
      return current.done;
    }
    const state = { again: false, done: Promise.resolve() };
    state.done = (async () => {
      try {
        do {
          state.again = false;
          await fn();
        } while (state.again);
      } finally {
        this.busy.delete(fullName);
      }
    })();
    this.busy.set(fullName, state);
    return state.done;
  }
}
