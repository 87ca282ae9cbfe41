// `nodeagent schedule` against two real agents on this machine, each with its own containerd:
// sched-a (all CPUs, labelled disk=ssd) and sched-b (500m allocatable through --kube-reserved,
// tainted dedicated=batch:NoSchedule). --bind places pods by resources, taints and affinity and they
// run on the node chosen; --watch places a pod that did not fit once another pod is deleted.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import type { Node } from "kubernetes-types/core/v1";
import { TestAgent, running } from "./agent-harness";
import { BUSYBOX_IMAGE, startNode, type TestNode } from "./node";
import { BinaryProcess, eventually } from "./proc";

const TOKEN = "sched-e2e-token";

interface PodSpecOptions {
  cpu: string;
  labels?: Record<string, string>;
  extra?: string;
}

function podYAML(name: string, o: PodSpecOptions): string {
  const labels = o.labels ? `\n  labels: ${JSON.stringify(o.labels)}` : "";
  return `apiVersion: v1
kind: Pod
metadata:
  name: ${name}${labels}
spec:
  terminationGracePeriodSeconds: 1${o.extra ? `\n${o.extra}` : ""}
  containers:
    - name: main
      image: ${BUSYBOX_IMAGE}
      command: ["sleep", "3600"]
      resources: { requests: { cpu: ${JSON.stringify(o.cpu)} } }
`;
}

const TOLERATE_BATCH = `  tolerations: [{ key: dedicated, operator: Equal, value: batch, effect: NoSchedule }]`;
const WEB_ANTI_AFFINITY = `  affinity:
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        - labelSelector: { matchLabels: { app: web } }
          topologyKey: kubernetes.io/hostname`;

