// The node's certificate set-up: the serving request's names from the Node's addresses, rotation left
// alone for a kubeconfig whose certificate is not the bootstrapped one, and the HTTPS listener
// presenting a new certificate from the next handshake on (what a serving rotation calls).
import { afterAll, describe, expect, test } from "bun:test";
import { X509Certificate } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "node:tls";
import { servingTemplate, startClientCertificateRotation } from "../../src/certificate/node-certificates";
import type { KubeClient } from "../../src/kube/client";
import { listen } from "../../src/server/listener";
import { selfSignedServingCertificate } from "../../src/server/tls";
import { FakeClock } from "../../src/util/clock";
import { createLogger, type LogFields } from "../../src/util/log";

const dir = mkdtempSync(join(tmpdir(), "node-certs-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("node certificates", () => {
  test("the serving request names the Node's DNS-type addresses and its IPs, each once", () => {
    const t = servingTemplate("n1", [
      { type: "InternalIP", address: "10.0.0.5" },
      { type: "ExternalIP", address: "fd00::5" },
      { type: "Hostname", address: "n1" },
      { type: "InternalDNS", address: "n1.internal" },
      { type: "Hostname", address: "n1" },
    ]);
    expect(t).toEqual({ commonName: "system:node:n1", organizations: ["system:nodes"], dnsNames: ["n1", "n1.internal"], ipAddresses: ["10.0.0.5", "fd00::5"] });
  });

  test("rotateCertificates with a kubeconfig whose certificate is elsewhere: not rotated, said once", () => {
    const kubeconfig = join(dir, "own.kubeconfig");
    writeFileSync(
      kubeconfig,
      `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:6443"}}]
users: [{name: u, user: {client-certificate: /etc/kubernetes/pki/kubelet.crt, client-key: /etc/kubernetes/pki/kubelet.key}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`,
    );
    const warnings: { msg: string; fields?: LogFields }[] = [];
    const log = createLogger("text", -1);
    log.warn = (msg, fields) => void warnings.push({ msg, fields });
    const m = startClientCertificateRotation({ certDir: join(dir, "pki"), nodeName: "n1", clock: new FakeClock(), log, kubeconfig, client: {} as KubeClient });
    expect(m).toBeUndefined();
    expect(warnings).toEqual([
      {
        msg: "rotateCertificates: the kubeconfig's client certificate is not the one --bootstrap-kubeconfig made; it is not rotated",
        fields: { kubeconfig, expected: join(dir, "pki", "kubelet-client-current.pem") },
      },
    ]);
  });

  test("the HTTPS listener presents a new certificate from the next handshake on", async () => {
    const first = selfSignedServingCertificate("first", ["127.0.0.1"], Date.now());
    const second = selfSignedServingCertificate("second", ["127.0.0.1"], Date.now());
    const l = await listen({ address: "127.0.0.1", port: 0, tls: first, handle: async () => new Response("ok"), onError: () => undefined });
    const presented = () =>
      new Promise<string>((resolve, reject) => {
        const s = connect({ host: "127.0.0.1", port: l.port, rejectUnauthorized: false }, () => {
          resolve(new X509Certificate(s.getPeerCertificate().raw).subject);
          s.destroy();
        });
        s.on("error", reject);
      });
    try {
      expect(await presented()).toStartWith("CN=first@");
      l.setCertificate(second.cert, second.key);
      expect(await presented()).toStartWith("CN=second@");
    } finally {
      await l.close();
    }
  });
});
