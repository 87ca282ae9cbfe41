// What the apiserver's generic registry and the resources' strategies do to an object on create,
// update, patch, delete and bind (k8s.io/apiserver/pkg/registry/generic/registry/store.go and
// pkg/registry/core/{pod,node}/strategy.go): metadata stamping, generateName, optimistic concurrency,
// the status subresource split, graceful pod deletion, the binding subresource. It is also the `store`
// tests use for set-up: the same semantics, without authentication, authorization or admission.
import type { Binding, Namespace, Node, Pod, PodCondition } from "kubernetes-types/core/v1";
import type { DeleteOptions } from "kubernetes-types/meta/v1";
import { applyPodDefaults } from "../../../src/api/defaults";
import { clone, isPlainObject, type AnyObject, fromInput, type ObjectInput } from "./objects";
import { jsonPatch, mergePatch, PatchError, strategicMergePatch } from "./patch";
import { apiVersionOf, qualifiedName, resourceByKey, type ResourceDef } from "./resources";
import { preserveObservedGeneration } from "./pod-generation";
import { asServedPod } from "./pod-wire";
import { alreadyExists, badRequest, conflict, invalid, notFound, STALE, success, unsupportedMediaType, type Target } from "./status";
import { ObjectStore, type EventType, type WatchSpec } from "./store";
import { MASTER_SERVICE, prepareServiceCreate, prepareServiceUpdate } from "./services";
import { prepareEphemeralContainersUpdate } from "./ephemeral-containers";
import { prepareResize, validateResize } from "./resize";
import { admitResize } from "./resize-admission";

export const PATCH_TYPES = ["application/merge-patch+json", "application/strategic-merge-patch+json", "application/json-patch+json"] as const;
export type PatchType = (typeof PATCH_TYPES)[number];

/** RFC 3339 with seconds, as metav1.Time marshals. */
export const timestamp = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");

export function target(def: ResourceDef, name?: string): Target {
  return { qualified: qualifiedName(def), resource: def.plural, group: def.group, name };
}

/** apiserver's names.SimpleNameGenerator: 5 characters from an alphabet without vowels or lookalikes. */
function generateSuffix(): string {
  const alphabet = "bcdfghjklmnpqrstvwxz2456789";
  return Array.from({ length: 5 }, () => alphabet[Math.floor(Math.random() * alphabet.length)]).join("");
}

const POD_UPDATE_FORBIDDEN =
  "pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)";

export class Registry {
  readonly objects = new ObjectStore();

  constructor(private readonly now: () => number = Date.now) {
    for (const name of ["default", "kube-system", "kube-node-lease", "kube-public"]) {
      const ns: Namespace = { metadata: { name }, spec: { finalizers: ["kubernetes"] }, status: { phase: "Active" } };
      this.create("namespaces", ns);
    }
    // The master service, as the API server's bootstrap controller keeps it.
    this.create("services", structuredClone(MASTER_SERVICE) as ObjectInput);
  }

  get resourceVersion(): number {
    return this.objects.resourceVersion;
  }

  get(resource: string, namespace: string | undefined, name: string): AnyObject | undefined {
    return this.objects.get(resource, resourceByKey(resource).namespaced ? namespace : undefined, name);
  }

  list(resource: string, namespace?: string): AnyObject[] {
    return this.objects.list(resource, namespace);
  }

  watch(spec: WatchSpec): () => void {
    return this.objects.watch(spec);
  }

  compact(): void {
    this.objects.compact();
  }

  private mustGet(def: ResourceDef, namespace: string | undefined, name: string): AnyObject {
    const o = this.objects.get(def.key, def.namespaced ? namespace : undefined, name);
    if (!o) throw notFound(target(def, name));
    return o;
  }

  private write(def: ResourceDef, type: EventType, obj: AnyObject): AnyObject {
    const served = def.kind === "Pod" ? (asServedPod(obj as Pod) as AnyObject) : obj;
    return this.objects.write(def.key, type, { ...served, apiVersion: apiVersionOf(def), kind: def.kind });
  }

