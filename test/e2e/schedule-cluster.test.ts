// The compiled `nodeagent schedule --kubeconfig` against the in-process test API server, with the
// kube-scheduler's credentials: Node objects are created in the store (no containerd is needed to be
// scheduled onto), a pending pod created through the API is bound — spec.nodeName set and
// PodScheduled=True — and the decision is printed as one JSON line; Ctrl-C ends the process with 0.
// A server that cannot be reached at start is exit status 1, naming it.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod } from "kubernetes-types/core/v1";
import { TestApiServer } from "../fakes/apiserver";
import { BINARY } from "./node";
import { BinaryProcess, eventually } from "./proc";

let api: TestApiServer;
let dir: string;
let sched: BinaryProcess | undefined;

beforeAll(async () => {
  if (!existsSync(BINARY)) throw new Error(`${BINARY} not built: run make build`);
  api = await TestApiServer.start();
  dir = mkdtempSync(join(tmpdir(), "schedule-cluster-e2e-"));
});

afterAll(async () => {
  if (sched && sched.proc.exitCode === null) sched.proc.kill("SIGKILL");
  await api?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function readyNode(name: string, cpu: string) {
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name, labels: { "kubernetes.io/hostname": name } },
    status: {
      allocatable: { cpu, memory: "8Gi", pods: "110" },
      capacity: { cpu, memory: "8Gi", pods: "110" },
      conditions: [{ type: "Ready", status: "True" }],
    },
  };
}

test("schedule --kubeconfig binds a pending pod created through the API", async () => {
  api.store.create("nodes", readyNode("e2e-small", "500m"));
  api.store.create("nodes", readyNode("e2e-big", "4"));
  const kubeconfig = join(dir, "scheduler.kubeconfig");
  api.writeKubeconfig(kubeconfig, api.schedulerToken);
  sched = new BinaryProcess(["schedule", "--kubeconfig", kubeconfig, "-o", "json"]);
  await eventually(
    "the scheduler watching",
    async () => api.requests.some((r) => r.resource === "pods" && r.verb === "watch" && r.user === "system:kube-scheduler"),
    15_000,
    50,
  );

  const res = await fetch(`${api.url}/api/v1/namespaces/default/pods`, {
    method: "POST",
    headers: { Authorization: `Bearer ${api.adminToken}`, "Content-Type": "application/json" },
    body: JSON.stringify({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "e2e-web" },
      spec: { containers: [{ name: "main", image: "busybox", resources: { requests: { cpu: "1" } } }] },
    }),
    tls: { ca: api.caPem },
  } as RequestInit);
  expect(res.status).toBe(201);

  const bound = await eventually(
    "e2e-web bound",
    async () => {
      const p = api.store.get("pods", "default", "e2e-web") as Pod | undefined;
      return p?.spec?.nodeName ? p : undefined;
    },
    15_000,
    50,
  );
  expect(bound.spec?.nodeName).toBe("e2e-big");
  expect(bound.status?.conditions?.find((c) => c.type === "PodScheduled")?.status).toBe("True");
  const line = await sched.waitFor("the decision line", () =>
    sched!.json<{ name: string; outcome: string; node?: string }>().find((l) => l.name === "e2e-web"),
  );
  expect(line).toMatchObject({
    namespace: "default",
    name: "e2e-web",
    outcome: "Scheduled",
    node: "e2e-big",
    message: "Successfully assigned default/e2e-web to e2e-big",
  });

  expect(await sched.interrupt()).toBe(0);
}, 60_000);

test("schedule --kubeconfig exits 1 naming the server when it cannot be reached", async () => {
  const kubeconfig = join(dir, "down.kubeconfig");
  api.writeKubeconfig(kubeconfig, api.schedulerToken);
  await api.down();
  try {
    const p = new BinaryProcess(["schedule", "--kubeconfig", kubeconfig]);
    expect(await p.proc.exited).toBe(1);
    await eventually("stderr read", async () => p.stderr.includes("cannot reach the API server"), 5000, 20);
    expect(p.stderr).toContain(`cannot reach the API server ${api.url}`);
  } finally {
    await api.up();
  }
}, 30_000);