describe("schedule onto two live agents", () => {
  let nodeA: TestNode;
  let nodeB: TestNode;
  let a: TestAgent;
  let b: TestAgent;
  let dir: string;
  let tokenFile: string;
  const nodeArgs = () => ["--node", a.url, "--node", b.url, "--token-file", tokenFile];

  beforeAll(async () => {
    [nodeA, nodeB] = await Promise.all([startNode("1.6"), startNode("1.7")]);
    dir = join(nodeA.rootDir, "schedule");
    mkdirSync(dir, { recursive: true });
    tokenFile = join(dir, "token");
    writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
    const reserve = cpus().length * 1000 - 500;
    a = new TestAgent(nodeA, ["--hostname-override", "sched-a", "--push-token-file", tokenFile, "--node-labels", "disk=ssd,zone=z1"]);
    b = new TestAgent(nodeB, [
      "--hostname-override",
      "sched-b",
      "--push-token-file",
      tokenFile,
      "--node-labels",
      "zone=z2",
      "--register-with-taints",
      "dedicated=batch:NoSchedule",
      "--kube-reserved",
      `cpu=${reserve}m`,
    ]);
    await Promise.all([a.start(), b.start()]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([a?.stop().catch(() => {}), b?.stop().catch(() => {})]);
    await Promise.all([nodeA?.stop(), nodeB?.stop()]);
    a?.cleanup();
  });

  test("the agents report what the scheduler needs: sched-b has 500m and its taint", async () => {
    const nb = (await (await fetch(`${b.url}/node`, { headers: b.auth() })).json()) as Node;
    expect(nb.status!.allocatable!.cpu).toBe("500m");
    expect(nb.spec!.taints).toEqual([{ key: "dedicated", value: "batch", effect: "NoSchedule" }]);
  });

  test("--bind places pods by resources, taints and affinity, and they run where they were placed", async () => {
    const pods = join(dir, "pods.yaml");
    writeFileSync(
      pods,
      [
        podYAML("big", { cpu: "1" }),
        podYAML("ssd", { cpu: "100m", extra: "  nodeSelector: { disk: ssd }" }),
        podYAML("batch", { cpu: "100m", extra: `${TOLERATE_BATCH}\n  nodeSelector: { zone: z2 }` }),
        podYAML("web-1", { cpu: "50m", labels: { app: "web" }, extra: `${TOLERATE_BATCH}\n${WEB_ANTI_AFFINITY}` }),
        podYAML("web-2", { cpu: "50m", labels: { app: "web" }, extra: `${TOLERATE_BATCH}\n${WEB_ANTI_AFFINITY}` }),
        podYAML("nowhere", { cpu: "100" }),
      ].join("---\n"),
    );
    const proc = new BinaryProcess(["schedule", ...nodeArgs(), "--bind", "-o", "json", pods]);
    const code = await proc.proc.exited;
    const out = Object.fromEntries(proc.json<{ name: string; outcome: string; node: string | null; message: string }>().map((r) => [r.name, r]));
    expect(code).toBe(1);
    expect(out.big!.node).toBe("sched-a");
    expect(out.ssd!.node).toBe("sched-a");
    expect(out.batch!.node).toBe("sched-b");
    expect([out["web-1"]!.node, out["web-2"]!.node].sort()).toEqual(["sched-a", "sched-b"]);
    expect(out.nowhere!.outcome).toBe("Unschedulable");
    expect(out.nowhere!.message).toBe(
      "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint(s). preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.",
    );
    for (const [name, agent] of [
      ["big", a],
      ["ssd", a],
      ["batch", b],
    ] as const) {
      const p = await agent.waitPod(name, "running", running, 60_000);
      expect(p.spec!.nodeName).toBe(agent === a ? "sched-a" : "sched-b");
    }
    for (const name of ["web-1", "web-2"]) {
      const agent = out[name]!.node === "sched-a" ? a : b;
      await agent.waitPod(name, "running", running, 60_000);
    }
    expect(await a.pod("batch")).toBeUndefined();
    expect(await b.pod("big")).toBeUndefined();
  }, 120_000);

  test("--watch: a pod that did not fit is placed once another pod is deleted", async () => {
    // Start from empty agents.
    const del = (agent: TestAgent, name: string) =>
      fetch(`${agent.url}/pods/default/${name}`, { method: "DELETE", headers: { authorization: `Bearer ${TOKEN}` } });
    for (const agent of [a, b]) for (const p of await agent.pods()) await del(agent, p.metadata!.name!);
    await eventually("the agents to be empty", async () => (await a.pods()).length + (await b.pods()).length === 0, 60_000);

    const pending = join(dir, "pending");
    const free = cpus().length * 1000;
    const proc = new BinaryProcess(["schedule", "--watch", "--pending-dir", pending, ...nodeArgs(), "--poll-interval", "300ms", "-o", "json"]);
    type Line = { name: string; outcome: string; node?: string; message: string };
    try {
      await eventually("the pending directory", async () => existsSync(pending), 20_000);
      writeFileSync(join(pending, "hog.yaml"), podYAML("hog", { cpu: `${free - 500}m` }));
      await proc.waitFor("hog placed", () => proc.json<Line>().find((l) => l.name === "hog" && l.outcome === "Scheduled"), 30_000);
      await a.waitPod("hog", "running", running, 60_000);
      writeFileSync(join(pending, "late.yaml"), podYAML("late", { cpu: "1" }));
      const failed = await proc.waitFor("late rejected", () => proc.json<Line>().find((l) => l.name === "late" && l.outcome === "Unschedulable"), 30_000);
      expect(failed.message).toBe(
        "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint(s). preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling.",
      );
      expect(existsSync(join(pending, "late.yaml"))).toBe(true);
      expect((await del(a, "hog")).status).toBe(200);
      const placed = await proc.waitFor(
        "late placed after hog went",
        () => proc.json<Line>().find((l) => l.name === "late" && l.outcome === "Scheduled"),
        60_000,
      );
      expect(placed.node).toBe("sched-a");
      await a.waitPod("late", "running", running, 60_000);
      expect(existsSync(join(pending, "bound", "late.yaml"))).toBe(true);
      expect(existsSync(join(pending, "bound", "hog.yaml"))).toBe(true);
    } finally {
      expect(await proc.interrupt()).toBe(0);
    }
  }, 180_000);
});
