// The API server source: the pods bound to this node, from an informer on
// /api/v1/pods?fieldSelector=spec.nodeName=<node> (the kubelet's NewSourceApiserver), delivered to
// PodConfig as full sets like the other sources. Mirror pods are the agent's own reflection of its
// static pods, never something to run, so they are left out (the kubelet's pod manager keeps them apart).
//
// What the kubelet gets right here and this keeps: nothing is delivered before the first list, so the
// source is not "seen" and no running pod is taken for an orphan; and when the API server goes away the
// informer keeps its cache, so the set does not change — a pod stops only when the server says it was
// deleted, never because the server could not be reached.
import type { Pod } from "kubernetes-types/core/v1";
import { isMirrorPod } from "../api";
import type { SourceReport } from "./pod-config";

/** What the source needs of an informer (src/kube's KubeInformer; a fake in tests). */
export interface PodInformer {
  onChange(cb: (event: "add" | "update" | "delete", pod: Pod) => void): void;
  list(): readonly Pod[];
  readonly hasSynced: boolean;
  synced(): Promise<void>;
}

/** The API's copy of a static pod (src/api). */
export { isMirrorPod };

export class ApiserverSource {
  private scheduled = false;
  private emit?: (r: SourceReport) => void;

  constructor(
    private readonly informer: PodInformer,
    private readonly nodeName: string,
  ) {}

  /** Delivers the set once the informer has listed, then after every change (coalesced per turn). */
  start(emit: (r: SourceReport) => void): void {
    this.emit = emit;
    this.informer.onChange(() => this.schedule());
    if (this.informer.hasSynced) this.schedule();
    else void this.informer.synced().then(() => this.schedule());
  }

  stop(): void {
    this.emit = undefined;
  }

  /** The pods to run: bound to this node (the field selector says so; checked again), not mirrors. */
  snapshot(): SourceReport {
    const pods = this.informer.list().filter((p) => p.spec?.nodeName === this.nodeName && !isMirrorPod(p));
    return { source: "api", pods: pods.map((p) => ({ apiVersion: "v1", kind: "Pod", ...p })), errors: [], complete: this.informer.hasSynced };
  }

  /** The mirror pods on this node, by namespace/name. */
  mirrorPods(): Pod[] {
    return this.informer.list().filter((p) => p.spec?.nodeName === this.nodeName && isMirrorPod(p));
  }

  private schedule(): void {
    if (this.scheduled || !this.informer.hasSynced) return;
    this.scheduled = true;
    // A relist reports one change per pod; one set after all of them is what PodConfig needs.
    setImmediate(() => {
      this.scheduled = false;
      this.emit?.(this.snapshot());
    });
  }
}
