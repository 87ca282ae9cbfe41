// TLS bootstrap (k/k@1.24.1 pkg/kubelet/certificate/bootstrap/bootstrap.go LoadClientCert): before
// the node starts, make sure --kubeconfig holds a usable client certificate, getting one with the
// --bootstrap-kubeconfig credentials when it does not:
//   1. --kubeconfig exists and its client certificate is there and not expired → nothing to do.
//   2. <cert-dir>/kubelet-client-current.pem holds a valid pair (an earlier bootstrap whose kubeconfig
//      was lost) → write the kubeconfig for it.
//   3. Otherwise: the key from <cert-dir>/kubelet-client.key.tmp (kept across restarts so the same
//      request is found again) or a new P-256 key written there; a CSR for CN=system:node:<node>,
//      O=system:nodes, signer kubernetes.io/kube-apiserver-client-kubelet, named node-csr-<digest of
//      key, subject and usages>, created with the bootstrap credentials; wait (up to an hour) until it
//      is approved and signed; store the pair (certificate-store.ts), drop the temp key, and write
//      --kubeconfig: the bootstrap kubeconfig's cluster, the user's certificate and key both the
//      -current.pem path.
// Every failure says which step and which file or object failed.
import { X509Certificate, createHash, createPrivateKey, createPublicKey, type KeyObject } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import * as k8s from "@kubernetes/client-node";
import { stringify } from "yaml";
import { loadKubeClient, type KubeClient } from "../kube";
import { type Clock, errorMessage, type Logger, writeFileAtomic } from "../util";
import { CertificateStore, parsePair } from "./certificate-store";
import { certificateRequestPem, newPrivateKey, privateKeyPem, type CsrSubject } from "./csr";
import { KUBELET_CLIENT_SIGNER, requestCertificate, waitForCertificate, type CsrApi } from "./csr-client";
import { CLIENT_USAGES, nodeSubject } from "./usages";

/** bootstrap.go waits this long for the request to be approved and signed. */
export const BOOTSTRAP_WAIT_MS = 3600_000;

export interface BootstrapOptions {
  /** --kubeconfig: read when it exists, written after a bootstrap. */
  kubeconfig: string;
  /** --bootstrap-kubeconfig. */
  bootstrapKubeconfig: string;
  /** --cert-dir. */
  certDir: string;
  nodeName: string;
  clock: Clock;
  log: Logger;
  userAgent?: string;
  /** How long to wait for the certificate (BOOTSTRAP_WAIT_MS). */
  waitMs?: number;
  /** Makes the API client from the bootstrap kubeconfig (loadKubeClient; tests may wrap it). */
  loadClient?: (path: string) => Promise<CsrApi>;
}

/** What the bootstrap found or did. */
export type BootstrapResult = "kubeconfig-valid" | "stored-certificate" | "issued";

/**
 * client-go's RawURLEncoding of the SHA-512/256 over base64url(part)|… of the public key (PKIX DER),
 * the CN, each O and each usage: the same key and request always get the same name (bootstrap.go
 * digestedName), so a restarted bootstrap finds its pending request instead of making another.
 */
export function digestedName(publicKey: KeyObject, subject: CsrSubject, usages: string[]): string {
  const h = createHash("sha512-256");
  const write = (data: Buffer | string) => {
    h.update(Buffer.from(data).toString("base64url"));
    h.update("|");
  };
  write(publicKey.export({ type: "spki", format: "der" }));
  write(subject.commonName);
  for (const o of subject.organizations) write(o);
  for (const u of usages) write(u);
  return `node-csr-${h.digest().toString("base64url")}`;
}

/** The kubeconfig's client certificate, when there is one that is not expired (isClientConfigStillValid). */
function kubeconfigStillValid(path: string, now: number, log: Logger): boolean {
  if (!existsSync(path)) return false;
  try {
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(path);
    const user = kc.getCurrentUser();
    const base = dirname(path);
    const certPem = user?.certData ? Buffer.from(user.certData, "base64").toString() : user?.certFile ? readFileSync(resolve(base, user.certFile), "utf8") : "";
    const keyPem = user?.keyData ? Buffer.from(user.keyData, "base64").toString() : user?.keyFile ? readFileSync(resolve(base, user.keyFile), "utf8") : "";
    if (!certPem) {
      log.info("kubeconfig has no client certificate: bootstrapping one", { path });
      return false;
    }
    parsePair(certPem, keyPem);
    // Every certificate given, intermediates included, must still be valid.
    for (const block of certPem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []) {
      const notAfter = Date.parse(new X509Certificate(block).validTo);
      if (now > notAfter) {
        log.info("part of the kubeconfig's client certificate expired: bootstrapping a new one", { path, notAfter: new Date(notAfter) });
        return false;
      }
    }
    return true;
  } catch (err) {
    log.warn("kubeconfig is not usable: bootstrapping a client certificate", { path, err });
    return false;
  }
}

