// `nodeagent hollow` through the compiled binary against the in-process test API server (issue 27): 50
// hollow nodes in two processes (49, and 1 with --first-index 49, so that one node can be stopped alone
// and the two processes' addresses do not collide) register, become Ready,
// renew their Leases, each runs a pod bound to it and reports it Running with a pod IP from its own /24;
// then the lone node's process is stopped and the node lifecycle controller (the test server's, as
// kube-controller-manager's, with a 15 s grace) marks it Unknown with the unreachable taints once its
// Lease runs out, while the other 49 stay Ready. No containerd: the hollow nodes' runtime is in memory.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Node, Pod } from "kubernetes-types/core/v1";
import type { Lease } from "kubernetes-types/coordination/v1";
import { TestApiServer, type KubernetesObject } from "../fakes/apiserver";
import { BinaryProcess, eventually } from "./proc";

const FLEET = 49;
const ready = (n: Node | undefined) => n?.status?.conditions?.find((c) => c.type === "Ready")?.status;

describe("nodeagent hollow: 50 nodes against the test API server", () => {
  const dir = mkdtempSync(join(tmpdir(), "nodeagent-hollow-"));
  const kubeconfig = join(dir, "admin.kubeconfig");
  let api: TestApiServer;
  let fleet: BinaryProcess | undefined;
  let lone: BinaryProcess | undefined;
  const hollow = (firstIndex: number, nodes: number) =>
    new BinaryProcess([
      "hollow",
      "--kubeconfig",
      kubeconfig,
      "--nodes",
      String(nodes),
      "--first-index",
      String(firstIndex),
      "--name-prefix",
      "fleet-",
      "--root-dir",
      join(dir, `from-${firstIndex}`),
      "--node-labels",
      "bench=hollow",
      "--pod-start-latency",
      "200ms",
      "--log-format",
      "json",
    ]);
  const names = Array.from({ length: FLEET + 1 }, (_, i) => `fleet-${i}`);
  const LONE = `fleet-${FLEET}`;
  const node = (name: string) => api.store.get("nodes", undefined, name) as Node | undefined;
  const lease = (name: string) => api.store.get("leases", "kube-node-lease", name) as Lease | undefined;
  const pod = (name: string) => api.store.get("pods", "default", `p-${name}`) as Pod | undefined;

  beforeAll(async () => {
    // The grace must outlast a Lease renewal (every 10 s, plus up to 4 % jitter and the time on the wire),
    // as kube-controller-manager's 50 s does; shorter, a live node goes Unknown between two renewals.
    api = await TestApiServer.start({ nodeLifecycle: { gracePeriodMs: 15_000, periodMs: 1_000 } });
    api.writeKubeconfig(kubeconfig, api.adminToken);
    fleet = hollow(0, FLEET);
    lone = hollow(FLEET, 1);
  });
  afterAll(async () => {
    for (const p of [fleet, lone]) if (p && p.proc.exitCode === null) await p.interrupt();
    await api?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test("they register and are Ready, renew their Leases, run a pod each and report it Running; a stopped one goes NotReady when its Lease runs out", async () => {
    // Ready, and untainted: the lifecycle controller taints a node not-ready (NoSchedule and NoExecute) while
    // it has not posted Ready, and takes the taints off on its next pass. The pods below are bound by hand,
    // not by a scheduler that would wait for that, and a node's admission refuses a pod that does not
    // tolerate a NoExecute taint (TaintToleration), as the kubelet's.
    await eventually(
      "50 Nodes Ready and untainted",
      async () => names.every((n) => ready(node(n)) === "True" && !node(n)?.spec?.taints?.length) || undefined,
      60_000,
      250,
    );
    const n0 = node("fleet-0")!;
    // What each node registered with: the labels asked for, the default capacity, its own InternalIP.
    expect(n0.metadata?.labels).toMatchObject({ bench: "hollow", "kubernetes.io/hostname": "fleet-0", "kubernetes.io/os": "linux" });
    expect(n0.status?.capacity).toMatchObject({ cpu: "4", memory: "8Gi", pods: "110" });
    const ips = names.map((n) => node(n)!.status!.addresses!.find((a) => a.type === "InternalIP")!.address);
    expect(new Set(ips).size).toBe(50);
    for (const [i, ip] of ips.entries()) expect(ip).toBe(`172.16.0.${i + 1}`);

    // Leases: renewed (a renewTime later than the first one seen), every node.
    const first = new Map(names.map((n) => [n, lease(n)?.spec?.renewTime]));
    for (const [n, t] of first) expect(t, n).toBeDefined();

    for (const n of names)
      api.store.create("pods", {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: `p-${n}`, namespace: "default" },
        spec: { nodeName: n, terminationGracePeriodSeconds: 1, containers: [{ name: "main", image: "registry.k8s.io/pause:3.10" }] },
      } as KubernetesObject);
    await eventually("50 pods Running in the API", async () => names.every((n) => pod(n)?.status?.phase === "Running") || undefined, 60_000, 250);
    for (const n of names) {
      const p = pod(n)!;
      const i = Number(n.split("-")[1]);
      // The node's own /24: fleet-i has 10.64.i.0/24, in either process.
      expect(p.status?.podIP, n).toMatch(new RegExp(`^10\\.64\\.${i}\\.\\d+$`));
      expect(p.status?.containerStatuses?.[0]).toMatchObject({ name: "main", ready: true, started: true, state: { running: {} } });
      expect(p.status?.containerStatuses?.[0]?.containerID).toMatch(/^nodeagent-memory:\/\/[0-9a-f]{64}$/);
    }

    await eventually(
      "every Lease renewed",
      async () => names.every((n) => Date.parse(lease(n)?.spec?.renewTime ?? "") > Date.parse(first.get(n) ?? "")) || undefined,
      30_000,
      500,
    );

    // The lone node's process stops; its Lease runs out, the lifecycle controller takes over.
    expect(await lone!.interrupt()).toBe(0);
    // The NoExecute taint follows on the controller's next tainting pass.
    const tainted = (n: Node | undefined) => n?.spec?.taints?.some((t) => t.key === "node.kubernetes.io/unreachable" && t.effect === "NoExecute");
    const gone = await eventually(
      `${LONE} Ready Unknown, tainted unreachable`,
      async () => (ready(node(LONE)) === "Unknown" && tainted(node(LONE)) ? node(LONE) : undefined),
      45_000,
      250,
    );
    expect(gone.status?.conditions?.find((c) => c.type === "Ready")).toMatchObject({
      reason: "NodeStatusUnknown",
      message: "Kubelet stopped posting node status.",
    });
    expect(gone.spec?.taints?.map((t) => `${t.key}:${t.effect}`)).toEqual(
      expect.arrayContaining(["node.kubernetes.io/unreachable:NoSchedule", "node.kubernetes.io/unreachable:NoExecute"]),
    );
    for (const n of names.slice(0, FLEET)) expect(ready(node(n)), n).toBe("True");
    expect(fleet!.proc.exitCode).toBeNull();
  }, 180_000);
});
