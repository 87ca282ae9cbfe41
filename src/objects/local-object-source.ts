// LocalObjectSource: `--local-objects DIR`, ConfigMap and Secret manifests in a folder serving the
// configMap/secret volumes and env of static and pushed pods when there is no API server. This goes
// one step past the kubelet (which refuses API references in static pods) and follows podman kube
// play, which reads ConfigMaps from files; it is opt-in (issue 15, "Standalone mode").
//
// The folder is watched as the static pod directory is (src/config/file-source.ts), in a smaller form,
// with the same settle rule (src/config/settle.ts):
//   - every name not starting with a dot is read, sorted; editor and package-manager leftovers
//     (`~`, `.bak`, `.swp`…) are reported and not read; subdirectories are not entered;
//   - an inotify watch on the folder (debounced) and a full rescan every checkFrequency (20 s);
//   - a file's new content is acted on only once it has SETTLED: renamed into place (ctime after
//     mtime), or unchanged for the settle window (1 s), or its bytes are its last good ones; until
//     then it keeps serving what it served, so the first half of a two-step write is never served;
//   - a settled content that does not load (YAML errors, a wrong kind, an invalid key: every error
//     with file, line and field, src/manifest/objects.ts) is reported (problems(), logged once) and
//     the file keeps its last good objects: a bad edit never empties a volume;
//   - a file gone for the settle window takes its objects with it; the folder itself missing keeps
//     everything and is reported;
//   - the same object in two files: the first file (in name order) serves it, the second is reported.
// A change of an object that a registered pod names (added, changed, removed) is told to onChange.
// Service-account tokens need an API server: getServiceAccountToken always fails.
import type { BigIntStats } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import type { ConfigMap, Pod, Secret } from "kubernetes-types/core/v1";
import { podConfigMapNames, podSecretNames } from "../api";
import {
  byteOrder,
  type FileVersion,
  fsWatch,
  isBackupFileName,
  newVersion,
  noteRead,
  readVersion,
  settleVerdict,
  statKey,
  type WatchedDirectoryOptions,
  type Watcher,
} from "../config";
import { formatManifestError, loadObjects, type LocalObject, type ManifestError } from "../manifest";
import { errorCode, errorMessage, type LogFields, Mutex, type Timer } from "../util";
import { ObjectNotFoundError, ObjectSourceError, type ObjectRef, type ObjectSource, type ServiceAccountToken, type TokenRequest } from "./types";

export interface LocalObjectSourceOptions extends WatchedDirectoryOptions {
  dir: string;
}

export const TOKENS_NEED_KUBECONFIG = "service account tokens need --kubeconfig: --local-objects serves only ConfigMaps and Secrets";

interface FileRecord extends FileVersion {
  /** The content last read: its objects, or its errors. */
  result: { ok: true; objects: LocalObject[] } | { ok: false; errors: ManifestError[] };
  /** The objects of the last content that loaded (goodHash): what the file serves. */
  objects: LocalObject[];
  /** The errors of the settled content, when it did not load. */
  errors: ManifestError[];
  goneSince?: number;
}

const keyOf = (kind: string, namespace: string, name: string) => `${kind}/${namespace}/${name}`;
const objectKey = (o: LocalObject) => keyOf(o.kind ?? "", o.metadata?.namespace ?? "default", o.metadata?.name ?? "");

export class LocalObjectSource implements ObjectSource {
  readonly description: string;
  private readonly dir: string;
  private readonly files = new Map<string, FileRecord>();
  /** What is served: object key → the object and the file it came from. */
  private index = new Map<string, { object: LocalObject; file: string; json: string }>();
  private readonly pods = new Map<string, string[]>();
  private readonly listeners = new Set<(ref: ObjectRef) => void>();
  private readonly mutex = new Mutex();
  private readonly fileTimeNow: () => number;
  private dirProblem?: string;
  private duplicateProblems: string[] = [];
  private skipped: string[] = [];
  private readonly logged = new Set<string>();
  private watcher?: Watcher;
  private timers: { periodic?: Timer; debounce?: Timer; settle?: Timer } = {};
  private closed = false;
  private readonly firstScan: Promise<void>;
  private resolveFirst!: () => void;

  constructor(private readonly o: LocalObjectSourceOptions) {
    this.dir = o.dir.length > 1 ? o.dir.replace(/\/+$/, "") : o.dir;
    this.description = `--local-objects ${this.dir}`;
    this.fileTimeNow = o.fileTimeNow ?? Date.now;
    this.firstScan = new Promise((r) => (this.resolveFirst = r));
  }

  /** Reads the folder now, then on watch events and every checkFrequency; resolves after the first read. */
  start(): Promise<void> {
    this.armPeriodic();
    void this.scan().finally(() => this.resolveFirst());
    return this.firstScan;
  }

  /** One full read of the folder, serialised with the background ones. */
  scan(): Promise<void> {
    return this.mutex.run(() => this.readAll());
  }

