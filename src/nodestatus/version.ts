// The versions the Node reports of the agent itself (status.nodeInfo.kubeletVersion, kubeProxyVersion).
/** The Kubernetes release whose kubelet the agent follows. */
export const KUBERNETES_VERSION = "1.24.1";

/**
 * Node.status.nodeInfo.kubeletVersion: the Kubernetes version followed, with nodeagent's own version
 * as semver build metadata — "v1.24.1+nodeagent.0.1.0", the shape k3s ("v1.24.1+k3s1") and RKE2
 * report. Tools parse it with apimachinery's version.ParseSemantic/ParseGeneric (or any semver
 * parser) as 1.24.1: build metadata does not take part in comparisons, where a pre-release suffix
 * ("-nodeagent…") would make it older than v1.24.1 in every version-gated check.
 */
export function kubeletVersion(agentVersion: string): string {
  const build = agentVersion
    .replace(/^v/, "")
    .replace(/[^0-9A-Za-z.-]/g, "-")
    .replace(/\.{2,}/g, ".")
    .replace(/^\.|\.$/g, "");
  return `v${KUBERNETES_VERSION}+nodeagent${build ? `.${build}` : ""}`;
}
