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
import { AgentClient } from "../../src/client/agent-client";
import { runRemoteCommand } from "../../src/client/remote-command";
import { manifest, NODE_NAME, running, useAgent } from "./agent-harness";
import { portForwardLine } from "./port-forward";
import { BinaryProcess, eventually } from "./proc";

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

  test("with the API server's client certificate: a pod's logs, logs -f through nodeagent logs, exec and port-forward; bob's certificate 403 on each", async () => {
    const agent = env.agent();
    agent.writeManifest(
      "talk.yaml",
      manifest("talk", "echo first-line; (while true; do echo hello-pf | nc -l -p 8080; done) & while true; do sleep 0.3; echo tick; done"),
    );
    await agent.waitPod("talk", "running", running);
    const pod = `default/talk-${NODE_NAME}`;
    const logs = await eventually("the first line in the log", async () => {
      const r = await asCert(`/containerLogs/${pod}/main?tailLines=100`, apiserverClient);
      const t = r.status === 200 ? await r.text() : "";
      return t.includes("first-line") ? t : undefined;
    });
    expect(logs.split("\n")[0]).toBe("first-line");
    expect((await asCert(`/containerLogs/${pod}/main`, bob)).status).toBe(403);

    // nodeagent logs -f with the certificate and the agent's kubelet.crt trusted: new lines arrive.
    const files = clientCA.writeClient(join(dir, "apiserver-client"), apiserverClient);
    const follow = new BinaryProcess([
      "logs",
      "-f",
      "--tail",
      "1",
      "--server",
      agent.url,
      "--certificate-authority",
      join(agent.dir, "root", "pki", "kubelet.crt"),
      "--client-certificate",
      files.cert,
      "--client-key",
      files.key,
      pod,
    ]);
    try {
      await follow.waitFor("two ticks streamed", () => follow.lines.filter((l) => l === "tick").length >= 2);
    } finally {
      expect(await follow.interrupt()).toBe(0);
    }

    const client = new AgentClient({ server: agent.url, ca: agent.servingCert, cert: apiserverClient.certPem, key: apiserverClient.keyPem });
    const { url, options } = client.websocket(`/exec/${pod}/main?command=sh&command=-c&command=echo%20in-pod%3B%20exit%205&output=1&error=1`);
    let out = "";
    const r = await runRemoteCommand(url, options, { stdout: (b) => (out += new TextDecoder().decode(b)), stderr: () => {} });
    expect({ out, exitCode: r.exitCode }).toEqual({ out: "in-pod\n", exitCode: 5 });
    const bobClient = new AgentClient({ server: agent.url, ca: agent.servingCert, cert: bob.certPem, key: bob.keyPem });
    const denied = bobClient.websocket(`/exec/${pod}/main?command=true&output=1`);
    await expect(runRemoteCommand(denied.url, denied.options, { stdout: () => {}, stderr: () => {} })).rejects.toThrow();

    const answer = await portForwardLine(client, `/portForward/${pod}?port=8080`, 8080, "hi\n");
    expect(answer).toBe("hello-pf\n");
    agent.removeManifest("talk.yaml");
  }, 90_000);

  test("the push token keeps working beside them, allowed everything without asking", async () => {
    const agent = env.agent();
    const before = api.requests.filter((r) => r.resource === "subjectaccessreviews").length;
    expect((await agent.fetch("/pods")).status).toBe(200);
    expect((await agent.fetch("/node")).status).toBe(200);
    expect(api.requests.filter((r) => r.resource === "subjectaccessreviews").length).toBe(before);
  });
});