  /** POST: a Binding posted to "bindings" binds its pod, as POST pods/<name>/binding does. */
  create<T extends ObjectInput>(resource: string, input: T, namespace?: string): AnyObject {
    const def = resourceByKey(resource);
    if (!isPlainObject(input)) throw badRequest("the body of the request is not a JSON object");
    const body = fromInput(input);
    namespace ??= body.metadata?.namespace;
    if (def.key === "bindings") {
      this.bind(namespace ?? "default", body.metadata?.name ?? "", body as unknown as Binding);
      return success() as AnyObject;
    }
    const obj = clone(body);
    const meta = { ...obj.metadata };
    if (def.namespaced) {
      if (meta.namespace && namespace && meta.namespace !== namespace)
        throw badRequest("the namespace of the provided object does not match the namespace sent on the request");
      meta.namespace = namespace ?? "default";
      if (!this.objects.get("namespaces", undefined, meta.namespace))
        throw notFound({ qualified: "namespaces", resource: "namespaces", group: "", name: meta.namespace });
    } else delete meta.namespace;
    if (!meta.name && meta.generateName) meta.name = meta.generateName + generateSuffix();
    if (!meta.name)
      throw invalid(target(def), def.kind, [
        { field: "metadata.name", type: "FieldValueRequired", message: "Required value: name or generateName is required" },
      ]);
    if (this.objects.get(def.key, meta.namespace, meta.name)) throw alreadyExists(target(def, meta.name));
    for (const k of ["resourceVersion", "deletionTimestamp", "deletionGracePeriodSeconds", "selfLink"] as const) delete meta[k];
    meta.uid = crypto.randomUUID();
    meta.creationTimestamp = timestamp(this.now());
    obj.metadata = meta;
    if (def.kind === "Pod") return this.write(def, "ADDED", this.preparePod(obj as Pod));
    if (def.kind === "Secret") return this.write(def, "ADDED", prepareSecret(obj));
    if (def.kind === "Service") return this.write(def, "ADDED", prepareServiceCreate(obj, this.serviceIPs()));
    return this.write(def, "ADDED", obj);
  }

  /** The cluster IPs of the services that exist (a deleted service's IP is free again). */
  private serviceIPs(): Set<string> {
    return new Set(
      this.objects
        .list("services")
        .map((s) => (s as { spec?: { clusterIP?: string } }).spec?.clusterIP ?? "")
        .filter((ip) => ip && ip !== "None"),
    );
  }

  /** Pod strategy PrepareForCreate + Validate: defaults, a fresh Pending status, containers required. */
  private preparePod(pod: Pod): AnyObject {
    if (!pod.spec?.containers?.length) {
      throw invalid(target(resourceByKey("pods"), pod.metadata?.name), "Pod", [
        { field: "spec.containers", type: "FieldValueRequired", message: "Required value" },
      ]);
    }
    const defaulted = applyPodDefaults(pod);
    return { ...defaulted, metadata: { ...defaulted.metadata, generation: 1 }, status: { phase: "Pending" } } as AnyObject;
  }

