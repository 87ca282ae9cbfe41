// Who is calling and what they may do. Authentication: bearer tokens (no token, or an unknown one, is
// 401), or, with the certificates option, a client certificate of the test client CA (CN user, O groups).
// Authorization, in the order the apiserver applies them: system:masters may do everything; a kubelet
// (user system:node:<name>, group system:nodes) gets what the Node authorizer, the system:node ClusterRole
// and NodeRestriction admission allow it (plugin/pkg/auth/authorizer/node,
// plugin/pkg/admission/noderestriction); system:kube-scheduler what its bootstrap ClusterRole allows.
import type { Container, Node, Pod, Volume } from "kubernetes-types/core/v1";
import type { TokenRequest } from "kubernetes-types/authentication/v1";
import { podConfigMapNames, podSecretNames } from "../../../src/api/pod-references";
import type { AnyObject } from "./objects";
import type { ResourceDef } from "./resources";
import type { Registry } from "./registry";
import { target } from "./registry";
import { ApiError, forbidden } from "./status";

export interface User {
  name: string;
  groups: string[];
}

export type Verb = "get" | "list" | "watch" | "create" | "update" | "patch" | "delete";

export interface Attributes {
  user: User;
  verb: Verb;
  def: ResourceDef;
  subresource?: string;
  namespace?: string;
  name?: string;
  /** The parsed `spec.nodeName=` value of a list/watch field selector, if any. */
  nodeNameSelector?: string;
  /** The object sent (create, update) or the result of a patch, for admission. */
  body?: AnyObject;
}

const MIRROR_ANNOTATION = "kubernetes.io/config.mirror";

/** Throws a 403 Status when the call is not allowed. */
export function authorize(a: Attributes, registry: Registry): void {
  if (a.user.groups.includes("system:masters")) return;
  const node = /^system:node:(.+)$/.exec(a.user.name)?.[1];
  if (node !== undefined && a.user.groups.includes("system:nodes")) return authorizeNode(a, node, registry);
  if (a.user.name === "system:kube-scheduler") return authorizeScheduler(a);
  // RBAC's system:node-bootstrapper ClusterRole, bound to system:bootstrappers (as kubeadm binds it).
  if (a.user.groups.includes("system:bootstrappers") && isCsrRead(a)) return;
  throw deny(a, "");
}

function deny(a: Attributes, reason: string): ApiError {
  return forbidden(target(a.def, a.name), a.user.name, a.verb, a.def.namespaced ? a.namespace : undefined, a.subresource, reason);
}

/** An admission rejection: `pods "x" is forbidden: <why>` (admission.NewForbidden). */
function reject(a: Attributes, why: string): ApiError {
  const t = target(a.def, a.name ?? a.body?.metadata?.name);
  return new ApiError({
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    reason: "Forbidden",
    code: 403,
    message: `${t.name ? `${t.qualified} "${t.name}"` : t.qualified} is forbidden: ${why}`,
    details: { name: t.name, kind: t.resource, group: t.group || undefined },
  });
}

const is = (a: Attributes, group: string, resource: string) => a.def.group === group && a.def.plural === resource;
const isEvents = (a: Attributes) => is(a, "", "events") || is(a, "events.k8s.io", "events");

/** create/get/list/watch of certificatesigningrequests, no subresource: system:node-bootstrapper's rule, also in system:node. */
const isCsrRead = (a: Attributes) =>
  is(a, "certificates.k8s.io", "certificatesigningrequests") && !a.subresource && ["create", "get", "list", "watch"].includes(a.verb);

