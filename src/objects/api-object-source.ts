// ApiObjectSource: configMaps, secrets and service-account tokens from the API server, as the kubelet
// gets them under its default configMapAndSecretChangeDetectionStrategy, Watch (k/k@1.24.1
// pkg/kubelet/util/manager/watch_based_manager.go, pkg/kubelet/{configmap,secret}/*_manager.go), and
// its token manager (token-manager.ts).
//
// The state machine, per referenced object (kind, namespace, name):
//   - registerPod adds a reference for every configMap and secret name the pod names (RegisterPod:
//     the new set is referenced before the pod's previous set is released, so an update that keeps a
//     name never drops its watch); the first reference starts a reflector: a list and a watch of the
//     namespace narrowed to the one object by `fieldSelector=metadata.name=<name>`, which is what the
//     Node authorizer allows a node (never a namespace-wide list);
//   - unregisterPod releases them; the last release stops the watch and forgets the object
//     (DeleteReference). The pod's cached tokens go too (DeleteServiceAccountToken);
//   - get answers from the object's cache once its first list has been applied; before that it waits
//     for the sync, at most `syncTimeoutMs` (the kubelet's 1 s: `failed to sync configmap cache: timed
//     out waiting for the condition`), or until the list fails (403, server away), whose message it
//     passes on. Synced and absent is NotFound, with the kubelet's message (`configmap "x" not found`).
//     Once synced the cache is kept through server outages (the informer retries and relists);
//   - an object with `immutable: true` stops being watched once seen (the kubelet's isImmutable), its
//     value kept while referenced;
//   - a change after the sync (added, modified, deleted) is told to onChange listeners: the volume
//     manager rewrites the volumes that use it, the env resolver retries waiting containers.
// Past the kubelet: a get for an object no registered pod names is one direct GET (the kubelet's Get
// strategy) instead of the watch-based manager's `object "ns"/"name" not registered` error.
import type { TokenRequest as ApiTokenRequest } from "kubernetes-types/authentication/v1";
import type { ConfigMap, Pod, Secret } from "kubernetes-types/core/v1";
import { podConfigMapNames, podSecretNames } from "../api";
import { apiStatusMessage, isNotFound, type KubeClient, KubeInformer } from "../kube";
import type { Clock, Logger, Timer } from "../util";
import { TokenManager } from "./token-manager";
import { ObjectNotFoundError, ObjectSourceError, type ObjectRef, type ObjectSource, type ServiceAccountToken, type TokenRequest } from "./types";

/** How long a get waits for a new watch's first list (the kubelet: 1 s, polled every 10 ms). */
export const OBJECT_SYNC_TIMEOUT_MS = 1_000;

export interface ApiObjectSourceOptions {
  client: KubeClient;
  clock: Clock;
  log: Logger;
  syncTimeoutMs?: number;
  /** Retry backoff of a failed list or watch (KubeInformer's: 1 s doubling to 30 s). */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** The token refresh jitter (ms), for tests; default random whole seconds below 10 s. */
  tokenJitter?: () => number;
}

type CachedKind = "ConfigMap" | "Secret";
type CachedObject = ConfigMap | Secret;

const PLURAL: Record<CachedKind, string> = { ConfigMap: "configmaps", Secret: "secrets" };

/** One referenced object: its watch, its latest value, the pods that name it. */
interface Item {
  ref: ObjectRef & { kind: CachedKind };
  refCount: number;
  informer: KubeInformer<CachedObject>;
  object?: CachedObject;
  /** Immutable and seen: the watch is stopped and `object` is final. */
  frozen: boolean;
  /** The last failed list or watch, until the next success. */
  error?: unknown;
  /** Gets waiting for the first list (or an error). */
  waiters: Set<() => void>;
  /** A get failed before the first list: its sync is then a change (the object "appears"). */
  failedBeforeSync: boolean;
}

interface PodRefs {
  namespace: string;
  keys: string[];
}

const itemKey = (kind: CachedKind, namespace: string, name: string) => `${kind}/${namespace}/${name}`;

export class ApiObjectSource implements ObjectSource {
  readonly description: string;
  private readonly items = new Map<string, Item>();
  private readonly pods = new Map<string, PodRefs>();
  private readonly listeners = new Set<(ref: ObjectRef) => void>();
  private readonly tokens: TokenManager;
  private closed = false;

