// The node's two rotating certificates, as the kubelet sets them up (k/k@1.24.1
// pkg/kubelet/certificate/kubelet.go NewKubeletClientCertificateManager / NewKubeletServerCertificateManager):
//   client (rotateCertificates): the pair under <cert-dir>/kubelet-client-current.pem that the
//     bootstrapped kubeconfig names, renewed with signer kubernetes.io/kube-apiserver-client-kubelet;
//     after each renewal the API client reloads its TLS credentials (KubeClient.reloadCredentials).
//     A --kubeconfig whose certificate lives elsewhere is not rotated (the agent would have to rewrite
//     the operator's kubeconfig): said once at start.
//   serving (serverTLSBootstrap): <cert-dir>/kubelet-server-current.pem, requested with signer
//     kubernetes.io/kubelet-serving for the node's names (DNS: Hostname/InternalDNS/ExternalDNS
//     addresses; IP: InternalIP/ExternalIP, as the kubelet's getAddresses template); the HTTPS server
//     serves the self-signed pair until the first one is issued, then each new one without a restart.
// Both send their requests with the cluster client of the moment.
import type { NodeAddress } from "kubernetes-types/core/v1";
import { isIP } from "node:net";
import { resolve, dirname } from "node:path";
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import type { KubeClient } from "../kube";
import type { Clock, Logger } from "../util";
import { CertificateManager, type CertificateTemplate } from "./certificate-manager";
import { CertificateStore, type CertificatePair } from "./certificate-store";
import { KUBELET_CLIENT_SIGNER, KUBELET_SERVING_SIGNER } from "./csr-client";
import { CLIENT_USAGES, SERVING_USAGES, nodeSubject } from "./usages";

export interface NodeCertificateOptions {
  certDir: string;
  nodeName: string;
  clock: Clock;
  log: Logger;
}

/** The kubeconfig's client-certificate path (absolute), if it names one. */
function kubeconfigCertPath(path: string): string | undefined {
  try {
    const kc = parse(readFileSync(path, "utf8")) as {
      users?: Array<{ name?: string; user?: Record<string, unknown> }>;
      contexts?: Array<{ name?: string; context?: { user?: string } }>;
      "current-context"?: string;
    };
    const ctx = kc.contexts?.find((c) => c.name === kc["current-context"]);
    const user = kc.users?.find((u) => u.name === ctx?.context?.user)?.user;
    const file = user?.["client-certificate"];
    return typeof file === "string" ? resolve(dirname(path), file) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The client certificate's manager, started; undefined (with the reason logged) when the kubeconfig's
 * certificate is not the one under --cert-dir.
 */
export function startClientCertificateRotation(o: NodeCertificateOptions & { kubeconfig: string; client: KubeClient }): CertificateManager | undefined {
  const store = new CertificateStore(o.certDir, "kubelet-client");
  if (kubeconfigCertPath(o.kubeconfig) !== store.currentPath) {
    o.log.warn("rotateCertificates: the kubeconfig's client certificate is not the one --bootstrap-kubeconfig made; it is not rotated", {
      kubeconfig: o.kubeconfig,
      expected: store.currentPath,
    });
    return undefined;
  }
  const manager = new CertificateManager({
    store,
    signerName: KUBELET_CLIENT_SIGNER,
    usages: CLIENT_USAGES,
    template: () => nodeSubject(o.nodeName),
    api: () => o.client,
    clock: o.clock,
    log: o.log,
    what: "client",
    onRotated: () => o.client.reloadCredentials(),
  });
  manager.start();
  return manager;
}

/** The serving certificate's names: the node's DNS-type and IP-type addresses (the kubelet's template). */
export function servingTemplate(nodeName: string, addresses: readonly NodeAddress[]): CertificateTemplate {
  const dnsNames: string[] = [];
  const ipAddresses: string[] = [];
  for (const a of addresses) {
    if (["Hostname", "InternalDNS", "ExternalDNS"].includes(a.type) && !dnsNames.includes(a.address)) dnsNames.push(a.address);
    if (["InternalIP", "ExternalIP"].includes(a.type) && isIP(a.address) && !ipAddresses.includes(a.address)) ipAddresses.push(a.address);
  }
  return { ...nodeSubject(nodeName), dnsNames, ipAddresses };
}

/** The serving pair already issued and still valid, to serve from the start. */
export function storedServingCertificate(certDir: string, now: number, log: Logger): { path: string; pair: CertificatePair } | undefined {
  const store = new CertificateStore(certDir, "kubelet-server");
  try {
    const pair = store.current();
    if (pair && now < pair.notAfter) return { path: store.currentPath, pair };
  } catch (err) {
    log.warn("serverTLSBootstrap: stored serving certificate not usable; serving the self-signed certificate until a new one is issued", { err });
  }
  return undefined;
}

/** The serving certificate's manager, started: `serve` gets each pair issued. */
export function startServingCertificateRotation(
  o: NodeCertificateOptions & { client: KubeClient; addresses: readonly NodeAddress[]; serve: (certPem: string, keyPem: string) => void },
): CertificateManager {
  const manager = new CertificateManager({
    store: new CertificateStore(o.certDir, "kubelet-server"),
    signerName: KUBELET_SERVING_SIGNER,
    usages: SERVING_USAGES,
    template: () => servingTemplate(o.nodeName, o.addresses),
    api: () => o.client,
    clock: o.clock,
    log: o.log,
    what: "serving",
    onRotated: (pair) => o.serve(pair.certPem, pair.keyPem),
  });
  manager.start();
  return manager;
}
