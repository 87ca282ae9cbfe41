// The labels a node may set on its own Node object. The NodeRestriction admission plugin refuses a
// kubelet's Node create or update that sets any other label in the kubernetes.io or k8s.io
// namespaces (node-role.kubernetes.io/worker, node-restriction.kubernetes.io/…), so the kubelet
// refuses such a --node-labels at start (cmd/kubelet/app/options/options.go ValidateKubeletFlags,
// with k8s.io/kubelet/pkg/apis IsKubeletLabel), instead of registering with 403 forever. The allowed
// set and prefixes are k8s.io/api/core/v1 KubeletLabels and KubeletLabelNamespaces.

/** Label keys a kubelet may set on its Node (KubeletLabels), sorted as the kubelet prints them. */
export const KUBELET_LABELS: readonly string[] = [
  "beta.kubernetes.io/arch",
  "beta.kubernetes.io/instance-type",
  "beta.kubernetes.io/os",
  "failure-domain.beta.kubernetes.io/region",
  "failure-domain.beta.kubernetes.io/zone",
  "kubernetes.io/arch",
  "kubernetes.io/hostname",
  "kubernetes.io/os",
  "node.kubernetes.io/instance-type",
  "topology.kubernetes.io/region",
  "topology.kubernetes.io/zone",
];

/** Label namespaces a kubelet may set labels in, with their subdomains (KubeletLabelNamespaces). */
export const KUBELET_LABEL_NAMESPACES: readonly string[] = ["kubelet.kubernetes.io", "node.kubernetes.io"];

function labelNamespace(key: string): string {
  const slash = key.indexOf("/");
  return slash < 0 ? "" : key.slice(0, slash);
}

const inDomain = (ns: string, domain: string) => ns === domain || ns.endsWith(`.${domain}`);

/** Whether the key is in the kubernetes.io or k8s.io namespaces (or a subdomain of them). */
export function isKubernetesLabel(key: string): boolean {
  const ns = labelNamespace(key);
  return inDomain(ns, "kubernetes.io") || inDomain(ns, "k8s.io");
}

/** Whether a kubelet may set this label on its own Node (IsKubeletLabel). */
export function isKubeletLabel(key: string): boolean {
  if (KUBELET_LABELS.includes(key)) return true;
  const ns = labelNamespace(key);
  return KUBELET_LABEL_NAMESPACES.some((allowed) => inDomain(ns, allowed));
}

/**
 * The kubelet's error for node labels it may not set itself, word for word, or undefined when every
 * key is allowed. Keys outside the Kubernetes namespaces are always allowed.
 */
export function forbiddenNodeLabelsError(keys: Iterable<string>): string | undefined {
  const unknown = [...new Set([...keys].filter((k) => isKubernetesLabel(k) && !isKubeletLabel(k)))].sort();
  if (unknown.length === 0) return undefined;
  return (
    `unknown 'kubernetes.io' or 'k8s.io' labels specified with --node-labels: [${unknown.join(" ")}]\n` +
    `--node-labels in the 'kubernetes.io' namespace must begin with an allowed prefix (${KUBELET_LABEL_NAMESPACES.join(", ")}) ` +
    `or be in the specifically allowed set (${KUBELET_LABELS.join(", ")})`
  );
}