  constructor(private readonly o: ApiObjectSourceOptions) {
    this.description = `the API server ${o.client.server}`;
    this.tokens = new TokenManager({
      clock: o.clock,
      log: o.log,
      jitter: o.tokenJitter,
      request: (namespace, name, req) => this.requestToken(namespace, name, req),
      onRefreshDue: ({ namespace, serviceAccount }) => this.emit({ kind: "ServiceAccount", namespace, name: serviceAccount }),
    });
  }

  registerPod(pod: Pod): void {
    const uid = pod.metadata?.uid ?? "";
    const namespace = pod.metadata?.namespace ?? "default";
    const keys = [
      ...podConfigMapNames(pod).map((n) => this.reference("ConfigMap", namespace, n)),
      ...podSecretNames(pod).map((n) => this.reference("Secret", namespace, n)),
    ];
    const previous = this.pods.get(uid);
    this.pods.set(uid, { namespace, keys });
    for (const key of previous?.keys ?? []) this.release(key);
  }

  unregisterPod(pod: Pod): void {
    const uid = pod.metadata?.uid ?? "";
    const refs = this.pods.get(uid);
    this.pods.delete(uid);
    for (const key of refs?.keys ?? []) this.release(key);
    this.tokens.deleteServiceAccountToken(uid);
  }

  getConfigMap(namespace: string, name: string): Promise<ConfigMap> {
    return this.get("ConfigMap", namespace, name) as Promise<ConfigMap>;
  }

  getSecret(namespace: string, name: string): Promise<Secret> {
    return this.get("Secret", namespace, name) as Promise<Secret>;
  }

  async getServiceAccountToken(pod: Pod, req: TokenRequest): Promise<ServiceAccountToken> {
    const namespace = pod.metadata?.namespace ?? "default";
    // The projected volume plugin's request (projected.go collectData): audiences only when set,
    // bound to the pod by name and UID.
    const body: ApiTokenRequest = {
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenRequest",
      spec: {
        audiences: req.audience ? [req.audience] : [],
        expirationSeconds: req.expirationSeconds,
        boundObjectRef: { apiVersion: "v1", kind: "Pod", name: pod.metadata?.name ?? "", uid: pod.metadata?.uid ?? "" },
      },
    };
    try {
      const tr = await this.tokens.getServiceAccountToken(namespace, req.serviceAccountName, body);
      return { token: tr.status?.token ?? "", expirationTimestamp: tr.status?.expirationTimestamp ?? "" };
    } catch (e) {
      throw new ObjectSourceError({ kind: "ServiceAccount", namespace, name: req.serviceAccountName }, (e as Error).message);
    }
  }

  onChange(listener: (ref: ObjectRef) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    this.closed = true;
    this.tokens.close();
    for (const item of this.items.values()) void item.informer.stop();
    this.items.clear();
    this.pods.clear();
  }

  /** The watches open now, as "Kind/namespace/name" (for tests and diagnostics). */
  watchedObjects(): string[] {
    return [...this.items.values()].filter((i) => !i.frozen).map((i) => itemKey(i.ref.kind, i.ref.namespace, i.ref.name));
  }

  private reference(kind: CachedKind, namespace: string, name: string): string {
    const key = itemKey(kind, namespace, name);
    const item = this.items.get(key);
    if (item) item.refCount++;
    else if (!this.closed) this.items.set(key, this.startItem({ kind, namespace, name }));
    return key;
  }

  private release(key: string): void {
    const item = this.items.get(key);
    if (!item || --item.refCount > 0) return;
    this.items.delete(key);
    void item.informer.stop();
    for (const w of item.waiters) w();
  }

