// Storage with etcd's visible properties: one global, increasing resourceVersion stamped on every write;
// a history of changes that watches replay from any resourceVersion still kept; compaction that forgets
// it (a watch from before is answered 410 Expired). Watchers are told of every write synchronously, so
// a change is either in the replayed history or in the live stream, never both or neither.
import { clone, type AnyObject } from "./objects";
import { gone } from "./status";
import type { Matcher } from "./selectors";

export type EventType = "ADDED" | "MODIFIED" | "DELETED";

interface Change {
  rv: number;
  resource: string;
  type: EventType;
  object: AnyObject;
  /** The object before this change (MODIFIED and DELETED). */
  prev?: AnyObject;
}

export interface WatchSpec {
  resource: string;
  namespace?: string;
  match: Matcher;
  /** Deliver events after this resourceVersion; undefined: synthetic ADDED for what exists now. */
  from?: number;
  send: (type: EventType, obj: AnyObject) => void;
}

const keyOf = (ns: string | undefined, name: string) => `${ns ?? ""}/${name}`;

export class ObjectStore {
  private rv = 0;
  private readonly objects = new Map<string, Map<string, AnyObject>>();
  private history: Change[] = [];
  /** Watching from a resourceVersion older than this is 410 Gone. */
  private oldestKept = 0;
  private readonly watchers = new Set<WatchSpec>();

  get resourceVersion(): number {
    return this.rv;
  }

  get(resource: string, namespace: string | undefined, name: string): AnyObject | undefined {
    const o = this.objects.get(resource)?.get(keyOf(namespace, name));
    return o && clone(o);
  }

  list(resource: string, namespace?: string): AnyObject[] {
    const all = [...(this.objects.get(resource)?.values() ?? [])];
    return clone(namespace === undefined ? all : all.filter((o) => o.metadata?.namespace === namespace));
  }

  /** Stores (or, for DELETED, removes) the object under a new resourceVersion and tells the watchers. */
  write(resource: string, type: EventType, obj: AnyObject): AnyObject {
    const stored = clone(obj);
    stored.metadata = { ...stored.metadata, resourceVersion: String(++this.rv) };
    const table = this.objects.get(resource) ?? new Map<string, AnyObject>();
    this.objects.set(resource, table);
    const key = keyOf(stored.metadata.namespace, stored.metadata.name ?? "");
    const prev = table.get(key);
    if (type === "DELETED") table.delete(key);
    else table.set(key, stored);
    const change: Change = { rv: this.rv, resource, type, object: stored, prev };
    this.history.push(change);
    for (const w of this.watchers) deliver(w, change);
    return clone(stored);
  }

  /** Registers a watch; throws 410 Expired when `from` is older than the kept history. */
  watch(spec: WatchSpec): () => void {
    if (spec.from !== undefined && spec.from < this.oldestKept) {
      throw gone(`too old resource version: ${spec.from} (${this.oldestKept})`);
    }
    if (spec.from === undefined) {
      for (const o of this.list(spec.resource, spec.namespace)) if (spec.match(o)) spec.send("ADDED", o);
    } else {
      for (const c of this.history) if (c.rv > spec.from) deliver(spec, c);
    }
    this.watchers.add(spec);
    return () => this.watchers.delete(spec);
  }

  /** Forgets the history, as etcd compaction does: only the current resourceVersion can be watched from. */
  compact(): void {
    this.history = [];
    this.oldestKept = this.rv;
  }
}

/**
 * What one watcher sees of a change: the apiserver's watch filter turns an object that starts matching
 * the selector into ADDED and one that stops matching into DELETED (of its previous state, carrying the
 * new resourceVersion), as the watch cache's cacheWatcher.convertToWatchEvent does.
 */
function deliver(w: WatchSpec, c: Change): void {
  if (c.resource !== w.resource) return;
  if (w.namespace !== undefined && c.object.metadata?.namespace !== w.namespace) return;
  const now = c.type !== "DELETED" && w.match(c.object);
  const before = c.prev !== undefined && w.match(c.prev);
  if (c.type === "DELETED") {
    if (before || w.match(c.object)) w.send("DELETED", clone(c.object));
  } else if (now) w.send(before ? "MODIFIED" : "ADDED", clone(c.object));
  else if (before) {
    const last = clone(c.prev!);
    last.metadata = { ...last.metadata, resourceVersion: String(c.rv) };
    w.send("DELETED", last);
  }
}
