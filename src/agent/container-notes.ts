// ContainerNotes: what the agent said about each running container that the runtime cannot keep for
// it — whether it was reported ready and started, and why the agent killed it — kept in a file under
// the root directory, so that a restarted agent reports the same until it knows better. The kubelet
// keeps none of this: a restart flipped ready pods to NotReady (k/k #100277) and let unready ones look
// Ready before their probe workers ran (#135795).
import { readFileSync } from "node:fs";
import { type Logger, writeFileAtomic } from "../util";

export interface ContainerNote {
  /** The readiness last reported in the pod status. */
  ready?: boolean;
  /** containerStatuses[].started last reported. */
  started?: boolean;
  /** Why the agent killed this instance (a failed liveness or startup probe), for its terminated state. */
  killMessage?: string;
}

export class ContainerNotes {
  private notes = new Map<string, ContainerNote>();
  private pendingSave: ReturnType<typeof setTimeout> | undefined;

  /** With no file the notes live in memory only (tests, or a root directory that cannot be written). */
  constructor(
    private readonly file: string | undefined,
    private readonly log?: Logger,
  ) {
    if (!file) return;
    try {
      const data = JSON.parse(readFileSync(file, "utf8")) as Record<string, ContainerNote>;
      if (data && typeof data === "object") this.notes = new Map(Object.entries(data));
    } catch (e) {
      // A missing file is a first start; an unreadable one costs only what it said, never a pod.
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") log?.warn("container notes unreadable, starting without them", { path: file, err: e });
    }
  }

  get(containerId: string): ContainerNote | undefined {
    return this.notes.get(containerId);
  }

  /** Merges `note` into the container's; writes the file only when something changed. */
  update(containerId: string, note: ContainerNote): void {
    const old = this.notes.get(containerId) ?? {};
    const next = { ...old, ...note };
    if (JSON.stringify(old) === JSON.stringify(next)) return;
    this.notes.set(containerId, next);
    this.save();
  }

  /** Forgets every container not in `live` (removed from the runtime). */
  prune(live: ReadonlySet<string>): void {
    let changed = false;
    for (const id of [...this.notes.keys()]) {
      if (!live.has(id)) {
        this.notes.delete(id);
        changed = true;
      }
    }
    if (changed) this.save();
  }

  /**
   * Writes the file at the end of this turn of the event loop: one write (and fsync) for every note
   * changed in it — a burst of pods whose containers all start reports them in one go — and none of
   * them in the way of the status that a sync has just made visible.
   */
  private save(): void {
    if (!this.file || this.pendingSave) return;
    this.pendingSave = setTimeout(() => this.flush(), 0);
    this.pendingSave.unref?.();
  }

  /** Writes what is pending now (the agent stopping). */
  flush(): void {
    if (!this.pendingSave || !this.file) return;
    clearTimeout(this.pendingSave);
    this.pendingSave = undefined;
    try {
      writeFileAtomic(this.file, JSON.stringify(Object.fromEntries(this.notes)));
    } catch (e) {
      this.log?.warn("cannot keep container notes", { path: this.file, err: e });
    }
  }
}