function authorizeNode(a: Attributes, node: string, registry: Registry): void {
  const { verb } = a;
  // The system:node ClusterRole lets a kubelet request (and follow) its rotated certificates.
  if (isCsrRead(a)) return;
  // The system:node ClusterRole's rules (the Node authorizer's static rules): a kubelet asks the API
  // server who a token is and whether a user may use its API.
  if ((is(a, "authentication.k8s.io", "tokenreviews") || is(a, "authorization.k8s.io", "subjectaccessreviews")) && verb === "create") return;
  if (isEvents(a) && !a.subresource && ["create", "patch", "update"].includes(verb)) return;
  if (is(a, "", "nodes")) {
    if (["get", "list", "watch"].includes(verb) && !a.subresource) return;
    if (["create", "update", "patch"].includes(verb)) {
      const name = a.name ?? a.body?.metadata?.name;
      if (name !== node) throw reject(a, `node "${node}" is not allowed to modify node "${name}"`);
      return;
    }
    throw deny(a, "");
  }
  if (is(a, "coordination.k8s.io", "leases")) {
    if (!["get", "create", "update", "patch"].includes(verb)) throw deny(a, "");
    const name = a.name ?? a.body?.metadata?.name;
    if (a.namespace !== "kube-node-lease" || name !== node) {
      throw verb === "create"
        ? reject(a, "can only access node lease with the same name as the requesting node")
        : deny(a, "can only access node lease with the same name as the requesting node");
    }
    return;
  }
  if (is(a, "", "secrets")) return authorizeReadNamespacedObject(a, node, registry, podSecretNames);
  if (is(a, "", "configmaps")) return authorizeReadNamespacedObject(a, node, registry, podConfigMapNames);
  if (is(a, "", "serviceaccounts")) return authorizeCreateToken(a, node, registry);
  // Not the Node authorizer's: RBAC's system:node ClusterRole grants get/list/watch of services in
  // every namespace (plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go NodeRules), which the
  // kubelet's service informer uses.
  if (is(a, "", "services")) {
    if (["get", "list", "watch"].includes(verb) && !a.subresource) return;
    throw deny(a, "");
  }
  // RBAC's system:node ClusterRole grants get/list/watch of RuntimeClasses (NodeRules, node.k8s.io),
  // which the kubelet's runtimeclass manager reads.
  if (is(a, "node.k8s.io", "runtimeclasses")) {
    if (["get", "list", "watch"].includes(verb) && !a.subresource) return;
    throw deny(a, "");
  }
  if (is(a, "", "pods")) {
    if (verb === "list" || verb === "watch") {
      if (a.subresource || a.nodeNameSelector !== node) throw deny(a, `can only list/watch pods with spec.nodeName field selector`);
      return;
    }
    if (verb === "create" && !a.subresource) return admitMirrorPod(a, node, registry);
    const allowed =
      (verb === "get" && !a.subresource) || (verb === "delete" && !a.subresource) || (a.subresource === "status" && ["get", "update", "patch"].includes(verb));
    if (!allowed) throw deny(a, "");
    const pod = registry.get("pods", a.namespace, a.name ?? "") as Pod | undefined;
    if (pod?.spec?.nodeName !== node) throw deny(a, `no relationship found between node '${node}' and this object`);
    return;
  }
  throw deny(a, "");
}

/** The pods bound to the node (the graph's pod → node edges: pods with spec.nodeName, not yet deleted). */
function boundPods(registry: Registry, node: string, namespace: string): Pod[] {
  return (registry.list("pods", namespace) as Pod[]).filter((p) => p.spec?.nodeName === node);
}

const noRelationship = (node: string) => `no relationship found between node '${node}' and this object`;

/**
 * NodeAuthorizer.authorizeReadNamespacedObject: get/list/watch of one named secret or configmap that a
 * pod bound to the node refers to. A list or watch is named by its `metadata.name=` field selector (the
 * apiserver's RequestInfo takes the name from there), so a namespace-wide list is never allowed.
 */
function authorizeReadNamespacedObject(a: Attributes, node: string, registry: Registry, names: (pod: Pod) => string[]): void {
  if (!["get", "list", "watch"].includes(a.verb)) throw deny(a, "can only read resources of this type");
  if (a.subresource) throw deny(a, "cannot read subresource");
  if (!a.namespace) throw deny(a, "can only read namespaced object of this type");
  if (!a.name) throw deny(a, "No Object name found");
  if (!boundPods(registry, node, a.namespace).some((p) => names(p).includes(a.name!))) throw deny(a, noRelationship(node));
}

/**
 * NodeAuthorizer.authorizeCreateToken, then NodeRestriction's admitServiceAccount: a node may only
 * create the token subresource of a service account that a pod bound to it runs as, and only a token
 * bound to such a pod, named with its current UID.
 */
