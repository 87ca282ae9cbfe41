// The agent's URL and push sources on real containerd 1.7: a manifest URL served from 127.0.0.1 and
// then stopped (its pods stay), and POST/DELETE /pods with and without the bearer token.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { TestAgent, manifest, running } from "./agent-harness";
import { startNode, type TestNode } from "./node";
import { eventually } from "./proc";

describe("agent sources on containerd 1.7", () => {
  let node: TestNode;
  let agent: TestAgent;
  const served = manifest("fromurl", "sleep 3600");
  let requests = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      requests++;
      if (req.headers.get("x-node") !== "e2e") return new Response("missing header", { status: 403 });
      return new Response(served);
    },
  });
  const token = "s3cret-token";
  beforeAll(async () => {
    node = await startNode("1.7");
    const tokenFile = join(node.rootDir, "token");
    writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
    agent = new TestAgent(node, [
      "--manifest-url",
      `http://127.0.0.1:${server.port}/pod.yaml`,
      "--manifest-url-header",
      "X-Node:e2e",
      "--http-check-frequency",
      "1s",
      "--push-token-file",
      tokenFile,
    ]);
    await agent.start();
  });
  afterAll(async () => {
    server.stop(true);
    if (agent) await agent.stop().catch(() => {});
    await node?.stop();
    agent?.cleanup();
  });

  test("a pushed pod outlives an agent restart: adopted, not removed as an orphan", async () => {
    const post = await fetch(`${agent.url}/pods`, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: manifest("kept", "sleep 3600") });
    expect(post.status).toBe(201);
    const before = await agent.waitPod("kept", "running", running);
    await agent.stop();
    await agent.start();
    // Once every source (the URL's too) has been seen, orphans are removed in the same pass.
    await agent.proc.waitFor("every source seen", () => agent.proc.stderr.includes("every pod source has been seen") || undefined);
    const after = await agent.waitPod("kept", "running", running);
    expect(after.metadata!.uid).toBe(before.metadata!.uid!);
    expect(after.status!.containerStatuses![0]!.containerID).toBe(before.status!.containerStatuses![0]!.containerID!);
    expect(after.status!.containerStatuses![0]!.restartCount).toBe(0);
    expect((await fetch(`${agent.url}/pods/default/kept`, { method: "DELETE", headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    await eventually("the kept pod to go", async () => !(await agent.pod("kept")));
  }, 60_000);

  test("a URL's pod runs; when the URL goes away the pod stays and the error is reported", async () => {
    const p = await agent.waitPod("fromurl", "running", running);
    expect(p.metadata!.name).toBe("fromurl-e2e-node");
    expect(p.metadata!.annotations!["kubernetes.io/config.source"]).toBe("http");
    const url = `http://127.0.0.1:${server.port}/pod.yaml`;
    server.stop(true);
    await agent.proc.waitFor(
      "a warning naming the URL",
      () => agent.proc.stderr.split("\n").some((l) => l.includes('"level":"warn"') && l.includes(url)) || undefined,
      20_000,
    );
    const after = await agent.pod("fromurl");
    expect(after?.metadata!.uid).toBe(p.metadata!.uid!);
    expect(running(after!)).toBe(true);
    expect(requests).toBeGreaterThan(0);
  }, 60_000);

  test("POST /pods needs the token; a pushed pod runs under its own name; DELETE stops it", async () => {
    const body = manifest("pushed", "sleep 3600");
    const post = (auth?: string) =>
      fetch(`${agent.url}/pods`, { method: "POST", headers: { "content-type": "application/yaml", ...(auth ? { authorization: auth } : {}) }, body });
    expect((await post()).status).toBe(401);
    // A token nobody issued does not authenticate: 401, as the kubelet (it was 403 before the kubelet's model).
    expect((await post("Bearer wrong")).status).toBe(401);
    const ok = await post(`Bearer ${token}`);
    expect(ok.status).toBe(201);
    const p = await agent.waitPod("pushed", "running", running);
    expect(p.metadata!.name).toBe("pushed");
    expect(p.metadata!.annotations!["kubernetes.io/config.source"]).toBe("push");
    // A pod for another node is refused.
    const other = body.replace("spec:\n", "spec:\n  nodeName: another-node\n");
    expect((await fetch(`${agent.url}/pods`, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: other })).status).toBe(403);
    expect((await fetch(`${agent.url}/pods/default/pushed`, { method: "DELETE" })).status).toBe(401);
    expect((await fetch(`${agent.url}/pods/default/pushed`, { method: "DELETE", headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    await eventually("the pushed pod to go", async () => !(await agent.pod("pushed")));
    expect((await node.client.listPodSandbox({ labelSelector: { "io.kubernetes.pod.uid": p.metadata!.uid! } })).length).toBe(0);
  }, 60_000);
});