  /**
   * PUT. On a resource with a status subresource the main endpoint keeps the stored status and the
   * status endpoint keeps everything but the status (and, for pods, spec and ownership). A stale
   * metadata.resourceVersion is a 409; an update that changes nothing writes nothing (no new resourceVersion).
   */
  update<T extends ObjectInput>(resource: string, input: T, subresource?: string, urlName?: string, urlNamespace?: string): AnyObject {
    const def = resourceByKey(resource);
    if (!isPlainObject(input) || !isPlainObject(input.metadata ?? {})) throw badRequest("the body of the request is not a JSON object");
    const body = fromInput(input);
    const name = urlName ?? body.metadata?.name ?? "";
    const namespace = def.namespaced ? (urlNamespace ?? body.metadata?.namespace) : undefined;
    if (body.metadata?.name !== undefined && body.metadata.name !== name)
      throw badRequest(`the name of the object (${body.metadata.name}) does not match the name on the URL (${name})`);
    const old = this.mustGet(def, namespace, name);
    const t = target(def, name);
    const meta = body.metadata ?? {};
    if (meta.resourceVersion && meta.resourceVersion !== old.metadata?.resourceVersion) throw conflict(t, STALE);
    if (meta.uid && meta.uid !== old.metadata?.uid) {
      throw invalid(t, def.kind, [{ field: "metadata.uid", type: "FieldValueInvalid", message: `Invalid value: "${meta.uid}": field is immutable` }]);
    }
    let next: AnyObject;
    // The approval subresource of a CSR writes only the conditions (approval strategy PrepareForUpdate).
    if (subresource === "approval")
      next = { ...old, status: { ...(old.status as object), conditions: clone((body.status as { conditions?: unknown } | undefined)?.conditions) } };
    else if (subresource === "status") {
      next = { ...old, status: clone(body.status) };
      if (def.kind === "Pod") preserveObservedGeneration(old as Pod, next as Pod);
    } else if (subresource === "ephemeralcontainers") next = prepareEphemeralContainersUpdate(old, body, t);
    else if (subresource === "resize") {
      next = prepareResize(old, body);
      validateResize(old, next, t);
      // The validating admission after the strategy, when the resize moves the generation (resize-admission.ts).
      const nodeName = (next.spec as { nodeName?: string } | undefined)?.nodeName;
      if (nodeName && canonical(next.spec) !== canonical(old.spec))
        admitResize(old as Pod, next as Pod, t, this.objects.get("nodes", undefined, nodeName) as Node | undefined);
    } else {
      next = clone(body);
      if (def.subresources.includes("status")) next.status = old.status;
      if (def.kind === "Pod") this.checkPodSpecUpdate(old, next, t);
      if (def.kind === "Secret") next = prepareSecret(next);
      if (def.kind === "Service") next = prepareServiceUpdate(old, next);
      if ((def.kind === "Secret" || def.kind === "ConfigMap") && old.immutable === true) checkImmutableUpdate(old, next, t, def.kind);
    }
    // Fields only the server sets.
    const { uid, creationTimestamp, deletionTimestamp, deletionGracePeriodSeconds, generation } = old.metadata ?? {};
    next.metadata = {
      // The status, approval, ephemeralcontainers and resize strategies keep the stored metadata (ResetObjectMetaForStatus).
      ...(subresource === "status" || subresource === "approval" || subresource === "ephemeralcontainers" || subresource === "resize"
        ? old.metadata
        : next.metadata),
      namespace,
      name,
      uid,
      creationTimestamp,
      deletionTimestamp,
      deletionGracePeriodSeconds,
      generation,
      resourceVersion: old.metadata?.resourceVersion,
    };
    if (subresource === "status")
      next.metadata = { ...next.metadata, labels: meta.labels ?? old.metadata?.labels, annotations: meta.annotations ?? old.metadata?.annotations };
    if (generation !== undefined && canonical(next.spec) !== canonical(old.spec)) next.metadata = { ...next.metadata, generation: generation + 1 };
    stripUndefined(next.metadata as Record<string, unknown>);
    if (sameContent(old, next, def)) return old;
    if (next.metadata.deletionTimestamp && !next.metadata.finalizers?.length && (def.kind !== "Pod" || next.metadata.deletionGracePeriodSeconds === 0)) {
      return this.write(def, "DELETED", next);
    }
    return this.write(def, "MODIFIED", next);
  }