function authorizeCreateToken(a: Attributes, node: string, registry: Registry): void {
  if (a.verb !== "create" || !a.name) throw deny(a, "can only create tokens for individual service accounts");
  if (a.subresource !== "token") throw deny(a, "can only create token subresource of serviceaccount");
  if (!boundPods(registry, node, a.namespace ?? "").some((p) => p.spec?.serviceAccountName === a.name)) throw deny(a, noRelationship(node));
  const ref = (a.body as TokenRequest | undefined)?.spec?.boundObjectRef;
  if (!ref || ref.apiVersion !== "v1" || ref.kind !== "Pod" || !ref.name) throw reject(a, "node requested token not bound to a pod");
  if (!ref.uid) throw reject(a, "node requested token with a pod binding without a uid");
  const pod = registry.get("pods", a.namespace, ref.name) as Pod | undefined;
  // The admission plugin reads pods through a lister, whose NotFound names the singular resource.
  if (!pod)
    throw new ApiError({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      reason: "NotFound",
      code: 404,
      message: `pod "${ref.name}" not found`,
      details: { name: ref.name, kind: "pod" },
    });
  if (ref.uid !== pod.metadata?.uid) {
    throw reject(
      a,
      `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`,
    );
  }
  if (pod.spec?.nodeName !== node) throw reject(a, "node requested token bound to a pod scheduled on a different node");
}

/** NodeRestriction's admitPodCreate: a node may only create mirror pods of its own static pods. */
function admitMirrorPod(a: Attributes, node: string, registry: Registry): void {
  const pod = (a.body ?? {}) as Pod;
  if (pod.metadata?.annotations?.[MIRROR_ANNOTATION] === undefined) {
    throw reject(a, `pod does not have "${MIRROR_ANNOTATION}" annotation, node "${node}" can only create mirror pods`);
  }
  if (pod.spec?.nodeName !== node) throw reject(a, `node "${node}" can only create pods with spec.nodeName set to itself`);
  const refs = pod.metadata?.ownerReferences ?? [];
  if (refs.length !== 1) throw reject(a, `node "${node}" can only create pods with a single owner reference set to itself`);
  const ref = refs[0]!;
  const own = registry.get("nodes", undefined, node) as Node | undefined;
  if (ref.apiVersion !== "v1" || ref.kind !== "Node" || ref.name !== node)
    throw reject(a, `node "${node}" can only create pods with an owner reference set to itself`);
  if (!ref.controller) throw reject(a, `node "${node}" can only create pods with a controller owner reference set to itself`);
  if (!own || ref.uid !== own.metadata?.uid) throw reject(a, `node ${node} UID mismatch: expected ${own?.metadata?.uid ?? ""}, got ${ref.uid}`);
  const why = forbiddenReference(pod);
  if (why) throw reject(a, `node "${node}" can not create pods that reference ${why}`);
}

/** What a mirror pod may not reference: secrets, configmaps, service account tokens, PVCs. */
function forbiddenReference(pod: Pod): string | undefined {
  const spec = pod.spec;
  if (spec?.serviceAccountName) return "a service account";
  const volumes: readonly Volume[] = spec?.volumes ?? [];
  for (const v of volumes) {
    if (v.secret) return "secrets";
    if (v.configMap) return "configmaps";
    if (v.persistentVolumeClaim || v.ephemeral) return "persistentvolumeclaims";
    for (const s of v.projected?.sources ?? []) {
      if (s.secret) return "secrets";
      if (s.configMap) return "configmaps";
      if (s.serviceAccountToken) return "serviceaccounts";
    }
  }
  const containers: readonly Container[] = [
    ...(spec?.containers ?? []),
    ...(spec?.initContainers ?? []),
    ...((spec?.ephemeralContainers ?? []) as Container[]),
  ];
  for (const c of containers) {
    for (const e of c.envFrom ?? []) {
      if (e.secretRef) return "secrets";
      if (e.configMapRef) return "configmaps";
    }
    for (const e of c.env ?? []) {
      if (e.valueFrom?.secretKeyRef) return "secrets";
      if (e.valueFrom?.configMapKeyRef) return "configmaps";
    }
  }
  return undefined;
}

function authorizeScheduler(a: Attributes): void {
  const { verb } = a;
  const read = ["get", "list", "watch"].includes(verb);
  if ((is(a, "", "pods") || is(a, "", "nodes") || is(a, "", "namespaces")) && !a.subresource && read) return;
  if (is(a, "", "pods") && a.subresource === "binding" && verb === "create") return;
  if (is(a, "", "bindings") && verb === "create") return;
  if (is(a, "", "pods") && a.subresource === "status" && (verb === "patch" || verb === "update")) return;
  if (isEvents(a) && ["create", "patch", "update"].includes(verb)) return;
  // Leader election (system:kube-scheduler: leases create, and get/update of its own lock).
  if (is(a, "coordination.k8s.io", "leases") && (verb === "create" || ((verb === "get" || verb === "update") && a.name === "kube-scheduler"))) return;
  throw deny(a, "");
}
