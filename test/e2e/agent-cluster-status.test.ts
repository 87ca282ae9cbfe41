// The 1.36 pod and Node status of a cluster node (issue 26), through the compiled binary on containerd
// 1.6 and 1.7, joined with a node's own credentials to the in-process test API server:
// status.observedGeneration and each condition's follow the pod's metadata.generation as a spec change
// bumps it; containerStatuses[].volumeMounts list the spec's mounts; user is left out (neither
// containerd reports it); a Job's main container shows terminated while its sidecar still stops; the
// Node reports kubeletVersion v1.36.x+nodeagent and an empty kubeProxyVersion; a pod using a 1.36 field
// the agent does not act on (supplementalGroupsPolicy Strict on containerd 1.6/1.7, restartPolicyRules) is Failed with the reason.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Node, Pod } from "kubernetes-types/core/v1";
import { TestApiServer, type KubernetesObject } from "../fakes/apiserver";
import { NODE_NAME, useAgent } from "./agent-harness";
import { eventually } from "./proc";

const IMAGE = "localhost/nodeagent/busybox:1.35";
type WithGeneration = { observedGeneration?: number };
const generationOf = (p: Pod | undefined) => (p?.status as WithGeneration | undefined)?.observedGeneration;
const conditionGenerations = (p: Pod | undefined) => (p?.status?.conditions ?? []).map((c) => [c.type, (c as WithGeneration).observedGeneration]);

