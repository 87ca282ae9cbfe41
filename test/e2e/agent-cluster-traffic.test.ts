// API traffic at rest, through the compiled binary on containerd 1.6 and 1.7, joined with the node's own
// token to the in-process test API server: with three Running pods and a Succeeded one, the node writes
// no pod status that did not change and does not GET its Node (the kubelet's nodeLister) — over 30 s
// only Lease renewals; a pod deleted gracefully gets its final status and the node's delete, then
// nothing (no 404). /metrics counts the node's requests as nodeagent_api_requests_total. Before the
// fix every pod's status was PATCHed every 10 s (a condition's lastProbeTime: null the server leaves out).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod } from "kubernetes-types/core/v1";
import { TestApiServer, type KubernetesObject, type RequestRecord } from "../fakes/apiserver";
import { NODE_NAME, useAgent } from "./agent-harness";
import { eventually } from "./proc";

const IMAGE = "localhost/nodeagent/busybox:1.35";

/** Requests by "verb resource[/subresource] code". */
function tally(requests: readonly RequestRecord[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of requests) {
    const key = `${r.verb} ${r.resource}${r.subresource ? `/${r.subresource}` : ""} ${r.code}`;
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
}

for (const version of ["1.6", "1.7"] as const) {
  describe(`API traffic at rest on containerd ${version}`, () => {
    const dir = mkdtempSync(join(tmpdir(), "nodeagent-cluster-traffic-"));
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
    const { agent } = useAgent(version, () => ["--kubeconfig", kubeconfig, "--node-ip", "127.0.0.1"]);
    const stored = (name: string) => api.store.get("pods", "default", name) as Pod | undefined;
    const create = (name: string, command: string, restartPolicy: "Always" | "Never") =>
      api.store.create("pods", {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name, namespace: "default" },
        spec: {
          nodeName: NODE_NAME,
          restartPolicy,
          terminationGracePeriodSeconds: 1,
          containers: [{ name: "main", image: IMAGE, command: ["sh", "-c", command] }],
        },
      } as KubernetesObject);

    test("at rest: no pod status PATCH, no GET of the Node; a deleted pod gets nothing after its delete (no 404)", async () => {
      for (const name of ["r1", "r2", "r3"]) create(name, "sleep 3600", "Always");
      create("done", "exit 0", "Never");
      await eventually(
        "three pods Running and one Succeeded in the API",
        async () => (["r1", "r2", "r3"].every((n) => stored(n)?.status?.phase === "Running") && stored("done")?.status?.phase === "Succeeded") || undefined,
        90_000,
      );
      // The last writes' watch events reach the agent's informer; then 30 s at rest (three status batches).
      await Bun.sleep(12_000);
      const from = api.requests.length;
      await Bun.sleep(30_000);
      const atRest = tally(api.requests.slice(from));
      console.log(`containerd ${version}, 30 s at rest:`, JSON.stringify(atRest));
      expect(Object.keys(atRest)).toEqual(["update leases 200"]);
      expect(atRest["update leases 200"]).toBeGreaterThanOrEqual(2);
      expect(atRest["update leases 200"]).toBeLessThanOrEqual(3);

      // The node's own count, on /metrics.
      const metrics = await (await agent().fetch("/metrics")).text();
      const leases = /^nodeagent_api_requests_total\{verb="update",resource="leases",code="200"\} (\d+)$/m.exec(metrics);
      expect(Number(leases?.[1])).toBeGreaterThanOrEqual(
        api.requests.filter((r) => r.verb === "update" && r.resource === "leases" && r.code === 200).length - 1,
      );
      expect(metrics).toMatch(/^nodeagent_api_requests_total\{verb="watch",resource="pods",code="200"\} \d+$/m);

      const beforeDelete = api.requests.length;
      api.store.delete("pods", "default", "r1", { gracePeriodSeconds: 1 });
      await eventually("r1 gone from the API", async () => stored("r1") === undefined || undefined, 60_000);
      const deletedAt = api.requests.findLastIndex((r) => r.verb === "delete" && r.name === "r1");
      await Bun.sleep(12_000);
      const after = api.requests.slice(beforeDelete);
      console.log(`containerd ${version}, the delete:`, JSON.stringify(tally(after)));
      expect(after.filter((r) => r.code === 404)).toEqual([]);
      expect(deletedAt).toBeGreaterThanOrEqual(beforeDelete);
      expect(api.requests.slice(deletedAt + 1).filter((r) => r.resource === "pods" && r.verb !== "watch" && r.verb !== "list")).toEqual([]);
      // The other pods were not written either.
      expect(after.filter((r) => r.resource === "pods" && r.name !== "r1" && r.verb !== "watch" && r.verb !== "list")).toEqual([]);
    }, 200_000);
  });
}