/** Writes --kubeconfig: the bootstrap kubeconfig's cluster, and the stored pair as the user's credentials. */
function writeKubeconfig(path: string, bootstrapPath: string, certPath: string): void {
  const boot = new k8s.KubeConfig();
  boot.loadFromFile(bootstrapPath);
  const cluster = boot.getCurrentCluster();
  if (!cluster) throw new Error(`${bootstrapPath}: no current cluster`);
  const c: Record<string, unknown> = { server: cluster.server };
  if (cluster.caData) c["certificate-authority-data"] = cluster.caData;
  else if (cluster.caFile) c["certificate-authority"] = resolve(dirname(bootstrapPath), cluster.caFile);
  if (cluster.skipTLSVerify) c["insecure-skip-tls-verify"] = true;
  if (cluster.tlsServerName) c["tls-server-name"] = cluster.tlsServerName;
  const config = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "default-cluster", cluster: c }],
    contexts: [{ name: "default-context", context: { cluster: "default-cluster", namespace: "default", user: "default-auth" } }],
    "current-context": "default-context",
    users: [{ name: "default-auth", user: { "client-certificate": certPath, "client-key": certPath } }],
  };
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileAtomic(path, stringify(config), 0o600);
  } catch (err) {
    throw new Error(`cannot write the kubeconfig ${path}: ${errorMessage(err)}`);
  }
}

/** The private key kept while a bootstrap request is pending (kubelet-client.key.tmp). */
function bootstrapKey(path: string, log: Logger): KeyObject {
  if (existsSync(path)) {
    try {
      return createPrivateKey(readFileSync(path, "utf8"));
    } catch (err) {
      log.warn("not a private key: making a new one", { path, err });
    }
  }
  const key = newPrivateKey();
  try {
    writeFileAtomic(path, privateKeyPem(key), 0o600);
  } catch (err) {
    throw new Error(`cannot write the bootstrap private key ${path}: ${errorMessage(err)}`);
  }
  return key;
}

/** Makes sure --kubeconfig is usable, bootstrapping a client certificate when it is not. */
export async function bootstrapClientCertificate(o: BootstrapOptions): Promise<BootstrapResult> {
  const now = o.clock.now();
  if (kubeconfigStillValid(o.kubeconfig, now, o.log)) {
    o.log.info("kubeconfig has a valid client certificate: skipping the TLS bootstrap", { path: o.kubeconfig });
    return "kubeconfig-valid";
  }
  const store = new CertificateStore(o.certDir, "kubelet-client");
  let stored;
  try {
    stored = store.current();
  } catch (err) {
    o.log.warn("requesting a new client certificate", { err });
  }
  if (stored && now < stored.notAfter) {
    writeKubeconfig(o.kubeconfig, o.bootstrapKubeconfig, store.currentPath);
    o.log.info("wrote the kubeconfig for the client certificate already stored", { path: o.kubeconfig, certificate: store.currentPath });
    return "stored-certificate";
  }

  o.log.info("using the bootstrap kubeconfig to request a client certificate", { path: o.bootstrapKubeconfig, user: `system:node:${o.nodeName}` });
  let api: CsrApi;
  try {
    api = await (o.loadClient ?? ((p: string) => loadKubeClient(p, { userAgent: o.userAgent }) as Promise<KubeClient>))(o.bootstrapKubeconfig);
  } catch (err) {
    throw new Error(`cannot load the bootstrap kubeconfig: ${errorMessage(err)}`);
  }
  try {
    mkdirSync(o.certDir, { recursive: true, mode: 0o755 });
  } catch (err) {
    throw new Error(`cannot make --cert-dir ${o.certDir}: ${errorMessage(err)}`);
  }
  const keyPath = join(o.certDir, "kubelet-client.key.tmp");
  const key = bootstrapKey(keyPath, o.log);
  const subject = nodeSubject(o.nodeName);
  const usages = [...CLIENT_USAGES];
  const name = digestedName(createPublicKey(key), subject, usages);
  const csr = await requestCertificate(api, {
    name,
    requestPem: certificateRequestPem({ ...subject, privateKey: key }),
    signerName: KUBELET_CLIENT_SIGNER,
    usages,
  });
  o.log.info("certificate signing request created; waiting for it to be approved and signed", { csr: csr.name });
  const certPem = await waitForCertificate(api, csr, o.clock, o.waitMs ?? BOOTSTRAP_WAIT_MS);
  const pair = store.update(certPem, privateKeyPem(key), o.clock.now());
  rmSync(keyPath, { force: true });
  writeKubeconfig(o.kubeconfig, o.bootstrapKubeconfig, store.currentPath);
  o.log.info("client certificate issued", { csr: csr.name, notAfter: new Date(pair.notAfter), certificate: store.currentPath, kubeconfig: o.kubeconfig });
  return "issued";
}
