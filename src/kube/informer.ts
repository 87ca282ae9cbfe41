// KubeInformer: client-node's ListWatch (list, then watch from the list's resourceVersion, relist after
// 410 Gone, DELETE callbacks for what a relist no longer has), kept running. ListWatch stops for good on
// any other error (server down, 401/403, connection reset); client-go's reflector instead retries with
// backoff and keeps its store. So does this: the cache is never cleared because the server was away,
// and the next successful list replaces it, reporting exactly what changed meanwhile.
import { ListWatch, type KubernetesListObject, type KubernetesObject } from "@kubernetes/client-node";
import type { Clock, Logger, Timer } from "../util";
import type { KubeClient } from "./client";
import { apiErrorMessage } from "./errors";

export type InformerEvent = "add" | "update" | "delete";

/**
 * What an informer caches: an API object as JSON (a kubernetes-types object such as Pod). ListWatch
 * only reads the name, namespace and resourceVersion of it.
 */
export interface ApiObject {
  metadata?: { name?: string; namespace?: string; resourceVersion?: string };
}

/** The list the informer starts from (and relists with), in the shape ListWatch reads. */
export interface ApiList<T> {
  items: T[];
  metadata?: { resourceVersion?: string };
}

export interface KubeInformerOptions<T extends ApiObject> {
  client: KubeClient;
  /** The collection's path, e.g. /api/v1/pods. */
  path: string;
  /**
   * Lists the collection with the same selectors the watch uses. Leave it out: the default lists `path`
   * as raw JSON, so listed and watched objects have the same shape (the generated clients would turn
   * timestamps into Date objects, which watch events do not).
   */
  list?: () => Promise<ApiList<T>>;
  fieldSelector?: string;
  labelSelector?: string;
  clock: Clock;
  log: Logger;
  /** What the log lines call this informer ("pods on node n1"). */
  what: string;
  /** Retry backoff after a failed list or watch: 1 s doubling to 30 s (client-go: 800 ms to 30 s). */
  minBackoffMs?: number;
  maxBackoffMs?: number;
}

export class KubeInformer<T extends ApiObject> {
  // ListWatch is typed with client-node's models (Date timestamps); what it holds here is JSON.
  private readonly lw: ListWatch<KubernetesObject>;
  private readonly listeners: Array<(event: InformerEvent, obj: T) => void> = [];
  private readonly syncWaiters: Array<() => void> = [];
  private readonly errorListeners: Array<(err: unknown) => void> = [];
  private backoffMs = 0;
  private retryTimer?: Timer;
  private stopped = true;
  /** True once a list has succeeded: the cache is the server's set from then on. */
  hasSynced = false;
  /** The last error, cleared by the next successful list or watch event. */
  lastError?: string;
  /** Successful lists so far (the first one, then every relist after an error or a 410). */
  lists = 0;

  constructor(private readonly o: KubeInformerOptions<T>) {
    const listOnce = o.list ?? (() => o.client.getJson<ApiList<T>>(o.path, { fieldSelector: o.fieldSelector, labelSelector: o.labelSelector }));
    const list = async () => {
      const result = await listOnce();
      this.lists++;
      this.lastError = undefined;
      this.backoffMs = 0;
      // ListWatch applies the list right after this promise resolves; report sync after that.
      setImmediate(() => this.markSynced());
      return result as unknown as KubernetesListObject<KubernetesObject>;
    };
    this.lw = new ListWatch<KubernetesObject>(o.path, o.client.watch, list, false, o.labelSelector, o.fieldSelector);
    this.lw.on("add", (obj) => this.emit("add", obj as T));
    this.lw.on("update", (obj) => this.emit("update", obj as T));
    this.lw.on("delete", (obj) => this.emit("delete", obj as T));
    this.lw.on("error", (err) => this.failed(err));
  }

  /** Called for every change, after the cache has it. */
  onChange(cb: (event: InformerEvent, obj: T) => void): void {
    this.listeners.push(cb);
  }

  /** Called with every failed list or watch (the informer retries on its own; lastError has the text). */
  onError(cb: (err: unknown) => void): void {
    this.errorListeners.push(cb);
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    void this.lw.start().catch((err) => this.failed(err));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.retryTimer?.cancel();
    await this.lw.stop();
  }

  /** Resolves once the first list has been applied. */
  synced(): Promise<void> {
    if (this.hasSynced) return Promise.resolve();
    return new Promise((r) => this.syncWaiters.push(r));
  }

  list(): readonly T[] {
    return this.lw.list() as readonly KubernetesObject[] as readonly T[];
  }

  get(name: string, namespace?: string): T | undefined {
    return this.lw.get(name, namespace) as T | undefined;
  }

  private markSynced(): void {
    this.hasSynced = true;
    for (const w of this.syncWaiters.splice(0)) w();
  }

  private emit(event: InformerEvent, obj: T): void {
    this.backoffMs = 0;
    this.lastError = undefined;
    for (const l of this.listeners) l(event, obj);
  }

  private failed(err: unknown): void {
    if (this.stopped) return;
    this.lastError = apiErrorMessage(err);
    for (const l of this.errorListeners) l(err);
    const min = this.o.minBackoffMs ?? 1000;
    this.backoffMs = Math.min(this.backoffMs ? this.backoffMs * 2 : min, this.o.maxBackoffMs ?? 30_000);
    this.o.log.warn("watch failed; what is known is kept", {
      resource: this.o.what,
      err: this.lastError,
      retryIn: `${Math.round(this.backoffMs / 100) / 10}s`,
    });
    this.retryTimer?.cancel();
    this.retryTimer = this.o.clock.setTimer(this.backoffMs, () => {
      if (!this.stopped) void this.lw.start().catch((e) => this.failed(e));
    });
  }
}
