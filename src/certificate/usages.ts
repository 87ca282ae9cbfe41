// What the kubelet asks its certificates to be (k/k@1.24.1 pkg/kubelet/certificate/kubelet.go and
// bootstrap/bootstrap.go): subject CN=system:node:<node>, O=system:nodes, and the key usages
// "digital signature", "key encipherment" and the role ("client auth" / "server auth"), whatever the
// key type. Newer kubelets leave out "key encipherment" for non-RSA keys, but the 1.24 csrapproving
// controller approves a node client request only with exactly these three usages (checked against
// kube-controller-manager 1.24: an EC request with only "digital signature, client auth" stays
// Pending), so the agent asks as the 1.24 kubelet does.
import type { CsrSubject } from "./csr";

export function nodeSubject(nodeName: string): CsrSubject {
  return { commonName: `system:node:${nodeName}`, organizations: ["system:nodes"] };
}

/** The client certificate's usages (signer kubernetes.io/kube-apiserver-client-kubelet). */
export const CLIENT_USAGES: readonly string[] = ["digital signature", "key encipherment", "client auth"];

/** The serving certificate's usages (signer kubernetes.io/kubelet-serving). */
export const SERVING_USAGES: readonly string[] = ["digital signature", "key encipherment", "server auth"];
