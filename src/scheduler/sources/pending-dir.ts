// The pending directory of `schedule --watch`: every YAML/JSON file in it holds pods to schedule (a
// Pod, a List, or several documents). A new file adds its pods to the queue, an edited one updates
// them, a removed one deletes them. Once every pod of a file is bound, the file moves to bound/ so
// that a restart does not place its pods again. A file that does not parse keeps the pods it last
// had, and its error is logged once.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, watch, type FSWatcher } from "node:fs";
import { join } from "node:path";
import type { Pod } from "kubernetes-types/core/v1";
import type { PriorityClass } from "kubernetes-types/scheduling/v1";
import type { SchedulerLog } from "../scheduler";
import { errorMessage } from "../../util";
import type { ClusterEvents } from "./agents";
import { collectObjects, parseObjects, preparePod } from "./input";

export const BOUND_SUBDIR = "bound";

interface FileState {
  text: string;
  pods: Map<string, Pod>;
  bound: Set<string>;
}

export class PendingDir {
  private readonly files = new Map<string, FileState>();
  private readonly errors = new Map<string, string>();
  private watcher: FSWatcher | undefined;
  private timer: ReturnType<typeof setInterval> | undefined;
  private debounce: ReturnType<typeof setTimeout> | undefined;

  constructor(
    readonly dir: string,
    private readonly events: Pick<ClusterEvents, "onPodAdd" | "onPodUpdate" | "onPodDelete">,
    private readonly log: SchedulerLog,
    private readonly priorityClasses: readonly PriorityClass[] = [],
    /** Pods already bound somewhere (a restart): their files go to bound/ without scheduling. */
    private readonly alreadyBound: (pod: Pod) => boolean = () => false,
  ) {}

  /** Watches the directory (inotify, and a rescan every rescanMs in case an event is missed). */
  start(rescanMs = 1000): void {
    mkdirSync(this.dir, { recursive: true });
    this.scan();
    try {
      this.watcher = watch(this.dir, () => {
        clearTimeout(this.debounce);
        // An editor's save is several events; act once it settled.
        this.debounce = setTimeout(() => this.scan(), 50);
      });
    } catch (e) {
      this.log.warn("cannot watch the pending directory; rescanning it periodically", { path: this.dir, err: e, every: `${rescanMs}ms` });
    }
    this.timer = setInterval(() => this.scan(), rescanMs);
  }

  stop(): void {
    this.watcher?.close();
    clearInterval(this.timer);
    clearTimeout(this.debounce);
  }

  private listFiles(): string[] {
    try {
      return readdirSync(this.dir, { withFileTypes: true })
        .filter((d) => d.isFile() && !d.name.startsWith(".") && /\.(ya?ml|json)$/.test(d.name))
        .map((d) => d.name)
        .sort();
    } catch {
      return [];
    }
  }

  /** Reads the directory and applies what changed. */
  scan(): void {
    const present = new Set(this.listFiles());
    for (const [name, st] of this.files) {
      if (present.has(name)) continue;
      this.files.delete(name);
      this.errors.delete(name);
      for (const [uid, pod] of st.pods) if (!st.bound.has(uid)) this.events.onPodDelete(pod);
    }
    for (const name of present) this.scanFile(name);
  }

  private scanFile(name: string): void {
    const path = join(this.dir, name);
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch {
      return;
    }
    const st = this.files.get(name);
    if (st?.text === text) return;
    let pods: Pod[];
    try {
      const c = collectObjects(parseObjects(text, path));
      if (c.pods.length === 0) throw new Error(`${path}: no Pod in the file`);
      pods = c.pods.map(({ pod, origin }) => preparePod(pod, origin, this.priorityClasses));
    } catch (e) {
      const msg = errorMessage(e);
      if (this.errors.get(name) !== msg) this.log.warn("pending file not loaded", { path, err: msg, keepingPods: st ? true : undefined });
      this.errors.set(name, msg);
      return;
    }
    this.errors.delete(name);
    const next = new Map(pods.map((p) => [p.metadata!.uid!, p]));
    for (const [other, o] of this.files) {
      if (other === name) continue;
      for (const uid of next.keys()) {
        if (o.pods.has(uid)) {
          this.log.warn("pod is already in another pending file; ignored here", {
            path,
            pod: `${next.get(uid)!.metadata!.namespace}/${next.get(uid)!.metadata!.name}`,
            other: join(this.dir, other),
          });
          next.delete(uid);
        }
      }
    }
    const state: FileState = { text, pods: next, bound: st?.bound ?? new Set() };
    this.files.set(name, state);
    for (const [uid, pod] of st?.pods ?? []) if (!next.has(uid) && !state.bound.has(uid)) this.events.onPodDelete(pod);
    for (const [uid, pod] of next) {
      if (state.bound.has(uid)) continue;
      if (this.alreadyBound(pod)) {
        state.bound.add(uid);
        continue;
      }
      const old = st?.pods.get(uid);
      if (!old) this.events.onPodAdd(pod);
      else if (JSON.stringify(old) !== JSON.stringify(pod)) this.events.onPodUpdate(old, pod);
    }
    this.moveIfAllBound(name);
  }

  /** The scheduler bound a pod: its file moves to bound/ once all its pods are bound. */
  podBound(uid: string): void {
    for (const [name, st] of this.files) {
      if (!st.pods.has(uid)) continue;
      st.bound.add(uid);
      this.moveIfAllBound(name);
      return;
    }
  }

  private moveIfAllBound(name: string): void {
    const st = this.files.get(name);
    if (!st || st.pods.size === 0 || [...st.pods.keys()].some((uid) => !st.bound.has(uid))) return;
    const target = join(this.dir, BOUND_SUBDIR);
    mkdirSync(target, { recursive: true });
    let dest = join(target, name);
    for (let i = 1; existsSync(dest); i++) dest = join(target, `${name}.${i}`);
    try {
      renameSync(join(this.dir, name), dest);
      this.files.delete(name);
      this.log.info("all pods of a pending file are bound; moved it", { file: name, to: dest });
    } catch (e) {
      this.log.warn("cannot move a bound pending file", { file: name, to: target, err: e });
    }
  }

  /** Pods read from the directory and not bound yet. */
  pendingPods(): Pod[] {
    return [...this.files.values()].flatMap((st) => [...st.pods].filter(([uid]) => !st.bound.has(uid)).map(([, p]) => p));
  }
}
