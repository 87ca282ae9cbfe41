// The resources this server serves: where they live in the URL space, their kind, scope, subresources
// and the field selectors their registries support (pkg/registry/*/strategy.go GetAttrs / ToSelectableFields).
import type { AnyObject } from "./objects";

export interface ResourceDef {
  /** Store key: the plural for core and coordination, "events.k8s.io" for the second Event API. */
  key: string;
  plural: string;
  group: string;
  version: string;
  kind: string;
  namespaced: boolean;
  subresources: readonly string[];
  /** Selectable fields besides metadata.name (and metadata.namespace for namespaced resources). */
  fields: Readonly<Record<string, (o: AnyObject) => string>>;
}

/** A selectable field's getter: the value at a dotted path, "" when absent, booleans as "true"/"false". */
function at(path: string, absent = ""): (o: AnyObject) => string {
  const keys = path.split(".");
  return (o) => {
    let v: unknown = o;
    for (const k of keys) v = v && typeof v === "object" ? (v as Record<string, unknown>)[k] : undefined;
    return v === undefined || v === null ? absent : String(v);
  };
}

const podFields = {
  "spec.nodeName": at("spec.nodeName"),
  "spec.schedulerName": at("spec.schedulerName"),
  "spec.restartPolicy": at("spec.restartPolicy"),
  "spec.serviceAccountName": at("spec.serviceAccountName"),
  "spec.hostNetwork": at("spec.hostNetwork", "false"),
  "status.phase": at("status.phase"),
  "status.podIP": at("status.podIP"),
  "status.nominatedNodeName": at("status.nominatedNodeName"),
};

const eventFields = {
  "involvedObject.kind": at("involvedObject.kind"),
  "involvedObject.name": at("involvedObject.name"),
  "involvedObject.namespace": at("involvedObject.namespace"),
  "involvedObject.uid": at("involvedObject.uid"),
  reason: at("reason"),
  type: at("type"),
};

export const RESOURCES: readonly ResourceDef[] = [
  {
    key: "pods",
    plural: "pods",
    group: "",
    version: "v1",
    kind: "Pod",
    namespaced: true,
    subresources: ["status", "binding", "ephemeralcontainers", "resize"],
    fields: podFields,
  },
  {
    key: "nodes",
    plural: "nodes",
    group: "",
    version: "v1",
    kind: "Node",
    namespaced: false,
    subresources: ["status"],
    fields: { "spec.unschedulable": at("spec.unschedulable", "false") },
  },
  {
    key: "namespaces",
    plural: "namespaces",
    group: "",
    version: "v1",
    kind: "Namespace",
    namespaced: false,
    subresources: ["status"],
    fields: { "status.phase": at("status.phase") },
  },
  { key: "events", plural: "events", group: "", version: "v1", kind: "Event", namespaced: true, subresources: [], fields: eventFields },
  { key: "bindings", plural: "bindings", group: "", version: "v1", kind: "Binding", namespaced: true, subresources: [], fields: {} },
  // The objects pods name (issue 15): the kubelet reads them one by one under the Node authorizer.
  { key: "configmaps", plural: "configmaps", group: "", version: "v1", kind: "ConfigMap", namespaced: true, subresources: [], fields: {} },
  { key: "secrets", plural: "secrets", group: "", version: "v1", kind: "Secret", namespaced: true, subresources: [], fields: { type: at("type") } },
  {
    key: "serviceaccounts",
    plural: "serviceaccounts",
    group: "",
    version: "v1",
    kind: "ServiceAccount",
    namespaced: true,
    subresources: ["token"],
    fields: {},
  },
  // Services (cluster IPs allocated on create, services.ts): the kubelet lists and watches them all for
  // its pods' service-link variables.
  { key: "services", plural: "services", group: "", version: "v1", kind: "Service", namespaced: true, subresources: ["status"], fields: {} },
  // Create-only, never stored (reviews.ts).
  {
    key: "tokenreviews",
    plural: "tokenreviews",
    group: "authentication.k8s.io",
    version: "v1",
    kind: "TokenReview",
    namespaced: false,
    subresources: [],
    fields: {},
  },
  {
    key: "subjectaccessreviews",
    plural: "subjectaccessreviews",
    group: "authorization.k8s.io",
    version: "v1",
    kind: "SubjectAccessReview",
    namespaced: false,
    subresources: [],
    fields: {},
  },
  {
    key: "runtimeclasses",
    plural: "runtimeclasses",
    group: "node.k8s.io",
    version: "v1",
    kind: "RuntimeClass",
    namespaced: false,
    subresources: [],
    fields: {},
  },
  // The kubelet's certificate requests (issue 18, certificates.ts): cluster-scoped, approved through
  // the approval subresource, signed through status.
  {
    key: "certificatesigningrequests",
    plural: "certificatesigningrequests",
    group: "certificates.k8s.io",
    version: "v1",
    kind: "CertificateSigningRequest",
    namespaced: false,
    subresources: ["status", "approval"],
    fields: { "spec.signerName": at("spec.signerName") },
  },
  { key: "leases", plural: "leases", group: "coordination.k8s.io", version: "v1", kind: "Lease", namespaced: true, subresources: [], fields: {} },
  {
    key: "events.k8s.io",
    plural: "events",
    group: "events.k8s.io",
    version: "v1",
    kind: "Event",
    namespaced: true,
    subresources: [],
    fields: {
      "regarding.kind": at("regarding.kind"),
      "regarding.name": at("regarding.name"),
      "regarding.namespace": at("regarding.namespace"),
      reason: at("reason"),
      type: at("type"),
    },
  },
];

const byKey = new Map(RESOURCES.map((r) => [r.key, r]));

export function resourceByKey(key: string): ResourceDef {
  const r = byKey.get(key);
  if (!r) throw new Error(`test apiserver: unknown resource ${JSON.stringify(key)} (known: ${[...byKey.keys()].join(", ")})`);
  return r;
}

export function resourceByPath(group: string, version: string, plural: string): ResourceDef | undefined {
  return RESOURCES.find((r) => r.group === group && r.version === version && r.plural === plural);
}

/** "pods" or "leases.coordination.k8s.io": how error messages name a resource. */
export function qualifiedName(r: ResourceDef): string {
  return r.group ? `${r.plural}.${r.group}` : r.plural;
}

export function apiVersionOf(r: ResourceDef): string {
  return r.group ? `${r.group}/${r.version}` : r.version;
}

/** The value of a selectable field, undefined when the resource does not support it. */
export function fieldValue(r: ResourceDef, obj: AnyObject, field: string): string | undefined {
  if (field === "metadata.name") return obj.metadata?.name ?? "";
  if (field === "metadata.namespace" && r.namespaced) return obj.metadata?.namespace ?? "";
  const get = r.fields[field];
  return get ? get(obj) : undefined;
}
