// PodRecords: a value per pod UID, kept in a JSON object file under the agent's root so that a
// restarted agent knows it — as the kubelet keeps its checkpoints (allocation state, …). Its owner is
// the one writer: every change rewrites the whole file atomically (writeFileAtomic, 0600), and only
// when something changed. Reading is defensive: the file is the agent's own, but a crash, a full disk
// or a hand edit may have left anything there, so a file that cannot be read is said and started
// without (the owner then behaves as on a first start), and an entry its decoder refuses is dropped.
import { readFileSync } from "node:fs";
import { writeFileAtomic } from "./atomic-file";
import type { Logger } from "./log";

export interface PodRecordsOptions<T> {
  /** What the file holds, for the log lines ("record of evicted pods"). */
  what: string;
  /** The value of one entry as read from the file, or undefined to drop it. */
  decode: (raw: unknown) => T | undefined;
  log?: Logger;
}

export class PodRecords<T> {
  private readonly records = new Map<string, T>();

  /** With no file the records live in memory only (tests). */
  constructor(
    private readonly file: string | undefined,
    private readonly o: PodRecordsOptions<T>,
  ) {
    if (!file) return;
    let data: unknown;
    try {
      data = JSON.parse(readFileSync(file, "utf8"));
    } catch (e) {
      // A missing file is a first start.
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") o.log?.warn(`${o.what} unreadable, starting without it`, { path: file, err: e });
      return;
    }
    if (!data || typeof data !== "object" || Array.isArray(data)) {
      o.log?.warn(`${o.what} is not a JSON object, starting without it`, { path: file });
      return;
    }
    for (const [uid, raw] of Object.entries(data)) {
      const value = o.decode(raw);
      if (value !== undefined) this.records.set(uid, value);
    }
  }

  get(uid: string): T | undefined {
    return this.records.get(uid);
  }

  set(uid: string, value: T): void {
    this.records.set(uid, value);
    this.save();
  }

  /** Forgets the pod; says whether it had a record. */
  delete(uid: string): boolean {
    if (!this.records.delete(uid)) return false;
    this.save();
    return true;
  }

  /** Forgets every pod not in `known`; says whether any went. */
  prune(known: ReadonlySet<string>): boolean {
    let changed = false;
    for (const uid of [...this.records.keys()]) if (!known.has(uid)) changed = this.records.delete(uid) || changed;
    if (changed) this.save();
    return changed;
  }

  uids(): string[] {
    return [...this.records.keys()];
  }

  private save(): void {
    if (!this.file) return;
    try {
      writeFileAtomic(this.file, JSON.stringify(Object.fromEntries(this.records)));
    } catch (e) {
      this.o.log?.warn(`cannot keep the ${this.o.what}`, { path: this.file, err: e });
    }
  }
}