  /**
   * What is wrong, one line each: the folder missing or unreadable, files that do not load (each error
   * as file:line:col: field: message), objects defined twice, skipped files.
   */
  problems(): string[] {
    const out: string[] = [];
    if (this.dirProblem) out.push(this.dirProblem);
    for (const [, rec] of [...this.files].sort(([a], [b]) => byteOrder(a, b))) for (const e of rec.errors) out.push(formatManifestError(e));
    return [...out, ...this.duplicateProblems, ...this.skipped];
  }

  registerPod(pod: Pod): void {
    const ns = pod.metadata?.namespace ?? "default";
    this.pods.set(pod.metadata?.uid ?? "", [
      ...podConfigMapNames(pod).map((n) => keyOf("ConfigMap", ns, n)),
      ...podSecretNames(pod).map((n) => keyOf("Secret", ns, n)),
    ]);
  }

  unregisterPod(pod: Pod): void {
    this.pods.delete(pod.metadata?.uid ?? "");
  }

  async getConfigMap(namespace: string, name: string): Promise<ConfigMap> {
    return (await this.get("ConfigMap", namespace, name)) as ConfigMap;
  }

  async getSecret(namespace: string, name: string): Promise<Secret> {
    return (await this.get("Secret", namespace, name)) as Secret;
  }

  async getServiceAccountToken(pod: Pod, req: TokenRequest): Promise<ServiceAccountToken> {
    throw new ObjectSourceError(
      { kind: "ServiceAccount", namespace: pod.metadata?.namespace ?? "default", name: req.serviceAccountName },
      TOKENS_NEED_KUBECONFIG,
    );
  }

  onChange(listener: (ref: ObjectRef) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    this.closed = true;
    for (const t of Object.values(this.timers)) t?.cancel();
    this.watcher?.close();
    this.watcher = undefined;
    this.resolveFirst();
  }

  private async get(kind: "ConfigMap" | "Secret", namespace: string, name: string): Promise<LocalObject> {
    await this.firstScan;
    const hit = this.index.get(keyOf(kind, namespace, name));
    if (!hit) throw new ObjectNotFoundError({ kind, namespace, name });
    return hit.object;
  }

  // ---- the folder ------------------------------------------------------------------------------

  private async readAll(): Promise<void> {
    if (this.closed) return;
    const now = this.o.clock.now();
    let names: string[];
    try {
      const st = await stat(this.dir);
      if (!st.isDirectory()) throw Object.assign(new Error("not a directory"), { code: "ENOTDIR" });
      names = await readdir(this.dir);
    } catch (e) {
      const why = errorCode(e) === "ENOENT" ? "no such directory" : errorMessage(e);
      this.setDirProblem(`--local-objects ${this.dir}: ${why}; the objects last read from it are kept`, why);
      this.closeWatch();
      return;
    }
    if (this.dirProblem) this.o.log.info("--local-objects is readable again", { path: this.dir });
    this.dirProblem = undefined;
    this.ensureWatch();
    const present = new Set<string>();
    const skipped: string[] = [];
    let nextSettle = Number.POSITIVE_INFINITY;
    for (const name of names.filter((n) => !n.startsWith(".")).sort(byteOrder)) {
      const file = join(this.dir, name);
      if (isBackupFileName(name)) {
        skipped.push(`${file}: backup or editor file: not read`);
        continue;
      }
      let st: BigIntStats;
      try {
        st = await stat(file, { bigint: true });
      } catch (e) {
        if (errorCode(e) !== "ENOENT") {
          skipped.push(`${file}: cannot stat: ${errorMessage(e)}`);
          present.add(file); // whatever it served stays
        }
        continue;
      }
      if (!st.isFile()) continue;
      present.add(file);
      const wait = await this.readOne(file, st, now);
      if (wait !== undefined) nextSettle = Math.min(nextSettle, wait);
    }
    for (const [file, rec] of this.files) {
      if (present.has(file)) {
        rec.goneSince = undefined;
        continue;
      }
      rec.goneSince ??= now;
      // An editor may delete before it writes; `rm -rf` unlinks files before the folder.
      if (now - rec.goneSince >= this.settleMs) this.files.delete(file);
      else nextSettle = Math.min(nextSettle, rec.goneSince + this.settleMs);
    }
    this.skipped = skipped;
    if (nextSettle !== Number.POSITIVE_INFINITY) this.armSettle(nextSettle - now);
    this.rebuildIndex();
  }

  private get settleMs(): number {
    return this.o.settleMs ?? 1_000;
  }

