// What the polling sources share about handing their sets on: a snapshot goes to the listener only
// when it differs from the last one, and each error is logged once, when it first appears (the
// kubelet logs every failed read; a node with a broken manifest would log it every 20 s).
import { formatManifestError } from "../manifest";
import type { Logger } from "../util";
import type { SourceReport } from "./pod-config";

export class SnapshotEmitter {
  private listener: ((s: SourceReport) => void) | undefined;
  private lastFingerprint: string | undefined;
  private lastErrors = new Set<string>();

  constructor(
    private readonly log: Logger,
    /** Said once the errors are all gone again. */
    private readonly cleanMessage?: string,
  ) {}

  listen(listener: (s: SourceReport) => void): void {
    this.listener = listener;
  }

  /** Whether any snapshot was handed on yet. */
  get emitted(): boolean {
    return this.lastFingerprint !== undefined;
  }

  emit(snap: SourceReport): void {
    const fp = JSON.stringify(snap);
    if (fp === this.lastFingerprint) return;
    this.lastFingerprint = fp;
    const now = new Set(snap.errors.map(formatManifestError));
    for (const e of now) if (!this.lastErrors.has(e)) this.log.warn(e);
    if (this.cleanMessage && this.lastErrors.size > 0 && now.size === 0) this.log.info(this.cleanMessage);
    this.lastErrors = now;
    this.listener?.(snap);
  }
}
