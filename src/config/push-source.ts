// Pods pushed through the agent's HTTP API (POST /pods, DELETE /pods/<ns>/<name>): the "push" source.
// It stands in for the API server when the agent runs alone; beside an API server (--kubeconfig) both
// feed PodConfig, and pushed pods, having no API object, are mirrored like static pods. The HTTP
// handling lives in src/server; this class keeps the set, and with a state file (0600) it keeps it
// across restarts: a pushed pod must outlive the agent process, or a restart would find its
// containers with no source and remove them as orphans.
//
// A push is untrusted input with root's reach (issue 12): its UID is the loader's hash, never the
// client's; it passes the pre-admission checks (--push-policy, no takeover of another source's pod,
// --max-pods) before it is kept; the set is bounded (MAX_PUSHED_PODS); and a state file that cannot
// be read makes the source "not seen" rather than empty, so that no running pod is lost to it.
import { chmodSync, copyFileSync, existsSync, readFileSync, statSync } from "node:fs";
import { errorMessage, type Logger, writeFileAtomic } from "../util";
import type { Pod, PodList } from "kubernetes-types/core/v1";
import { podKey, type PushResult } from "../api";
import { formatManifestError, type LoadResult, type PodLoader } from "../manifest";
import type { PodConfig, SourceReport } from "./pod-config";
import type { PushCheck, PushRefusal } from "./push-policy";
import type { PodSource } from "./types";

/**
 * How many pods the push source keeps at most. A node runs --max-pods (110 by default) anyway; this
 * bounds what a token holder can make the agent hold in memory and rewrite on every push.
 */
export const MAX_PUSHED_PODS = 1000;

export interface PushSourceOptions {
  nodeName: string;
  loader: PodLoader;
  log: Logger;
  /** What the loader is told the pods came from. */
  location?: string;
  /** Where the pushed pods are kept (a v1 PodList of the pods as they were pushed), if anywhere. */
  stateFile?: string;
  /**
   * Pre-admission checks of every push, in order, on the pod as loaded (UID derived, name final):
   * the first refusal answers it (--push-policy, conflicts with other sources, --max-pods).
   * Undefined entries are skipped, so that an option that is off can stay in the list.
   */
  checks?: readonly (PushCheck | undefined)[];
  /** At most this many pushed pods; a push of one more is refused with 403. Default MAX_PUSHED_PODS. */
  maxPods?: number;
}

/** POST/DELETE while the state file cannot be read: the set is unknown, so nothing may change it. */
export class PushUnavailableError extends Error {
  readonly status = 503;
  constructor(message: string) {
    super(message);
    this.name = "PushUnavailableError";
  }
}

/** The push conflict check: 409 when another source holds the pod's UID or namespace/name. */
export function conflictCheck(config: Pick<PodConfig, "conflict">): PushCheck {
  return (pod) => {
    const c = config.conflict(pod, "push");
    return c ? { status: 409, message: `${c.message}: a pushed pod cannot take over another source's pod` } : undefined;
  };
}

export class PushSource implements PodSource {
  readonly name = "push" as const;
  private readonly nodeName: string;
  private readonly loader: PodLoader;
  private readonly log: Logger;
  private readonly location: string;
  private readonly stateFile: string | undefined;
  private readonly checks: PushCheck[];
  private readonly maxPods: number;
  /** namespace/name → pod, in the order they were first pushed. */
  private readonly pods = new Map<string, Pod>();
  /** namespace/name → the pod as it was pushed: what the state file keeps. */
  private readonly pushed = new Map<string, Pod>();
  /** Why the state file cannot be read, while it cannot: the set is unknown (see restore). */
  private unreadable: string | undefined;
  /** Whether a copy of the unreadable file has been set aside (once per unreadable spell). */
  private setAside = false;
  /** What restoring the state file found wrong with kept pods (they are reported, not run or not changed). */
  private restoreProblems: string[] = [];
  private onSnapshot: ((s: SourceReport) => void) | undefined;
  private started = false;

  constructor(opts: PushSourceOptions) {
    this.nodeName = opts.nodeName;
    this.loader = opts.loader;
    this.log = opts.log;
    this.location = opts.location ?? "POST /pods";
    this.stateFile = opts.stateFile;
    this.checks = (opts.checks ?? []).filter((c): c is PushCheck => c !== undefined);
    this.maxPods = opts.maxPods ?? MAX_PUSHED_PODS;
    if (this.stateFile) this.restore(this.stateFile);
  }

