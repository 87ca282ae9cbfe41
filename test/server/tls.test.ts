// The serving certificate (tls.ts, x509.ts) and client certificates through the listener: what the
// kubelet's InitializeTLS makes and keeps, and the CN/O the gate sees.
import { afterAll, describe, expect, test } from "bun:test";
import { X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AgentMetrics } from "../../src/server/metrics";
import { Authenticator } from "../../src/server/authn";
import { Authorizer } from "../../src/server/authz";
import { startAgentServer } from "../../src/server/server";
import { certificateHosts, readClientCA, servingCertificate } from "../../src/server/tls";
import { FakeClock } from "../../src/util/clock";
import { FakeAgentView } from "../fakes/agent-view";
import { TestClientCA } from "../fakes/client-certs";

const dir = mkdtempSync(join(tmpdir(), "agent-tls-"));
const ca = new TestClientCA();
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  ca.cleanup();
});
const silent = { info() {}, warn() {}, error() {}, debug() {} };
const pems = (s: string) => (s.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).map((p) => new X509Certificate(p));

describe("the self-signed serving certificate", () => {
  const now = Date.UTC(2026, 10, 23, 12, 0, 0);
  test("client-go's shape: a leaf for the node's names signed by a CA, both in kubelet.crt; the key 0600; kept once made", () => {
    const certDir = join(dir, "pki");
    const made = servingCertificate({ certDir, hostname: "node-a", alternateNames: ["192.0.2.10", "127.0.0.1", "0.0.0.0", "192.0.2.10"], now });
    expect(made.generated).toBe(true);
    expect(made.certFile).toBe(join(certDir, "kubelet.crt"));
    expect(made.keyFile).toBe(join(certDir, "kubelet.key"));
    expect(statSync(made.keyFile).mode & 0o777).toBe(0o600);
    const [leaf, caCert] = pems(readFileSync(made.certFile, "utf8"));
    const unix = Math.floor(now / 1000);
    expect(leaf!.subject).toBe(`CN=node-a@${unix}`);
    expect(leaf!.issuer).toBe(`CN=node-a-ca@${unix}`);
    expect(caCert!.subject).toBe(`CN=node-a-ca@${unix}`);
    expect(caCert!.ca).toBe(true);
    expect(leaf!.ca).toBe(false);
    expect(leaf!.checkIssued(caCert!)).toBe(true);
    expect(leaf!.verify(caCert!.publicKey)).toBe(true);
    expect(leaf!.subjectAltName).toBe("DNS:node-a, IP Address:192.0.2.10, IP Address:127.0.0.1");
    expect(leaf!.keyUsage).toEqual(["1.3.6.1.5.5.7.3.1"]);
    expect(new Date(leaf!.validFrom).getTime()).toBe(now - 3600_000);
    expect(new Date(leaf!.validTo).getTime()).toBe(now + 365 * 24 * 3600_000);
    expect(leaf!.publicKey.asymmetricKeyDetails?.modulusLength).toBe(2048);
    // Kept and reused: the next start serves the same pair.
    const again = servingCertificate({ certDir, hostname: "node-a", now: now + 1000 });
    expect(again.generated).toBe(false);
    expect(again.cert).toBe(made.cert);
  });
  test("given files are served as they are; a missing one is a clear error", () => {
    const certFile = join(dir, "given.crt");
    writeFileSync(certFile, "CERT");
    writeFileSync(join(dir, "given.key"), "KEY");
    expect(servingCertificate({ certFile, keyFile: join(dir, "given.key"), certDir: join(dir, "unused"), hostname: "n" })).toMatchObject({
      cert: "CERT",
      key: "KEY",
      generated: false,
    });
    expect(() => servingCertificate({ certFile: join(dir, "nope.crt"), keyFile: join(dir, "given.key"), certDir: dir, hostname: "n" })).toThrow(
      `cannot read the TLS certificate ${join(dir, "nope.crt")}`,
    );
  });
  test("certificateHosts: hostname first, no wildcard, no repeats; IPv6 in brackets unwrapped", () => {
    expect(certificateHosts("n", ["::", "[::1]", "n", "10.0.0.1"])).toEqual(["n", "::1", "10.0.0.1"]);
  });
  test("readClientCA refuses a file without a certificate", () => {
    writeFileSync(join(dir, "bad-ca.crt"), "not a certificate\n");
    expect(() => readClientCA(join(dir, "bad-ca.crt"))).toThrow("no PEM certificate in it");
    expect(readClientCA(ca.writeCA(join(dir, "ca.crt")))).toBe(ca.caPem);
  });
});

describe("client certificates over TLS", () => {
  test("a certificate signed by the client CA authenticates as CN with O groups; another CA's is 401; none is 401", async () => {
    const serving = servingCertificate({ certDir: join(dir, "pki2"), hostname: "node-b", alternateNames: ["127.0.0.1"] });
    const clientCAFile = ca.writeCA(join(dir, "client-ca.crt"));
    const clock = new FakeClock();
    const seen: string[] = [];
    const server = await startAgentServer({
      address: "127.0.0.1",
      port: 0,
      view: new FakeAgentView(),
      metrics: new AgentMetrics(),
      log: silent,
      nodeName: "node-b",
      tls: { certFile: serving.certFile, keyFile: serving.keyFile, clientCAFile },
      authenticator: new Authenticator({ x509: true, anonymous: false, clock }),
      // Records who asked, then allows only the ops group.
      authorizer: new Authorizer({
        mode: "Webhook",
        clock,
        webhook: {
          cacheAuthorizedTTLMs: 0,
          cacheUnauthorizedTTLMs: 0,
          reviewer: {
            createSubjectAccessReview: async (r) => {
              seen.push(`${r.spec.user} [${r.spec.groups?.join(",")}] ${r.spec.resourceAttributes?.verb} ${r.spec.resourceAttributes?.subresource}`);
              return { ...r, status: { allowed: (r.spec.groups ?? []).includes("ops") } };
            },
          },
        },
      }),
    });
    try {
      expect(server.url).toStartWith("https://");
      const alice = ca.issue("alice", ["ops", "dev"]);
      const bob = ca.issue("bob", ["dev"]);
      const other = new TestClientCA("other-ca");
      const mallory = other.issue("alice", ["ops"]);
      other.cleanup();
      const get = (c?: { certPem: string; keyPem: string }) =>
        fetch(`${server.url}/metrics`, { tls: { ca: serving.cert, ...(c ? { cert: c.certPem, key: c.keyPem } : {}) } });
      const ok = await get(alice);
      expect(ok.status).toBe(200);
      const denied = await get(bob);
      expect(denied.status).toBe(403);
      expect(await denied.text()).toBe("Forbidden (user=bob, verb=get, resource=nodes, subresource=metrics)");
      const forged = await get(mallory);
      expect(forged.status).toBe(401);
      expect(await forged.text()).toBe("Unauthorized");
      expect((await get()).status).toBe(401);
      expect(seen).toEqual(["alice [ops,dev,system:authenticated] get metrics", "bob [dev,system:authenticated] get metrics"]);
    } finally {
      await server.stop();
    }
  });
});