  /** ValidatePodUpdate: only images, activeDeadlineSeconds and added tolerations may change. */
  private checkPodSpecUpdate(old: AnyObject, next: AnyObject, t: Target): void {
    const comparable = (spec: unknown) => {
      const s = clone((spec ?? {}) as Record<string, unknown>);
      for (const list of ["containers", "initContainers"]) for (const c of (s[list] as Array<Record<string, unknown>> | undefined) ?? []) delete c.image;
      delete s.activeDeadlineSeconds;
      delete s.tolerations;
      return JSON.stringify(s);
    };
    if (comparable(old.spec) !== comparable(next.spec))
      throw invalid(t, "Pod", [{ field: "spec", type: "FieldValueForbidden", message: `Forbidden: ${POD_UPDATE_FORBIDDEN}` }]);
  }

  /** PATCH: the patch applied to the stored object, then the update rules (a resourceVersion in the patch is a precondition). */
  patch(resource: string, namespace: string | undefined, name: string, type: string, patch: unknown, subresource?: string): AnyObject {
    const def = resourceByKey(resource);
    const old = this.mustGet(def, namespace, name);
    let patched: unknown;
    try {
      if (type === "application/merge-patch+json") patched = mergePatch(old, patch);
      else if (type === "application/strategic-merge-patch+json") patched = strategicMergePatch(old, patch, def.kind);
      else if (type === "application/json-patch+json") patched = jsonPatch(old, patch);
      else throw unsupportedMediaType(type);
    } catch (e) {
      if (e instanceof PatchError) throw invalid(target(def, name), def.kind, [{ field: "", type: "FieldValueInvalid", message: e.message }]);
      throw e;
    }
    if (!isPlainObject(patched)) throw badRequest("the patch did not produce an object");
    return this.update(resource, patched as AnyObject, subresource, name, namespace);
  }

  /** Test set-up: a strategic merge patch of the status subresource, e.g. `{ status: { phase: "Running" } }`. */
  patchStatus(resource: string, namespace: string | undefined, name: string, patch: unknown): AnyObject {
    return this.patch(resource, namespace, name, "application/strategic-merge-patch+json", patch, "status");
  }

  /**
   * DELETE. A pod bound to a node and not yet terminal is deleted gracefully: deletionTimestamp =
   * now + grace and deletionGracePeriodSeconds are set and the kubelet finishes the deletion with grace
   * 0; a later delete may only shorten the grace (pod strategy CheckGracefulTermination, registry
   * BeforeDelete). Everything else goes at once unless finalizers hold it. Answers the object.
   */
  delete(resource: string, namespace: string | undefined, name: string, opts: DeleteOptions = {}): AnyObject {
    const def = resourceByKey(resource);
    const old = this.mustGet(def, namespace, name);
    const t = target(def, name);
    const meta = old.metadata ?? {};
    const pre = opts.preconditions;
    if (pre?.uid && pre.uid !== meta.uid) throw conflict(t, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${meta.uid}`);
    if (pre?.resourceVersion && pre.resourceVersion !== meta.resourceVersion) {
      throw conflict(
        t,
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${meta.resourceVersion}`,
      );
    }
    let grace = 0;
    if (def.kind === "Pod") {
      const pod = old as Pod;
      const terminal = pod.status?.phase === "Succeeded" || pod.status?.phase === "Failed";
      grace = opts.gracePeriodSeconds ?? pod.spec?.terminationGracePeriodSeconds ?? 30;
      if (!pod.spec?.nodeName || terminal) grace = 0;
    }
    if (grace > 0 || meta.finalizers?.length) {
      if (meta.deletionTimestamp && (meta.deletionGracePeriodSeconds ?? 0) <= grace) return old;
      const next = clone(old);
      // The first graceful deletion bumps a generation that is set (rest.BeforeDelete): the pod's
      // observers see a new generation, and the kubelet's status says which one it has seen.
      const generation = !meta.deletionTimestamp && meta.generation ? { generation: meta.generation + 1 } : {};
      next.metadata = { ...meta, ...generation, deletionTimestamp: timestamp(this.now() + grace * 1000), deletionGracePeriodSeconds: grace };
      if (grace === 0 && !meta.finalizers?.length) return this.write(def, "DELETED", next);
      return this.write(def, "MODIFIED", next);
    }
    return this.write(def, "DELETED", old);
  }

  /** The binding subresource (pod storage BindingREST / assignPod): sets spec.nodeName and PodScheduled=True. */
  bind(namespace: string, podName: string, binding: Binding): void {
    const def = resourceByKey("pods");
    const pod = this.mustGet(def, namespace, podName) as Pod;
    const t: Target = { qualified: "pods/binding", resource: "pods", group: "", name: podName };
    if (binding.target?.kind && binding.target.kind !== "Node") {
      throw invalid({ ...t, qualified: "bindings" }, "Binding", [
        { field: "target.kind", type: "FieldValueInvalid", message: `Invalid value: "${binding.target.kind}": must be empty or 'Node'` },
      ]);
    }
    if (!binding.target?.name)
      throw invalid({ ...t, qualified: "bindings" }, "Binding", [{ field: "target.name", type: "FieldValueRequired", message: "Required value" }]);
    if (pod.metadata?.deletionTimestamp) throw conflict(t, `pod ${podName} is being deleted, cannot be assigned to a host`);
    if (pod.spec?.nodeName) throw conflict(t, `pod ${podName} is already assigned to node "${pod.spec.nodeName}"`);
    const condition: PodCondition = { type: "PodScheduled", status: "True", lastTransitionTime: timestamp(this.now()) };
    const conditions = (pod.status?.conditions ?? []).filter((c) => c.type !== "PodScheduled");
    this.write(def, "MODIFIED", {
      ...pod,
      spec: { ...pod.spec!, nodeName: binding.target.name },
      status: { ...pod.status, conditions: [...conditions, condition] },
    } as AnyObject);
  }
}