for (const version of ["1.6", "1.7"] as const) {
  describe(`1.36 pod and Node status on containerd ${version}`, () => {
    const dir = mkdtempSync(join(tmpdir(), "nodeagent-cluster-status-"));
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
    useAgent(version, () => ["--kubeconfig", kubeconfig, "--node-status-update-frequency", "2s", "--node-ip", "127.0.0.1"]);
    const stored = (name: string) => api.store.get("pods", "default", name) as Pod | undefined;

    test("the Node says v1.36.x+nodeagent, with an empty kubeProxyVersion", async () => {
      const n = await eventually("the Node registered", async () => api.store.get("nodes", undefined, NODE_NAME) as Node | undefined, 60_000);
      expect(n.status?.nodeInfo?.kubeletVersion).toMatch(/^v1\.36\.\d+\+nodeagent\./);
      expect(n.status?.nodeInfo?.kubeProxyVersion).toBe("");
    }, 90_000);

    test("observedGeneration follows the pod's generation; volumeMounts list the spec's mounts; no user from this containerd", async () => {
      api.store.create("pods", {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "gen", namespace: "default" },
        spec: {
          nodeName: NODE_NAME,
          terminationGracePeriodSeconds: 1,
          containers: [
            {
              name: "main",
              image: IMAGE,
              command: ["sh", "-c", "sleep 3600"],
              volumeMounts: [
                { name: "scratch", mountPath: "/scratch" },
                { name: "scratch", mountPath: "/ro", readOnly: true },
              ],
            },
          ],
          volumes: [{ name: "scratch", emptyDir: {} }],
        },
      } as KubernetesObject);
      const first = await eventually(
        "the pod Running with observedGeneration 1",
        async () => {
          const p = stored("gen");
          return p?.status?.phase === "Running" && generationOf(p) === 1 ? p : undefined;
        },
        60_000,
      );
      expect(conditionGenerations(first)).toEqual([
        ["PodReadyToStartContainers", 1],
        ["Initialized", 1],
        ["Ready", 1],
        ["ContainersReady", 1],
        ["PodScheduled", 1],
      ]);
      const main = first.status?.containerStatuses?.[0];
      expect(main?.volumeMounts).toEqual([
        { name: "scratch", mountPath: "/scratch" },
        { name: "scratch", mountPath: "/ro", readOnly: true, recursiveReadOnly: "Disabled" },
      ]);
      expect(main).not.toHaveProperty("user");

      // A change of the spec (activeDeadlineSeconds may change on a running pod) is generation 2.
      api.store.patch("pods", "default", "gen", "application/strategic-merge-patch+json", { spec: { activeDeadlineSeconds: 3600 } });
      expect(stored("gen")?.metadata?.generation).toBe(2);
      const second = await eventually("observedGeneration 2", async () => (generationOf(stored("gen")) === 2 ? stored("gen") : undefined), 30_000);
      expect(conditionGenerations(second).every(([, g]) => g === 2)).toBe(true);
      expect(second.status?.phase).toBe("Running");
      api.store.delete("pods", "default", "gen", { gracePeriodSeconds: 0 });
    }, 120_000);

    test("a pod using a 1.36 field the agent does not act on is Failed with the reason, never run", async () => {
      const base = (name: string, spec: Record<string, unknown>, container: Record<string, unknown> = {}) =>
        ({
          apiVersion: "v1",
          kind: "Pod",
          metadata: { name, namespace: "default" },
          spec: { nodeName: NODE_NAME, containers: [{ name: "main", image: IMAGE, command: ["sleep", "3600"], ...container }], ...spec },
        }) as KubernetesObject;
      api.store.create("pods", base("strict", { securityContext: { supplementalGroupsPolicy: "Strict" } }));
      api.store.create(
        "pods",
        base("rules", {}, { restartPolicy: "Always", restartPolicyRules: [{ action: "Restart", exitCodes: { operator: "In", values: [42] } }] }),
      );
      const failed = (name: string) => eventually(`${name} Failed`, async () => (stored(name)?.status?.phase === "Failed" ? stored(name) : undefined), 30_000);
      expect((await failed("strict")).status).toMatchObject({
        reason: "SupplementalGroupsPolicyNotSupported",
        // The kubelet's rejectPod prefixes the handler's message.
        message: "Pod was rejected: SupplementalGroupsPolicy=Strict is not supported in this node",
      });
      const rules = await failed("rules");
      expect(rules.status?.reason).toBe("PodFieldNotSupported");
      expect(rules.status?.message).toContain('restartPolicyRules of container "main"');
      for (const name of ["strict", "rules"]) api.store.delete("pods", "default", name, { gracePeriodSeconds: 0 });
    }, 60_000);

    test("a Job's main container shows terminated while its sidecar still stops, then the pod Succeeds", async () => {
      api.store.create("pods", {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "job", namespace: "default" },
        spec: {
          nodeName: NODE_NAME,
          restartPolicy: "Never",
          terminationGracePeriodSeconds: 30,
          initContainers: [
            {
              name: "sidecar",
              image: IMAGE,
              restartPolicy: "Always",
              // Takes 4 s to stop once told to.
              command: ["sh", "-c", "trap 'sleep 4; exit 0' TERM; while true; do sleep 0.2; done"],
            },
          ],
          containers: [{ name: "main", image: IMAGE, command: ["sh", "-c", "sleep 2; exit 0"] }],
        },
      } as KubernetesObject);
      const between = await eventually(
        "main terminated while the sidecar still runs",
        async () => {
          const p = stored("job");
          const main = p?.status?.containerStatuses?.find((c) => c.name === "main");
          const sidecar = p?.status?.initContainerStatuses?.find((c) => c.name === "sidecar");
          return main?.state?.terminated && sidecar?.state?.running ? p : undefined;
        },
        60_000,
        50,
      );
      expect(between.status?.containerStatuses?.[0]?.state?.terminated).toMatchObject({ exitCode: 0, reason: "Completed" });
      // The sidecar still runs, so the pod does.
      expect(between.status?.phase).toBe("Running");
      const done = await eventually("the pod Succeeded", async () => (stored("job")?.status?.phase === "Succeeded" ? stored("job") : undefined), 60_000);
      expect(done.status?.initContainerStatuses?.[0]?.state?.terminated).toMatchObject({ exitCode: 0 });
      api.store.delete("pods", "default", "job", { gracePeriodSeconds: 0 });
    }, 120_000);
  });
}
