// The versions the Node reports of the agent itself (status.nodeInfo.kubeletVersion, kubeProxyVersion).
/** The Kubernetes release whose kubelet the agent follows: the one constant every version string derives from. */
export const KUBERNETES_VERSION = "1.36.2";

/**
 * Node.status.nodeInfo.kubeletVersion: the Kubernetes version followed, with nodeagent's own version
 * as semver build metadata — "v1.36.2+nodeagent.0.1.0", the shape k3s ("v1.36.2+k3s1") and RKE2
 * report. Tools parse it with apimachinery's version.ParseSemantic/ParseGeneric (or any semver
 * parser) as 1.36.2: build metadata does not take part in comparisons, where a pre-release suffix
 * ("-nodeagent…") would make it older than v1.36.2 in every version-gated check (the API server's
 * node-declared-features inference and the kubectl version-skew warnings among them).
 */
export function kubeletVersion(agentVersion: string): string {
  const build = agentVersion
    .replace(/^v/, "")
    .replace(/[^0-9A-Za-z.-]/g, "-")
    .replace(/\.{2,}/g, ".")
    .replace(/^\.|\.$/g, "");
  return `v${KUBERNETES_VERSION}+nodeagent${build ? `.${build}` : ""}`;
}

/**
 * Node.status.nodeInfo.kubeProxyVersion: empty. The field is deprecated, and the 1.36 kubelet clears
 * it (DisableNodeKubeProxyVersion, on by default since 1.33 and locked on in 1.36); a Node an older
 * agent registered with it set loses it at the next status update.
 */
export const KUBE_PROXY_VERSION = "";
