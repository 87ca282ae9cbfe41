// The node's client rate limit (--kube-api-qps, --kube-api-burst: the kubelet's kubeAPIQPS and
// kubeAPIBurst), through the compiled binary joined with the node's token to the in-process test API
// server, on containerd 1.7 (pure API-client behaviour: the runtime does not enter into it). At one
// request a second in bursts of one the node still registers, renews its Lease (the heartbeat's client
// is not limited, as the kubelet's) and runs three pods with their statuses written back; the API
// server saw its limited requests — pods and nodes lists and watches, pod status patches — never
// more than burst + qps × seconds over any stretch, and /metrics shows the time they waited. (Unlimited,
// the same start sends several of them within its first second.)
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod } from "kubernetes-types/core/v1";
import { TestApiServer, type KubernetesObject, type RequestRecord } from "../fakes/apiserver";
import { NODE_NAME, running, useAgent } from "./agent-harness";
import { eventually } from "./proc";

const IMAGE = "localhost/nodeagent/busybox:1.35";
const QPS = 1;
const BURST = 1;
/** Arrival-time jitter allowed between the client's token and the server's clock (HTTP on loopback). */
const SLACK_S = 0.3;

/** The requests the node's limited client sends: not the heartbeat's (Lease, Node registration and status) nor the events'. */
function limited(r: RequestRecord): boolean {
  if (r.resource === "leases" || r.resource === "events") return false;
  if (r.resource === "nodes" && (r.subresource === "status" || r.verb === "create" || r.verb === "get")) return false;
  return true;
}

/** The most requests in any stretch of the log beyond what burst + qps × its length (plus slack) allows; ≤ 0 when the rate held. */
function worstExcess(times: readonly number[]): { excess: number; window: string } {
  let worst = { excess: Number.NEGATIVE_INFINITY, window: "" };
  for (let i = 0; i < times.length; i++)
    for (let j = i; j < times.length; j++) {
      const seconds = (times[j]! - times[i]!) / 1000;
      const excess = j - i + 1 - (BURST + QPS * (seconds + SLACK_S));
      if (excess > worst.excess) worst = { excess, window: `${j - i + 1} requests in ${seconds.toFixed(3)} s` };
    }
  return worst;
}

describe("--kube-api-qps 1 --kube-api-burst 1 on containerd 1.7", () => {
  const dir = mkdtempSync(join(tmpdir(), "nodeagent-cluster-rate-"));
  let api: TestApiServer;
  const kubeconfig = join(dir, "node.kubeconfig");
  beforeAll(async () => {
    api = await TestApiServer.start();
    api.writeKubeconfig(kubeconfig, api.nodeToken(NODE_NAME));
  });
  afterAll(async () => {
    await api?.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  const { agent } = useAgent("1.7", () => [
    "--kubeconfig",
    kubeconfig,
    "--node-ip",
    "127.0.0.1",
    "--kube-api-qps",
    String(QPS),
    "--kube-api-burst",
    String(BURST),
  ]);
  const stored = (name: string) => api.store.get("pods", "default", name) as Pod | undefined;

  test("registers, renews its Lease, runs three pods; its limited requests never beat one a second; /metrics shows the wait", async () => {
    for (const name of ["a", "b", "c"])
      api.store.create("pods", {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name, namespace: "default" },
        spec: { nodeName: NODE_NAME, terminationGracePeriodSeconds: 1, containers: [{ name: "main", image: IMAGE, command: ["sleep", "3600"] }] },
      } as KubernetesObject);
    await eventually("three pods Running in the API", async () => ["a", "b", "c"].every((n) => running(stored(n) ?? ({} as Pod))) || undefined, 120_000);
    await eventually(
      "the Node Ready and its Lease renewed",
      async () => {
        const node = api.store.get("nodes", "", NODE_NAME) as { status?: { conditions?: Array<{ type: string; status: string }> } } | undefined;
        const ready = node?.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True");
        const renewals = api.requests.filter((r) => r.resource === "leases" && r.verb === "update" && r.code === 200).length;
        return (ready && renewals >= 1) || undefined;
      },
      60_000,
    );

    const log = api.requests.filter(limited);
    const kinds: Record<string, number> = {};
    for (const r of log) {
      const kind = `${r.verb} ${r.resource}${r.subresource ? `/${r.subresource}` : ""}`;
      kinds[kind] = (kinds[kind] ?? 0) + 1;
    }
    const worst = worstExcess(log.map((r) => r.at).sort((x, y) => x - y));
    console.log(`limited requests: ${JSON.stringify(kinds)}; worst stretch: ${worst.window}`);
    // Enough limited traffic for the check to mean something: lists, watches and status patches.
    expect(kinds["watch pods"]).toBeGreaterThanOrEqual(1);
    expect(kinds["patch pods/status"]).toBeGreaterThanOrEqual(3);
    expect(log.length).toBeGreaterThanOrEqual(7);
    expect(worst.excess).toBeLessThanOrEqual(0);

    const metrics = await (await agent().fetch("/metrics")).text();
    const waited = /^nodeagent_api_throttle_seconds_total (\S+)$/m.exec(metrics);
    expect(Number(waited?.[1])).toBeGreaterThan(0);
  }, 200_000);
});
