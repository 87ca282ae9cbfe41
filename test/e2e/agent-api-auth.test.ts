// The agent's API as the kubelet's (issue 16): HTTPS with the self-signed certificate the agent makes
// under --root-dir, client certificates from --client-ca-file, bearer tokens through a TokenReview and
// every decision through a SubjectAccessReview on the in-process test API server, with the node's own
// credentials; the compiled binary on containerd 1.7.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { X509Certificate } from "node:crypto";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PodList } from "kubernetes-types/core/v1";
import { TestApiServer } from "../fakes/apiserver";
import { TestClientCA, type ClientCert } from "../fakes/client-certs";
import { NODE_NAME, useAgent } from "./agent-harness";
import { eventually } from "./proc";

const dir = mkdtempSync(join(tmpdir(), "nodeagent-api-auth-"));
const kubeconfig = join(dir, "node.kubeconfig");
const clientCA = new TestClientCA();
const caFile = clientCA.writeCA(join(dir, "client-ca.crt"));
let api: TestApiServer;

beforeAll(async () => {
  api = await TestApiServer.start();
  api.writeKubeconfig(kubeconfig, api.nodeToken(NODE_NAME));
  // The API server's kubelet client (kubeadm's CN, group kubeadm:cluster-admins) and the ops group may
  // do everything on the kubelet API; "scraper" only read metrics; anyone else nothing.
  api.setAccessPolicy((spec) => {
    const ra = spec.resourceAttributes;
    const who = [spec.user, ...(spec.groups ?? [])];
    if (who.includes("kubeadm:cluster-admins") || who.includes("ops")) return { allowed: true, reason: "test policy" };
    if (spec.user === "scraper" && ra?.subresource === "metrics" && ra.verb === "get") return { allowed: true };
    return { allowed: false };
  });
});
afterAll(async () => {
  await api?.stop();
  clientCA.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const env = useAgent("1.7", () => ["--kubeconfig", kubeconfig, "--client-ca-file", caFile], { https: true });

describe("the kubelet API's security (containerd 1.7)", () => {
  let apiserverClient: ClientCert;
  let bob: ClientCert;
  let scraper: ClientCert;
  beforeAll(() => {
    apiserverClient = clientCA.issue("kube-apiserver-kubelet-client", ["kubeadm:cluster-admins"]);
    bob = clientCA.issue("bob", ["dev"]);
    scraper = clientCA.issue("scraper");
  });
  /** A request with a client certificate and no bearer token. */
  const asCert = (path: string, c: ClientCert | undefined) => {
    const agent = env.agent();
    return fetch(`${agent.url}${path}`, { tls: { ca: agent.servingCert, ...(c ? { cert: c.certPem, key: c.keyPem } : {}) } });
  };

  test("HTTPS with the self-signed kubelet.crt: the node's name and the address in it, the key 0600; a client that does not trust it cannot connect", async () => {
    const agent = env.agent();
    expect(agent.url).toStartWith("https://127.0.0.1:");
    const [leaf, ca] = agent.servingCert.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)!.map((p) => new X509Certificate(p));
    expect(leaf!.subject).toStartWith(`CN=${NODE_NAME}@`);
    expect(leaf!.subjectAltName).toContain(`DNS:${NODE_NAME}`);
    expect(leaf!.subjectAltName).toContain("IP Address:127.0.0.1");
    expect(leaf!.checkIssued(ca!)).toBe(true);
    expect(statSync(join(agent.dir, "root", "pki", "kubelet.key")).mode & 0o777).toBe(0o600);
    await expect(fetch(`${agent.url}/healthz`)).rejects.toThrow();
  });

  test("a client certificate signed by the client CA, allowed by the SubjectAccessReview: 200", async () => {
    const res = await eventually("/healthz ok for the API server's client certificate", async () => {
      const r = await asCert("/healthz", apiserverClient);
      return r.status === 200 ? r : undefined;
    });
    expect(await res.text()).toBe("ok");
    const pods = await asCert("/pods", apiserverClient);
    expect(pods.status).toBe(200);
    expect(((await pods.json()) as PodList).kind).toBe("PodList");
    // The agent asked the API server, as its node, about that user and the node's proxy subresource.
    const sars = api.requests.filter((r) => r.resource === "subjectaccessreviews");
    expect(sars.length).toBeGreaterThan(0);
    expect(sars.every((r) => r.user === `system:node:${NODE_NAME}` && r.verb === "create" && r.code === 201)).toBe(true);
  });

  test("no credentials: 401 Unauthorized, /healthz included", async () => {
    for (const path of ["/pods", "/healthz", "/metrics", "/nope"]) {
      const r = await asCert(path, undefined);
      expect({ path, status: r.status, body: await r.text() }).toEqual({ path, status: 401, body: "Unauthorized" });
    }
  });

  test("a certificate whose SubjectAccessReview is denied: 403 with the kubelet's text; a narrower grant works for its subresource only", async () => {
    const denied = await asCert("/pods", bob);
    expect(denied.status).toBe(403);
    expect(await denied.text()).toBe("Forbidden (user=bob, verb=get, resource=nodes, subresource=proxy)");
    expect((await asCert("/metrics", scraper)).status).toBe(200);
    const proxy = await asCert("/pods", scraper);
    expect(proxy.status).toBe(403);
    expect(await proxy.text()).toBe("Forbidden (user=scraper, verb=get, resource=nodes, subresource=proxy)");
  });

  test("a bearer token through a TokenReview: 200 for a user the SAR allows; an unknown token 401", async () => {
    const agent = env.agent();
    const carol = api.userToken("carol", ["ops"]);
    const ok = await agent.fetch("/pods", { headers: { Authorization: `Bearer ${carol}` } });
    expect(ok.status).toBe(200);
    const reviews = api.requests.filter((r) => r.resource === "tokenreviews");
    expect(reviews.map((r) => [r.user, r.verb, r.code])).toContainEqual([`system:node:${NODE_NAME}`, "create", 201]);
    const unknown = await agent.fetch("/pods", { headers: { Authorization: "Bearer not-a-token" } });
    expect(unknown.status).toBe(401);
    expect(await unknown.text()).toBe("Unauthorized");
    // The answer is cached (authentication.webhook.cacheTTL 2m): a second call sends no second review.
    const before = api.requests.filter((r) => r.resource === "tokenreviews").length;
    expect((await agent.fetch("/pods", { headers: { Authorization: `Bearer ${carol}` } })).status).toBe(200);
    expect(api.requests.filter((r) => r.resource === "tokenreviews").length).toBe(before);
  });

  test("the push token keeps working beside them, allowed everything without asking", async () => {
    const agent = env.agent();
    const before = api.requests.filter((r) => r.resource === "subjectaccessreviews").length;
    expect((await agent.fetch("/pods")).status).toBe(200);
    expect((await agent.fetch("/node")).status).toBe(200);
    expect(api.requests.filter((r) => r.resource === "subjectaccessreviews").length).toBe(before);
  });
});
