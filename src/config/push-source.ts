// Pods pushed through the agent's HTTP API (POST /pods, DELETE /pods/<ns>/<name>): the "api" source.
// In the kubelet that source is the API server's watch of pods bound to the node; standalone, the
// agent's own API stands in for it. The HTTP handling lives in src/server; this class keeps the set.
import type { Pod } from "kubernetes-types/core/v1";
import { formatManifestError, type LoadResult, type PodLoader } from "../manifest/types";
import type { Logger } from "../util/log";
import { podKey, type SourceReport } from "./pod-config";

export type PushResult = { ok: true; pod: Pod } | { ok: false; status: number; message: string };

export interface PushSourceOptions {
  nodeName: string;
  loader: PodLoader;
  log: Logger;
  /** What the loader is told the pods came from. */
  location?: string;
}

export class PushSource {
  private readonly nodeName: string;
  private readonly loader: PodLoader;
  private readonly log: Logger;
  private readonly location: string;
  /** namespace/name → pod, in the order they were first pushed. */
  private readonly pods = new Map<string, Pod>();
  private onSnapshot: ((s: SourceReport) => void) | undefined;
  private started = false;

  constructor(opts: PushSourceOptions) {
    this.nodeName = opts.nodeName;
    this.loader = opts.loader;
    this.log = opts.log;
    this.location = opts.location ?? "POST /pods";
  }

  /**
   * Sends the current set at once (the source is then seen, like an API server's first list), and
   * again after every change.
   */
  start(onSnapshot: (s: SourceReport) => void): void {
    if (this.started) throw new Error("PushSource already started");
    this.started = true;
    this.onSnapshot = onSnapshot;
    onSnapshot(this.snapshot());
  }

  stop(): void {
    this.onSnapshot = undefined;
  }

  scan(): Promise<SourceReport> {
    return Promise.resolve(this.snapshot());
  }

  snapshot(): SourceReport {
    return { source: "api", pods: [...this.pods.values()], errors: [] };
  }

  /**
   * Adds a pod, or replaces the pod of the same namespace/name. Refused with 403 when the pod is bound
   * to another node (the kubelet only runs pods whose spec.nodeName is its own), with 422 when it
   * does not load (decode, default, validate).
   */
  add(pod: Pod): PushResult {
    const bound = pod.spec?.nodeName;
    if (bound && bound !== this.nodeName) {
      return { ok: false, status: 403, message: `pod ${podKey(pod)} is bound to node "${bound}"; this is node "${this.nodeName}"` };
    }
    let result: LoadResult;
    try {
      result = this.loader(JSON.stringify(pod), { source: "api", location: this.location, nodeName: this.nodeName });
    } catch (e) {
      return { ok: false, status: 422, message: e instanceof Error ? e.message : String(e) };
    }
    if (!result.ok) return { ok: false, status: 422, message: result.errors.map(formatManifestError).join("\n") };
    const [loaded, ...rest] = result.pods;
    if (!loaded || rest.length > 0) return { ok: false, status: 422, message: `expected one pod, got ${result.pods.length}` };
    const key = podKey(loaded);
    const before = this.pods.get(key);
    this.pods.set(key, loaded);
    if (!before || JSON.stringify(before) !== JSON.stringify(loaded)) {
      this.log.info(`pod ${key} ${before ? "replaced" : "added"} through the API`);
      this.emit();
    }
    return { ok: true, pod: loaded };
  }

  /** Removes the pod namespace/name; false when there is none. */
  remove(namespace: string, name: string): boolean {
    const key = `${namespace}/${name}`;
    if (!this.pods.delete(key)) return false;
    this.log.info(`pod ${key} removed through the API`);
    this.emit();
    return true;
  }

  private emit(): void {
    this.onSnapshot?.(this.snapshot());
  }
}
