// Probes in `nodeagent agent` on real containerd 1.7: a readiness probe flips the pod's Ready
// condition both ways, an agent restart keeps readiness in both directions until the container is
// probed again (k/k #100277, #135795), and a failed liveness probe restarts the container.
import { beforeAll, describe, expect, test } from "bun:test";
import type { Pod } from "kubernetes-types/core/v1";
import { manifest, running, useAgent, type TestAgent } from "./agent-harness";
import type { TestNode } from "./node";
import { eventually } from "./proc";

const readyOf = (p: Pod) => p.status?.conditions?.find((c) => c.type === "Ready")?.status;

describe("agent probes on containerd 1.7", () => {
  const env = useAgent("1.7");
  let node: TestNode;
  let agent: TestAgent;
  beforeAll(() => {
    node = env.node();
    agent = env.agent();
  });
  /** The pod's running container, as the agent reports it. */
  const containerOf = async (name: string) => {
    const p = await agent.waitPod(name, "running", running);
    return p.status!.containerStatuses![0]!.containerID!.replace(/^containerd:\/\//, "");
  };
  /** Runs a shell command in a container through the runtime, not the agent (which may be down). */
  const inContainer = async (id: string, script: string) => {
    const r = await node.client.execSync(id, ["sh", "-c", script], 10);
    expect(r.exitCode).toBe(0);
  };
  /** The pod as the restarted agent first lists it. */
  const firstSight = (name: string) => eventually(`${name} in the restarted agent's /pods`, async () => agent.pod(name), 20_000, 50);

  test("readiness flips Ready both ways; an agent restart keeps it in both directions until probed again", async () => {
    // Two results in a row, every 5 s: after a restart no probe can flip readiness in under 5 s.
    agent.writeManifest(
      "ready.yaml",
      manifest("ready", "mkdir -p /www && echo ok > /www/ok && exec httpd -f -p 8080 -h /www", {
        container: `      readinessProbe:
        httpGet: { path: /ok, port: 8080 }
        periodSeconds: 5
        successThreshold: 2
        failureThreshold: 2
`,
      }),
    );
    await agent.waitPod("ready", "Ready", (p) => readyOf(p) === "True", 30_000);
    const id = await containerOf("ready");
    await inContainer(id, "rm /www/ok");
    const notReady = await agent.waitPod("ready", "not Ready", (p) => readyOf(p) === "False", 30_000);
    expect(notReady.status!.containerStatuses![0]!.ready).toBe(false);
    expect(notReady.status!.conditions!.find((c) => c.type === "ContainersReady")!.status).toBe("False");
    await inContainer(id, "echo ok > /www/ok");
    await agent.waitPod("ready", "Ready again", (p) => readyOf(p) === "True", 30_000);

    // Ready, and the container turns unhealthy while the agent is down: still Ready at first sight.
    await agent.stop();
    await inContainer(id, "rm /www/ok");
    await agent.start();
    const kept = await firstSight("ready");
    expect(readyOf(kept)).toBe("True");
    expect(kept.status!.containerStatuses![0]!.ready).toBe(true);
    await agent.waitPod("ready", "not Ready once probed", (p) => readyOf(p) === "False", 30_000);

    // Not ready, and it recovers while the agent is down: still not Ready at first sight.
    await agent.stop();
    await inContainer(id, "echo ok > /www/ok");
    await agent.start();
    const stillNot = await firstSight("ready");
    expect(readyOf(stillNot)).toBe("False");
    await agent.waitPod("ready", "Ready once probed", (p) => readyOf(p) === "True", 30_000);
    // Readiness never restarts anything.
    const last = (await agent.pod("ready"))!.status!.containerStatuses![0]!;
    expect(last.restartCount).toBe(0);
    expect(last.containerID).toBe(`containerd://${id}`);
    agent.removeManifest("ready.yaml");
  }, 180_000);

  test("a failed liveness probe kills the container, with the reason in its status, and it restarts", async () => {
    agent.writeManifest(
      "live.yaml",
      manifest("live", "touch /tmp/alive && exec sleep 3600", {
        container: `      livenessProbe:
        exec: { command: ["cat", "/tmp/alive"] }
        initialDelaySeconds: 2
        periodSeconds: 1
        failureThreshold: 2
`,
      }),
    );
    const before = await agent.waitPod("live", "running", running);
    const live = await containerOf("live");
    await eventually(
      "the container's first command to have run",
      async () => (await node.client.execSync(live, ["test", "-f", "/tmp/alive"], 10)).exitCode === 0,
    );
    await inContainer(live, "rm /tmp/alive");
    const after = await agent.waitPod("live", "restarted", (p) => (p.status?.containerStatuses?.[0]?.restartCount ?? 0) >= 1 && running(p), 30_000);
    const cs = after.status!.containerStatuses![0]!;
    expect(cs.containerID).not.toBe(before.status!.containerStatuses![0]!.containerID!);
    expect(cs.lastState!.terminated!.message).toContain("Container main failed liveness probe, will be restarted");
    const metrics = await (await agent.fetch("/metrics")).text();
    expect(metrics).toMatch(
      /^prober_probe_total\{probe_type="liveness",result="failed",container="main",pod="live-e2e-node",namespace="default",pod_uid="[^"]+"\} [1-9]/m,
    );
    agent.removeManifest("live.yaml");
  }, 90_000);
});