  private startItem(ref: ObjectRef & { kind: CachedKind }): Item {
    const informer = new KubeInformer<CachedObject>({
      client: this.o.client,
      path: `/api/v1/namespaces/${encodeURIComponent(ref.namespace)}/${PLURAL[ref.kind]}`,
      fieldSelector: `metadata.name=${ref.name}`,
      clock: this.o.clock,
      log: this.o.log,
      what: `${ref.kind.toLowerCase()} ${ref.namespace}/${ref.name}`,
      minBackoffMs: this.o.minBackoffMs,
      maxBackoffMs: this.o.maxBackoffMs,
    });
    const item: Item = { ref, refCount: 1, informer, frozen: false, waiters: new Set(), failedBeforeSync: false };
    const wake = () => {
      for (const w of [...item.waiters]) w();
    };
    informer.onChange((event, obj) => {
      if (item.frozen) return;
      item.error = undefined;
      item.object = event === "delete" ? undefined : obj;
      // The first list's objects are what a get waits for, not a change.
      if (informer.hasSynced) this.emit(ref);
      this.freezeIfImmutable(item);
    });
    informer.onError((err) => {
      item.error = err;
      wake();
    });
    void informer.synced().then(() => {
      item.error = undefined;
      this.freezeIfImmutable(item);
      wake();
      if (item.failedBeforeSync && this.items.get(itemKey(ref.kind, ref.namespace, ref.name)) === item) this.emit(ref);
    });
    informer.start();
    return item;
  }

  private freezeIfImmutable(item: Item): void {
    if (item.frozen || !item.informer.hasSynced || item.object?.immutable !== true) return;
    item.frozen = true;
    void item.informer.stop();
  }

  private async get(kind: CachedKind, namespace: string, name: string): Promise<CachedObject> {
    const ref = { kind, namespace, name };
    const item = this.items.get(itemKey(kind, namespace, name));
    if (!item) return this.getDirect(ref);
    if (!item.informer.hasSynced && !item.frozen) await this.waitForSync(item);
    if (this.items.get(itemKey(kind, namespace, name)) !== item)
      throw new ObjectSourceError(ref, `${kind.toLowerCase()} ${namespace}/${name} is no longer referenced by any pod`);
    if (!item.informer.hasSynced && !item.frozen) {
      const why = item.error !== undefined ? apiStatusMessage(item.error) : "timed out waiting for the condition";
      item.failedBeforeSync = true;
      throw new ObjectSourceError(ref, `failed to sync ${kind.toLowerCase()} cache: ${why}`);
    }
    if (!item.object) throw new ObjectNotFoundError(ref);
    return item.object;
  }

  /** Until the first list is applied, a list or watch fails, the item goes, or the bound passes. */
  private waitForSync(item: Item): Promise<void> {
    return new Promise((resolve) => {
      let timer: Timer | undefined;
      const done = () => {
        timer?.cancel();
        item.waiters.delete(done);
        resolve();
      };
      item.waiters.add(done);
      timer = this.o.clock.setTimer(this.o.syncTimeoutMs ?? OBJECT_SYNC_TIMEOUT_MS, done);
    });
  }

  private async getDirect(ref: ObjectRef & { kind: CachedKind }): Promise<CachedObject> {
    try {
      return await this.o.client.getJson<CachedObject>(
        `/api/v1/namespaces/${encodeURIComponent(ref.namespace)}/${PLURAL[ref.kind]}/${encodeURIComponent(ref.name)}`,
      );
    } catch (e) {
      if (isNotFound(e)) throw new ObjectNotFoundError(ref);
      throw new ObjectSourceError(ref, apiStatusMessage(e));
    }
  }

  /** CreateToken, with the API's Status message as the error (the token manager wraps it as the kubelet does). */
  private async requestToken(namespace: string, name: string, req: ApiTokenRequest): Promise<ApiTokenRequest> {
    try {
      const answer = await this.o.client.core.createNamespacedServiceAccountToken({ name, namespace, body: req as never });
      // The generated client turns timestamps into Dates; the seam speaks RFC 3339, as the wire.
      const exp = answer.status?.expirationTimestamp as unknown as Date | string | undefined;
      const expirationTimestamp = exp instanceof Date ? exp.toISOString().replace(/\.\d{3}Z$/, "Z") : (exp ?? "");
      return {
        apiVersion: "authentication.k8s.io/v1",
        kind: "TokenRequest",
        metadata: { name, namespace },
        spec: { audiences: answer.spec?.audiences ?? [], expirationSeconds: answer.spec?.expirationSeconds, boundObjectRef: answer.spec?.boundObjectRef },
        status: { token: answer.status?.token ?? "", expirationTimestamp },
      };
    } catch (e) {
      throw new Error(apiStatusMessage(e));
    }
  }

  private emit(ref: ObjectRef): void {
    for (const l of [...this.listeners]) {
      try {
        l(ref);
      } catch (e) {
        this.o.log.error("object change listener failed", { kind: ref.kind, object: `${ref.namespace}/${ref.name}`, err: e });
      }
    }
  }
}