  /**
   * Loads the pods kept by an earlier run. They go through the loader again, which gives them the
   * same UIDs, so the running containers are adopted. A pod that no longer loads is reported and
   * dropped. A file that cannot be read or parsed is NOT an empty set: its pods may be running, and
   * an empty set would have them removed as orphans (issue 12: a corrupt file killed every pushed
   * pod). The source then reports itself incomplete (SourceReport.complete false: not seen, so no
   * orphan is removed), a copy of the file is set aside, the file itself is left in place, and
   * pushes are refused with 503 until the operator fixes or removes it: it is read again on every
   * POST or DELETE (and by reload()). Removing the file says "no pushed pods": their containers go.
   */
  private restore(file: string): void {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") {
        this.replaceSet([]);
        return;
      }
      this.markUnreadable(file, `cannot read it: ${errorMessage(e)}`, false);
      return;
    }
    let items: unknown;
    try {
      items = (JSON.parse(text) as PodList).items;
      if (!Array.isArray(items)) throw new Error("no items list");
    } catch (e) {
      this.markUnreadable(file, `cannot parse it: ${errorMessage(e)}`, true);
      return;
    }
    this.replaceSet(items as Pod[]);
    this.restrictMode(file);
    if (this.pods.size) this.log.info("pushed pods restored", { pods: this.pods.size, path: file });
  }

  /** The kept pods, as the set from now on (the file was read, or is gone). */
  private replaceSet(items: readonly Pod[]): void {
    const file = this.stateFile ?? "";
    this.unreadable = undefined;
    this.setAside = false;
    this.pods.clear();
    this.pushed.clear();
    this.restoreProblems = [];
    for (const pod of items) {
      const r = this.admit(pod);
      if (!r.ok) {
        const problem = `${file}: pushed pod ${podKey(pod)} no longer loads and is dropped: ${r.message}`;
        this.restoreProblems.push(problem);
        this.log.error("pushed pod no longer loads and is dropped", { path: file, pod: podKey(pod), err: r.message });
        continue;
      }
      // Admitted under the rules of its day: kept running, but said, so that an operator who turned
      // on --push-policy restricted since knows what to delete.
      const refusal = this.refusal(r.pod);
      if (refusal) {
        const problem = `${file}: pushed pod ${podKey(r.pod)} would be refused now (${refusal.status}: ${refusal.message}); it is kept: DELETE it to remove it`;
        this.restoreProblems.push(problem);
        this.log.warn("pushed pod would be refused now; it is kept: DELETE it to remove it", {
          path: file,
          pod: podKey(r.pod),
          status: refusal.status,
          reason: refusal.message,
        });
      }
    }
  }

  private markUnreadable(file: string, why: string, copy: boolean): void {
    const first = this.unreadable === undefined;
    let kept = "";
    let copied: { copy?: string; copyErr?: unknown } = {};
    if (copy && !this.setAside) {
      const aside = `${file}.unreadable-${Date.now()}`;
      try {
        copyFileSync(file, aside);
        chmodSync(aside, 0o600);
        this.setAside = true;
        kept = `; a copy is kept as ${aside}`;
        copied = { copy: aside };
      } catch (e) {
        kept = `; no copy could be kept (${errorMessage(e)})`;
        copied = { copyErr: e };
      }
    }
    // The sentence is what POST/DELETE /pods answer and /healthz shows; the log has it as fields.
    this.unreadable =
      `${file}: the pushed pods cannot be read back (${why})${kept}. The push source counts as not seen, so no pod is removed ` +
      `as an orphan, and POST/DELETE /pods answer 503 until the file is fixed or removed (it is read again on each of them)`;
    if (first || kept) {
      this.log.error(
        "the pushed pods cannot be read back: the push source counts as not seen (no orphan is removed) and POST/DELETE /pods answer 503 until the file is fixed or removed",
        { path: file, reason: why, ...copied },
      );
    }
  }

  /** A state file from before it was kept 0600 (pods' env values may be secrets) is narrowed. */
  private restrictMode(file: string): void {
    try {
      if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
    } catch (e) {
      this.log.warn("cannot make the pushed pods' file private (0600)", { path: file, err: e });
    }
  }

  /**
   * Reads the state file again while it is unreadable: what every POST and DELETE does first, and
   * what a SIGHUP handler may call. Sends the set when it can be read now. Returns problems() of the
   * file, empty when the source is usable.
   */
  reload(): string[] {
    if (this.unreadable === undefined || !this.stateFile) return [];
    this.restore(this.stateFile);
    if (this.unreadable === undefined) {
      const what = existsSync(this.stateFile)
        ? "the pushed pods' file is readable again, its pods restored; the push source is seen"
        : "the pushed pods' file is removed: no pushed pods (their containers go as orphans); the push source is seen";
      this.log.info(what, { path: this.stateFile, pods: this.pods.size });
      this.emit();
      return [];
    }
    return [this.unreadable];
  }

  /** What is wrong with the push source now, for the log and /healthz: the state file, kept pods. */
  problems(): string[] {
    return [...(this.unreadable ? [this.unreadable] : []), ...this.restoreProblems];
  }

  /** Writes the set atomically, so a crash leaves the old set or the new. */
  private persist(): void {
    if (!this.stateFile) return;
    const list: PodList = { apiVersion: "v1", kind: "PodList", metadata: {}, items: [...this.pushed.values()] };
    try {
      // 0600 (writeFileAtomic's mode): pods' env values can be secrets.
      writeFileAtomic(this.stateFile, JSON.stringify(list));
    } catch (e) {
      this.log.error("cannot keep the pushed pods", { path: this.stateFile, err: e });
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

  /** The set; while the state file cannot be read, an empty one marked incomplete (not seen). */
  snapshot(): SourceReport {
    const errors = this.unreadable ? [{ file: this.stateFile ?? "", line: 1, column: 1, field: "", message: this.unreadable }] : [];
    return { source: "push", pods: [...this.pods.values()], errors, ...(this.unreadable ? { complete: false } : {}) };
  }

  /**
   * Adds a pod, or replaces the pod of the same namespace/name. Refused with 503 while the state
   * file cannot be read, 403 when the pod is bound to another node (the kubelet only runs pods whose
   * spec.nodeName is its own) or one more pod would pass maxPods, 422 when it does not load (decode,
   * default, validate), and with a check's own status (409 conflict, 403 policy) when one refuses it.
   * The checks see the pod as loaded: its UID is the agent's hash, never one the client wrote.
   */
  add(pod: Pod): PushResult {
    if (this.reload().length > 0) return { ok: false, status: 503, message: this.unreadable! };
    const r = this.admit(pod, (loaded) => this.refusal(loaded) ?? this.overLimit(loaded));
    if (r.ok && r.changed) {
      this.persist();
      this.emit();
    }
    return r.ok ? { ok: true, pod: r.pod } : r;
  }

  private refusal(pod: Pod): PushRefusal | undefined {
    for (const check of this.checks) {
      const refused = check(pod);
      if (refused) return refused;
    }
    return undefined;
  }

  private overLimit(pod: Pod): PushRefusal | undefined {
    if (this.pods.has(podKey(pod)) || this.pods.size < this.maxPods) return undefined;
    return { status: 403, message: `pod ${podKey(pod)} is refused: the agent keeps at most ${this.maxPods} pushed pods; DELETE one first` };
  }

  private admit(
    pod: Pod,
    check?: (loaded: Pod) => PushRefusal | undefined,
  ): { ok: true; pod: Pod; changed: boolean } | { ok: false; status: number; message: string } {
    const bound = pod.spec?.nodeName;
    if (bound && bound !== this.nodeName) {
      return { ok: false, status: 403, message: `pod ${podKey(pod)} is bound to node "${bound}"; this is node "${this.nodeName}"` };
    }
    let result: LoadResult;
    try {
      result = this.loader(JSON.stringify(pod), { source: "push", location: this.location, nodeName: this.nodeName });
    } catch (e) {
      return { ok: false, status: 422, message: errorMessage(e) };
    }
    if (!result.ok) return { ok: false, status: 422, message: result.errors.map(formatManifestError).join("\n") };
    const [loaded, ...rest] = result.pods;
    if (!loaded || rest.length > 0) return { ok: false, status: 422, message: `expected one pod, got ${result.pods.length}` };
    const refused = check?.(loaded);
    if (refused) return { ok: false, ...refused };
    const key = podKey(loaded);
    const before = this.pods.get(key);
    this.pods.set(key, loaded);
    this.pushed.set(key, pod);
    const changed = !before || JSON.stringify(before) !== JSON.stringify(loaded);
    if (changed && this.started) this.log.info(before ? "pod replaced through the API" : "pod added through the API", { pod: key });
    return { ok: true, pod: loaded, changed };
  }

  /** Removes the pod namespace/name; false when there is none. PushUnavailableError while the state file cannot be read. */
  remove(namespace: string, name: string): boolean {
    if (this.reload().length > 0) throw new PushUnavailableError(this.unreadable!);
    const key = `${namespace}/${name}`;
    if (!this.pods.delete(key)) return false;
    this.pushed.delete(key);
    this.log.info("pod removed through the API", { pod: key });
    this.persist();
    this.emit();
    return true;
  }

  private emit(): void {
    this.onSnapshot?.(this.snapshot());
  }
}