  /** Reads a file whose stat changed and settles it if it can; the time it may settle at, if it must wait. */
  private async readOne(file: string, st: BigIntStats, now: number): Promise<number | undefined> {
    let rec = this.files.get(file);
    if (!rec || rec.statKey !== statKey(st)) {
      const r = await readVersion(file, st);
      if (r.kind === "gone") return undefined;
      st = r.st;
      if (!rec) {
        rec = { ...newVersion(now), result: { ok: true, objects: [] }, objects: [], errors: [] };
        this.files.set(file, rec);
      }
      if (noteRead(rec, r, now)) {
        if (r.failure !== undefined) rec.result = { ok: false, errors: [{ file, line: 1, column: 1, field: "", message: r.failure }] };
        else if (r.hash === rec.goodHash) rec.result = { ok: true, objects: rec.objects };
        else rec.result = toResult(loadObjects(r.text, file));
      }
    }
    if (rec.settled) return undefined;
    const v = settleVerdict(rec, st, now, this.fileTimeNow(), this.settleMs);
    // Only the static pod path trusts the watch's rename events: here anything unsettled waits the window.
    if (v.verdict !== "settled") return now + v.waitMs;
    rec.settled = true;
    rec.acceptedHash = rec.hash;
    if (rec.result.ok) {
      rec.objects = rec.result.objects;
      rec.goodHash = rec.hash;
      rec.errors = [];
    } else {
      rec.errors = rec.result.errors;
      const msg = rec.objects.length ? "--local-objects: a file does not load; its last good objects are kept" : "--local-objects: a file does not load";
      this.logOnce(`${file}:${rec.hash}`, msg, { path: file, kept: rec.objects.length || undefined, errors: rec.errors.map(formatManifestError) });
    }
    return undefined;
  }

  /** What is served, from the files' last good objects; tells listeners what changed of what pods use. */
  private rebuildIndex(): void {
    const next = new Map<string, { object: LocalObject; file: string; json: string }>();
    const duplicates: string[] = [];
    for (const [file, rec] of [...this.files].sort(([a], [b]) => byteOrder(a, b))) {
      for (const object of rec.objects) {
        const key = objectKey(object);
        const first = next.get(key);
        if (first) {
          duplicates.push(`${file}: ${object.kind} ${object.metadata?.namespace}/${object.metadata?.name} is also in ${first.file}, which serves it`);
          continue;
        }
        next.set(key, { object, file, json: JSON.stringify(object) });
      }
    }
    this.duplicateProblems = duplicates;
    const before = this.index;
    this.index = next;
    const used = new Set([...this.pods.values()].flat());
    for (const key of new Set([...before.keys(), ...next.keys()])) {
      if (before.get(key)?.json === next.get(key)?.json || !used.has(key)) continue;
      const [kind, namespace, name] = key.split("/") as ["ConfigMap" | "Secret", string, string];
      for (const l of [...this.listeners]) l({ kind, namespace, name });
    }
  }

  // ---- watch and timers ------------------------------------------------------------------------

  private ensureWatch(): void {
    if (this.watcher || this.closed) return;
    try {
      const w = (this.o.watch ?? fsWatch)(this.dir, () => this.onWatchEvent());
      w.on("error", (e) => {
        this.o.log.warn("--local-objects: watch failed; rescanning periodically until it is back", {
          path: this.dir,
          every: `${(this.o.checkFrequencyMs ?? 20_000) / 1000}s`,
          err: e,
        });
        this.closeWatch();
      });
      this.watcher = w;
    } catch (e) {
      this.logOnce(`watch:${errorMessage(e)}`, "--local-objects: cannot watch; rescanning periodically", {
        path: this.dir,
        every: `${(this.o.checkFrequencyMs ?? 20_000) / 1000}s`,
        err: e,
      });
    }
  }

  private closeWatch(): void {
    this.watcher?.close();
    this.watcher = undefined;
  }

  private onWatchEvent(): void {
    if (this.closed || this.timers.debounce) return;
    this.timers.debounce = this.o.clock.setTimer(this.o.debounceMs ?? 2, () => {
      this.timers.debounce = undefined;
      void this.scan();
    });
  }

  private armPeriodic(): void {
    this.timers.periodic = this.o.clock.setTimer(this.o.checkFrequencyMs ?? 20_000, () => {
      if (this.closed) return;
      void this.scan();
      this.armPeriodic();
    });
  }

  private armSettle(ms: number): void {
    this.timers.settle?.cancel();
    this.timers.settle = this.o.clock.setTimer(ms, () => {
      this.timers.settle = undefined;
      void this.scan();
    });
  }

  /** `problem` is the sentence problems() shows; the log has the directory and `why` as fields. */
  private setDirProblem(problem: string, why: string): void {
    if (this.dirProblem !== problem)
      this.o.log.warn("--local-objects: the directory cannot be read; the objects last read from it are kept", { path: this.dir, reason: why });
    this.dirProblem = problem;
  }

  private logOnce(key: string, message: string, fields: LogFields): void {
    if (this.logged.has(key)) return;
    this.logged.add(key);
    this.o.log.warn(message, fields);
  }
}

function toResult(r: ReturnType<typeof loadObjects>): FileRecord["result"] {
  return r.ok ? { ok: true, objects: r.objects.map((o) => o.object) } : r;
}
