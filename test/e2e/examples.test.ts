// The docs' examples on `make run`'s pods (docs/commands/agent.md, docs/commands/probe.md): the compiled
// agent runs examples/manifests as they are in the repository, on containerd 1.6 (Debian 12's, what
// `make run` uses), and the docs' commands are run against it — the API reads of the web pod, its
// readiness probe, the three `probe run` examples — then the two ways the docs give to remove the
// pods: remove a manifest while the agent runs, and after it has stopped (the pods keep running),
// start it again on a directory without them. (test/docs/examples.test.ts checks every documented
// command line against the command tree, and runs the examples that need no node.)
//
// Only what the test must change differs from the docs: its own containerd, API port and node name
// (--hostname-override), passed as --runtime-endpoint and --agent.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Pod } from "kubernetes-types/core/v1";
import { NODE_NAME, running, TestAgent } from "./agent-harness";
import { BINARY, REPO, startNode, type TestNode } from "./node";
import { eventually } from "./proc";

const EXAMPLES = join(REPO, "examples/manifests");

/** Runs `nodeagent probe run ARGS` against the test node and agent, to its end. */
async function probeRun(node: TestNode, agent: TestAgent, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = Bun.spawn(
    [BINARY, "probe", "run", "--runtime-endpoint", node.endpoint, "--agent", agent.url, "--token-file", join(agent.dir, "harness-token"), ...args],
    { stdin: "ignore", stdout: "pipe", stderr: "pipe" },
  );
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

/** The runtime's sandboxes of a pod, by its name (the agent's pods are <name>-<node>). */
async function sandboxes(node: TestNode, name: string) {
  return (await node.client.listPodSandbox()).filter((s) => s.metadata?.name === `${name}-${NODE_NAME}`);
}

const ready = (p: Pod) => running(p) && p.status?.conditions?.find((c) => c.type === "Ready")?.status === "True";

describe("the docs' examples on make run's pods (containerd 1.6)", () => {
  let node: TestNode;
  let agent: TestAgent;

  beforeAll(async () => {
    node = await startNode("1.6");
    agent = new TestAgent(node);
    // As `make run`: the manifests are there when the agent starts.
    for (const f of readdirSync(EXAMPLES)) agent.writeManifest(f, readFileSync(join(EXAMPLES, f), "utf8"));
    await agent.start();
  });
  afterAll(async () => {
    await agent?.stop().catch(() => {});
    await node?.stop();
    agent?.cleanup();
  });

  test("web and counter run; web serves the page its init container wrote and turns Ready through its readiness probe", async () => {
    const web = await agent.waitPod("web", "running and Ready", ready, 60_000);
    await agent.waitPod("counter", "running", running, 60_000);
    expect(web.spec?.containers[0]?.readinessProbe?.httpGet).toEqual({ path: "/", port: "http", scheme: "HTTP" });
    // The container ID carries the runtime's name as CRI Version gives it.
    const [sandbox] = await sandboxes(node, "web");
    const ids = (await node.client.listContainers({ podSandboxId: sandbox!.id })).map((c) => `containerd://${c.id}`);
    expect(ids).toContain(web.status!.containerStatuses![0]!.containerID!);
    const page = await eventually("the page", async () => (await fetch(`http://${web.status!.podIP}:8080/`)).text());
    expect(page).toBe(`hello from web-${NODE_NAME} on ${NODE_NAME}\n`);
    const health = await (await agent.fetch("/healthz?verbose")).text();
    expect(health.split("\n").slice(0, 4)).toEqual(["[+]ping ok", "[+]PLEG ok", "[+]syncloop ok", "[+]sources ok"]);
  }, 90_000);

  test("probe run: the readiness probe of web's spec succeeds", async () => {
    const r = await probeRun(node, agent, ["--pod", `web-${NODE_NAME}`, "--probe", "readiness"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`info probing probe=readiness pod=default/web-${NODE_NAME} container=httpd `);
    expect(r.stderr).toMatch(/handler=httpGet target=http:\/\/[0-9.]+:8080\/ period=5s timeout=1s successThreshold=1 failureThreshold=3/);
    expect(r.stdout).toContain("verdict: success (1 success in a row reached successThreshold 1)");
  }, 30_000);

  test("probe run: an ad-hoc httpGet of a missing page fails three times", async () => {
    const r = await probeRun(node, agent, ["--pod", `web-${NODE_NAME}`, "--http-get", ":8080/missing", "--period", "1s"]);
    expect(r.code).toBe(1);
    expect(r.stdout.match(/HTTP probe failed with statuscode: 404/g)).toHaveLength(3);
    expect(r.stdout).toContain("verdict: failure (3 failures in a row reached failureThreshold 3)");
  }, 30_000);

  test("probe run: an exec probe that outlives its timeout fails", async () => {
    const r = await probeRun(node, agent, ["--pod", `web-${NODE_NAME}`, "--timeout", "1s", "--count", "1", "--exec", "--", "sleep", "5"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('command "sleep 5" timed out');
    expect(r.stdout).toContain("verdict: failure (unchanged: 1 failure in a row, below failureThreshold 3)");
  }, 30_000);

  test("a manifest removed while the agent runs takes its pod away", async () => {
    expect(await sandboxes(node, "counter")).toHaveLength(1);
    agent.removeManifest("counter.yaml");
    await eventually("counter gone from /pods", async () => (await agent.pod("counter")) === undefined, 30_000, 200);
    await eventually("counter's sandbox gone from the runtime", async () => (await sandboxes(node, "counter")).length === 0, 30_000, 200);
    expect(await agent.pod("web")).toBeDefined();
  }, 60_000);

  test("after the agent stops its pods keep running; started again without their manifests, it removes them", async () => {
    expect(await agent.stop()).toBe(0);
    const [sandbox] = await sandboxes(node, "web");
    expect(sandbox?.state).toBe("SANDBOX_READY");
    const containers = (await node.client.listContainers({ podSandboxId: sandbox!.id })).map((c) => c.state);
    expect(containers).toContain("CONTAINER_RUNNING");

    agent.removeManifest("web.yaml");
    await agent.start();
    await eventually("web's sandbox removed by the restarted agent", async () => (await sandboxes(node, "web")).length === 0, 60_000, 200);
    // GET /pods lists the pod until its worker has finished the clean-up after the sandbox (volumes,
    // folders), a moment later.
    await eventually("no pod in GET /pods", async () => ((await agent.pods()).length === 0 ? true : undefined), 30_000, 200);
    // The log line docs/commands/agent.md shows. (On the same directory the file source still knows the manifest
    // from its last good state and reports it gone; on another directory, as the docs do it, the
    // pod is an orphan first: "runs but no source has it". Either way it ends like this.)
    expect(agent.proc.stderr).toMatch(new RegExp(`"msg":"pod terminated and removed","pod":"default/web-${NODE_NAME}","uid":"[0-9a-f-]{32,36}"`));
  }, 90_000);
});