/**
 * What the v1 → internal conversion does to a Secret: stringData is merged into data (base64, its
 * keys winning) and dropped; the type defaults to Opaque (SetDefaults_Secret).
 */
function prepareSecret(obj: AnyObject): AnyObject {
  const { stringData, ...rest } = obj as AnyObject & { stringData?: Record<string, string>; data?: Record<string, string> };
  const next: AnyObject & { data?: Record<string, string> } = { ...rest, type: (obj.type as string | undefined) || "Opaque" };
  if (stringData && Object.keys(stringData).length) {
    next.data = { ...next.data };
    for (const [k, v] of Object.entries(stringData)) next.data[k] = Buffer.from(String(v)).toString("base64");
  }
  return next;
}

/** ValidateSecretUpdate / ValidateConfigMapUpdate: an immutable object's data and the flag itself stay. */
function checkImmutableUpdate(old: AnyObject, next: AnyObject, t: Target, kind: string): void {
  const causes: Array<{ field: string; type: "FieldValueForbidden"; message: string }> = [];
  if (next.immutable !== true)
    causes.push({ field: "immutable", type: "FieldValueForbidden", message: "Forbidden: field is immutable when `immutable` is set" });
  if (canonical(old.data) !== canonical(next.data))
    causes.push({ field: "data", type: "FieldValueForbidden", message: "Forbidden: field is immutable when `immutable` is set" });
  if (kind === "ConfigMap" && canonical(old.binaryData) !== canonical(next.binaryData))
    causes.push({ field: "binaryData", type: "FieldValueForbidden", message: "Forbidden: field is immutable when `immutable` is set" });
  if (causes.length) throw invalid(t, kind, causes);
}

function stripUndefined(o: Record<string, unknown>): void {
  for (const k of Object.keys(o)) if (o[k] === undefined) delete o[k];
}

/** JSON with sorted keys: equal content compares equal whatever order a patch left the keys in. */
function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) => (isPlainObject(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : x));
}

function sameContent(a: AnyObject, b: AnyObject, def: ResourceDef): boolean {
  const norm = (o: AnyObject) => canonical({ ...o, apiVersion: apiVersionOf(def), kind: def.kind, metadata: { ...o.metadata, resourceVersion: "" } });
  return norm(a) === norm(b);
}
