// RuntimeClasses: spec.runtimeClassName → the CRI runtime handler of the pod's sandbox
// (RunPodSandboxRequest.runtimeHandler), the kubelet's pkg/kubelet/runtimeclass/runtimeclass_manager.go
// (k/k@1.24.1) as kuberuntime_sandbox.go createPodSandbox uses it: no name is the runtime's default
// handler (""); a name is looked up as a node.k8s.io/v1 RuntimeClass and its `handler` is used; a
// RuntimeClass that does not exist fails the sandbox's creation with the lookup's error
// (`runtimeclass.node.k8s.io "x" not found`), and the pod's containers wait (ContainerCreating) while
// the pod worker retries. A handler the runtime does not know fails in RunPodSandbox with the runtime's
// own error, which the pod shows the same way.
//
// With an API server the RuntimeClass is read with a GET and the answer kept for CACHE_TTL_MS (the
// kubelet watches them with an informer; RuntimeClasses are rarely written, and a sync retry after a
// "not found" asks again, since a miss is never kept). Without one (standalone) there is nothing to
// read: the kubelet without a kube client would silently run the pod on the default handler; here the
// pod waits and says why instead.
import { type Clock, errorMessage, ExpiringCache } from "../util";

/** How long a RuntimeClass read from the API server is used before it is read again. */
export const RUNTIME_CLASS_CACHE_TTL_MS = 60_000;

/** node.k8s.io/v1 RuntimeClass, the fields the node reads. */
export interface RuntimeClass {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string };
  handler: string;
}

/** The seam PodSyncer uses: ApiRuntimeClasses in cluster mode, NoRuntimeClasses standalone, a fake in tests. */
export interface RuntimeClassLookup {
  /** The runtime handler for the name (undefined or "": the runtime's default, ""); throws when it cannot say. */
  lookupRuntimeHandler(runtimeClassName: string | undefined): Promise<string>;
}

/** The GET the lookup needs (KubeClient.getJson), with the HTTP status on errors (src/kube/errors.ts). */
export interface RuntimeClassClient {
  getJson<T>(path: string): Promise<T>;
}

/**
 * A 404 from the client: the HTTP status the Kubernetes client's ApiException carries in `code` (and
 * other clients in `statusCode`), read here rather than through src/kube/errors, which would load the
 * Kubernetes client into every agent, with or without a cluster.
 */
function isNotFound(err: unknown): boolean {
  const e = err as { code?: unknown; statusCode?: unknown } | null;
  return !!e && typeof e === "object" && (e.code === 404 || e.statusCode === 404);
}

export class RuntimeClassNotFoundError extends Error {
  constructor(name: string) {
    super(`runtimeclass.node.k8s.io ${JSON.stringify(name)} not found`);
  }
}

export class ApiRuntimeClasses implements RuntimeClassLookup {
  private readonly cache: ExpiringCache<string>;

  constructor(
    private readonly client: RuntimeClassClient,
    clock: Pick<Clock, "now">,
    private readonly ttlMs = RUNTIME_CLASS_CACHE_TTL_MS,
  ) {
    this.cache = new ExpiringCache(clock);
  }

  async lookupRuntimeHandler(name: string | undefined): Promise<string> {
    if (!name) return "";
    const known = this.cache.get(name);
    if (known !== undefined) return known;
    let rc: RuntimeClass;
    try {
      rc = await this.client.getJson<RuntimeClass>(`/apis/node.k8s.io/v1/runtimeclasses/${encodeURIComponent(name)}`);
    } catch (err) {
      if (isNotFound(err)) throw new RuntimeClassNotFoundError(name);
      throw new Error(`failed to lookup RuntimeClass ${name}: ${errorMessage(err)}`);
    }
    this.cache.set(name, rc.handler ?? "", this.ttlMs);
    return rc.handler ?? "";
  }
}

/** Standalone: no RuntimeClass can be read, so a pod that names one waits with this reason. */
export class NoRuntimeClasses implements RuntimeClassLookup {
  async lookupRuntimeHandler(name: string | undefined): Promise<string> {
    if (!name) return "";
    throw new Error(`failed to lookup RuntimeClass ${name}: RuntimeClasses are read from the API server, and the agent runs without --kubeconfig`);
  }
}
