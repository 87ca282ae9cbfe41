// TLS bootstrap (issue 18, node.md §10.1) with the compiled binary on real containerd 1.6 and 1.7: an
// agent given only a bootstrap kubeconfig (a bootstrap token, group system:bootstrappers) and the path
// of --kubeconfig asks the test API server for a client certificate (node-csr-…, auto-approved as
// kube-controller-manager's csrapproving controller does, signed by the server's client CA), writes
// the pair 0600 under <root-dir>/pki with the kubelet-client-current.pem link and --kubeconfig
// pointing at it, then registers its Node as system:node:<name>, authenticated by that certificate.
// With --rotate-server-certificates its serving certificate is requested too (kubelet-serving, the
// node's names), and once an admin approves it the HTTPS server presents it without a restart.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { X509Certificate } from "node:crypto";
import { existsSync, lstatSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "node:tls";
import type { CertificateSigningRequest } from "kubernetes-types/certificates/v1";
import type { Node } from "kubernetes-types/core/v1";
import { TestApiServer } from "../fakes/apiserver";
import { NODE_NAME, useAgent } from "./agent-harness";
import { eventually } from "./proc";

/** The certificate the agent's HTTPS server presents now. */
function servedCertificate(url: string): Promise<X509Certificate> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const s = connect({ host: u.hostname, port: Number(u.port), rejectUnauthorized: false }, () => {
      const raw = s.getPeerCertificate().raw;
      s.destroy();
      resolve(new X509Certificate(raw));
    });
    s.on("error", reject);
  });
}

for (const version of ["1.6", "1.7"] as const) {
  describe(`TLS bootstrap on containerd ${version}`, () => {
    const dir = mkdtempSync(join(tmpdir(), "nodeagent-bootstrap-"));
    const bootstrapKubeconfig = join(dir, "bootstrap.kubeconfig");
    const kubeconfig = join(dir, "kubelet.kubeconfig");
    let api: TestApiServer;
    beforeAll(async () => {
      api = await TestApiServer.start({ certificates: { autoApprove: true } });
      api.writeKubeconfig(bootstrapKubeconfig, api.bootstrapToken());
    });
    afterAll(async () => {
      await api?.stop();
      rmSync(dir, { recursive: true, force: true });
    });
    const { agent } = useAgent(
      version,
      () => [
        "--bootstrap-kubeconfig",
        bootstrapKubeconfig,
        "--kubeconfig",
        kubeconfig,
        "--rotate-server-certificates",
        "--node-ip",
        "127.0.0.1",
        "--node-status-update-frequency",
        "2s",
      ],
      { https: true },
    );
    const csrs = () => api.store.list("certificatesigningrequests") as unknown as CertificateSigningRequest[];

    test("gets its client certificate, stores it 0600, and registers its Node as system:node:<name> with it", async () => {
      const certDir = join(agent().dir, "root", "pki");
      const node = await eventually("the Node registered", async () => api.store.get("nodes", undefined, NODE_NAME) as Node | undefined);
      expect(node.metadata?.name).toBe(NODE_NAME);

      const client = csrs().find((c) => c.spec.signerName === "kubernetes.io/kube-apiserver-client-kubelet")!;
      expect(client.metadata?.name).toMatch(/^node-csr-/);
      expect(client.spec.username).toMatch(/^system:bootstrap:[0-9a-f]{6}$/);
      expect(client.spec.usages).toEqual(["digital signature", "key encipherment", "client auth"]);
      expect(client.status?.conditions?.find((c) => c.type === "Approved")?.reason).toBe("AutoApproved");

      // The Node was created by the node itself, authenticated by the issued certificate.
      const create = api.requests.find((r) => r.resource === "nodes" && r.verb === "create" && r.code === 201)!;
      expect(create.user).toBe(`system:node:${NODE_NAME}`);
      const current = join(certDir, "kubelet-client-current.pem");
      const issued = new X509Certificate(readFileSync(current, "utf8"));
      expect(create.certificate).toBe(issued.fingerprint256);
      expect(issued.subject).toContain(`CN=system:node:${NODE_NAME}`);
      expect(issued.verify(new X509Certificate(api.clientCA!.caPem).publicKey)).toBe(true);

      expect(lstatSync(current).isSymbolicLink()).toBe(true);
      const pairFile = join(certDir, readlinkSync(current));
      expect(pairFile).toMatch(/kubelet-client-\d{4}(-\d\d){5}\.pem$/);
      expect(statSync(pairFile).mode & 0o777).toBe(0o600);
      expect(statSync(kubeconfig).mode & 0o777).toBe(0o600);
      expect(readFileSync(kubeconfig, "utf8")).toContain(`client-certificate: ${current}`);
      expect(existsSync(join(certDir, "kubelet-client.key.tmp"))).toBe(false);
      // The node's status keeps coming, as system:node with the certificate.
      await eventually(
        "a status update by the node",
        async () =>
          api.requests.some(
            (r) =>
              r.resource === "nodes" &&
              r.subresource === "status" &&
              r.user === `system:node:${NODE_NAME}` &&
              r.certificate === issued.fingerprint256 &&
              r.code === 200,
          ) || undefined,
      );
    }, 60_000);

    test("--rotate-server-certificates: self-signed until the kubelet-serving request is approved, then the issued certificate is served", async () => {
      const serving = await eventually("the serving request", async () => csrs().find((c) => c.spec.signerName === "kubernetes.io/kubelet-serving"));
      // Made by the node (with its client certificate), for its names; never auto-approved.
      expect(serving.spec.username).toBe(`system:node:${NODE_NAME}`);
      expect(serving.spec.usages).toEqual(["digital signature", "key encipherment", "server auth"]);
      expect(serving.status?.conditions ?? []).toEqual([]);
      const before = await servedCertificate(agent().url);
      expect(before.subject).toContain(`CN=${NODE_NAME}@`);

      // kubectl certificate approve: the approval subresource, as an admin.
      const r = await fetch(`${api.url}/apis/certificates.k8s.io/v1/certificatesigningrequests/${serving.metadata!.name}/approval`, {
        method: "PUT",
        headers: { Authorization: `Bearer ${api.adminToken}`, "Content-Type": "application/json" },
        body: JSON.stringify({
          ...serving,
          status: { conditions: [{ type: "Approved", status: "True", reason: "KubectlApprove", message: "approved by the test" }] },
        }),
        tls: { ca: api.caPem },
      } as RequestInit);
      expect(r.status).toBe(200);
      const after = await eventually("the issued serving certificate served", async () => {
        const c = await servedCertificate(agent().url);
        return c.subject.includes(`CN=system:node:${NODE_NAME}`) ? c : undefined;
      });
      expect(after.subject).toContain("O=system:nodes");
      expect(after.subjectAltName).toContain(`DNS:${NODE_NAME}`);
      expect(after.subjectAltName).toContain("IP Address:127.0.0.1");
      expect(after.verify(new X509Certificate(api.clientCA!.caPem).publicKey)).toBe(true);
      // The agent's API answers over the new certificate, verified against the cluster's CA.
      const healthz = await fetch(`${agent().url}/healthz`, { tls: { ca: api.clientCA!.caPem } } as RequestInit);
      expect(healthz.status).toBeLessThan(500);
      expect(statSync(join(agent().dir, "root", "pki", "kubelet-server-current.pem")).isFile()).toBe(true);
    }, 60_000);
  });
}
