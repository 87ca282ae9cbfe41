// Pods pushed through the agent's HTTP API (POST /pods, DELETE /pods/<ns>/<name>): the "push" source.
// It stands in for the API server when the agent runs alone; beside an API server (--kubeconfig) both
// feed PodConfig, and pushed pods, having no API object, are mirrored like static pods. The HTTP handling lives in src/server; this class keeps the set,
// and with a state file it keeps it across restarts: a pushed pod must outlive the agent process,
// or a restart would find its containers with no source and remove them as orphans.
import { readFileSync, renameSync } from "node:fs";
import { writeFileAtomic } from "../util/atomic-file";
import type { Pod, PodList } from "kubernetes-types/core/v1";
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
  /** Where the pushed pods are kept (a v1 PodList of the pods as they were pushed), if anywhere. */
  stateFile?: string;
}

export class PushSource {
  private readonly nodeName: string;
  private readonly loader: PodLoader;
  private readonly log: Logger;
  private readonly location: string;
  private readonly stateFile: string | undefined;
  /** namespace/name → pod, in the order they were first pushed. */
  private readonly pods = new Map<string, Pod>();
  /** namespace/name → the pod as it was pushed: what the state file keeps. */
  private readonly pushed = new Map<string, Pod>();
  private onSnapshot: ((s: SourceReport) => void) | undefined;
  private started = false;

  constructor(opts: PushSourceOptions) {
    this.nodeName = opts.nodeName;
    this.loader = opts.loader;
    this.log = opts.log;
    this.location = opts.location ?? "POST /pods";
    this.stateFile = opts.stateFile;
    if (this.stateFile) this.restore(this.stateFile);
  }

  /**
   * Loads the pods kept by an earlier run. They go through the loader again, which gives them the
   * same UIDs, so the running containers are adopted. A pod that no longer loads is reported and
   * dropped; an unreadable file is set aside (never overwritten) and the set starts empty.
   */
  private restore(file: string): void {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return;
      this.log.error(`${file}: cannot read the pushed pods: ${(e as Error).message}`);
      return;
    }
    let items: unknown;
    try {
      items = (JSON.parse(text) as PodList).items;
      if (!Array.isArray(items)) throw new Error("no items list");
    } catch (e) {
      const aside = `${file}.unreadable-${Date.now()}`;
      this.log.error(`${file}: the pushed pods cannot be read back (${(e as Error).message}); kept as ${aside}, starting with none`);
      try {
        renameSync(file, aside);
      } catch {
        /* reported above; the next write replaces it */
      }
      return;
    }
    for (const pod of items as Pod[]) {
      const r = this.admit(pod);
      if (!r.ok) this.log.error(`${file}: pushed pod ${podKey(pod)} no longer loads and is dropped: ${r.message}`);
    }
    if (this.pods.size) this.log.info(`${this.pods.size} pushed pod(s) restored from ${file}`);
  }

  /** Writes the set atomically, so a crash leaves the old set or the new. */
  private persist(): void {
    if (!this.stateFile) return;
    const list: PodList = { apiVersion: "v1", kind: "PodList", metadata: {}, items: [...this.pushed.values()] };
    try {
      writeFileAtomic(this.stateFile, JSON.stringify(list));
    } catch (e) {
      this.log.error(`${this.stateFile}: cannot keep the pushed pods: ${(e as Error).message}`);
    }
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
    return { source: "push", pods: [...this.pods.values()], errors: [] };
  }

  /**
   * Adds a pod, or replaces the pod of the same namespace/name. Refused with 403 when the pod is bound
   * to another node (the kubelet only runs pods whose spec.nodeName is its own), with 422 when it
   * does not load (decode, default, validate).
   */
  add(pod: Pod): PushResult {
    const r = this.admit(pod);
    if (r.ok && r.changed) {
      this.persist();
      this.emit();
    }
    return r.ok ? { ok: true, pod: r.pod } : r;
  }

  private admit(pod: Pod): { ok: true; pod: Pod; changed: boolean } | { ok: false; status: number; message: string } {
    const bound = pod.spec?.nodeName;
    if (bound && bound !== this.nodeName) {
      return { ok: false, status: 403, message: `pod ${podKey(pod)} is bound to node "${bound}"; this is node "${this.nodeName}"` };
    }
    let result: LoadResult;
    try {
      result = this.loader(JSON.stringify(pod), { source: "push", location: this.location, nodeName: this.nodeName });
    } catch (e) {
      return { ok: false, status: 422, message: e instanceof Error ? e.message : String(e) };
    }
    if (!result.ok) return { ok: false, status: 422, message: result.errors.map(formatManifestError).join("\n") };
    const [loaded, ...rest] = result.pods;
    if (!loaded || rest.length > 0) return { ok: false, status: 422, message: `expected one pod, got ${result.pods.length}` };
    const key = podKey(loaded);
    const before = this.pods.get(key);
    this.pods.set(key, loaded);
    this.pushed.set(key, pod);
    const changed = !before || JSON.stringify(before) !== JSON.stringify(loaded);
    if (changed && this.started) this.log.info(`pod ${key} ${before ? "replaced" : "added"} through the API`);
    return { ok: true, pod: loaded, changed };
  }

  /** Removes the pod namespace/name; false when there is none. */
  remove(namespace: string, name: string): boolean {
    const key = `${namespace}/${name}`;
    if (!this.pods.delete(key)) return false;
    this.pushed.delete(key);
    this.log.info(`pod ${key} removed through the API`);
    this.persist();
    this.emit();
    return true;
  }

  private emit(): void {
    this.onSnapshot?.(this.snapshot());
  }
}
