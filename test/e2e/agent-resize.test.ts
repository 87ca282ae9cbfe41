// In-place pod resize (InPlacePodVerticalScaling, GA in 1.35; issue 26) through the compiled binary on
// containerd 1.6 and 1.7, joined to the in-process test API server, as `kubectl patch --subresource
// resize` does it: the agent reports containerStatuses[].resources (without them the API server answers
// "Pod running on node without support for resize"); a resize of a running pod's cpu limit and memory
// limit reaches the container's cgroup without a restart (same container, restartCount 0) and its
// status shows the new resources and allocatedResources; a resize beyond the node's allocatable is
// refused by the API server (the PodResize admission plugin: 403) and nothing changes on the node; one
// that fits the allocatable but not beside another pod's requests is PodResizePending Deferred with the
// fit message, and done once that pod is deleted (pods_removed) or has finished (pod_terminated); a
// container whose resizePolicy for memory is RestartContainer is restarted with the new limit.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ContainerStatus, Node, Pod, PodCondition } from "kubernetes-types/core/v1";
import { parseQuantity } from "../../src/api";
import { POD_UID } from "../../src/cri/labels";
import { TestApiServer, type KubernetesObject } from "../fakes/apiserver";
import { NODE_NAME, useAgent } from "./agent-harness";
import type { TestNode } from "./node";
import { eventually } from "./proc";

const MI = 1024 * 1024;

function resizablePod(name: string, memoryPolicy: "NotRequired" | "RestartContainer" = "NotRequired"): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "default" },
    spec: {
      nodeName: NODE_NAME,
      terminationGracePeriodSeconds: 1,
      containers: [
        {
          name: "main",
          image: "localhost/nodeagent/busybox:1.35",
          command: ["sh", "-c", "sleep 3600"],
          resources: { requests: { cpu: "100m", memory: "32Mi" }, limits: { cpu: "200m", memory: "64Mi" } },
          resizePolicy: [
            { resourceName: "cpu", restartPolicy: "NotRequired" },
            { resourceName: "memory", restartPolicy: memoryPolicy },
          ],
        },
      ],
    },
  };
}

for (const version of ["1.6", "1.7"] as const) {
  describe(`in-place pod resize on containerd ${version}`, () => {
    const dir = mkdtempSync(join(tmpdir(), "nodeagent-resize-"));
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
    const { node } = useAgent(version, () => ["--kubeconfig", kubeconfig, "--node-status-update-frequency", "2s"]);

    const stored = (name: string) => api.store.get("pods", "default", name) as Pod | undefined;
    const allocatableCpu = () => parseQuantity((api.store.get("nodes", undefined, NODE_NAME) as Node).status!.allocatable!.cpu!).milli();
    const main = (p: Pod | undefined): ContainerStatus | undefined => p?.status?.containerStatuses?.find((c) => c.name === "main");
    const condition = (p: Pod | undefined, type: string) =>
      p?.status?.conditions?.find((c) => c.type === type) as (PodCondition & { observedGeneration?: number }) | undefined;
    /** `kubectl patch pod <name> --subresource resize --patch …`, as an administrator. */
    async function resize(name: string, resources: object): Promise<{ code: number; body: any }> {
      const r = await fetch(`${api.url}/api/v1/namespaces/default/pods/${name}/resize`, {
        method: "PATCH",
        headers: { Authorization: `Bearer ${api.adminToken}`, "Content-Type": "application/strategic-merge-patch+json" },
        body: JSON.stringify({ spec: { containers: [{ name: "main", resources }] } }),
        tls: { ca: api.caPem },
      } as RequestInit);
      return { code: r.status, body: await r.json() };
    }
    /** The container's cgroup values, read inside it (cgroup v1 or v2). */
    async function cgroup(n: TestNode, uid: string): Promise<{ id: string; cpuQuota: number; memoryLimit: number }> {
      const [c] = await n.client.listContainers({ labelSelector: { [POD_UID]: uid }, state: { state: "CONTAINER_RUNNING" } });
      if (!c) throw new Error(`no running container of pod ${uid}`);
      const read = async (cmd: string) => new TextDecoder().decode((await n.client.execSync(c.id, ["sh", "-c", cmd], 10)).stdout).trim();
      const cpu = await read("cat /sys/fs/cgroup/cpu.max 2>/dev/null || cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us");
      const mem = await read("cat /sys/fs/cgroup/memory.max 2>/dev/null || cat /sys/fs/cgroup/memory/memory.limit_in_bytes");
      return { id: c.id, cpuQuota: Number(cpu.split(" ")[0]), memoryLimit: Number(mem) };
    }
    async function runningPod(name: string): Promise<Pod> {
      return eventually(
        `${name} Running with its container's resources in the API`,
        async () => {
          const p = stored(name);
          return p?.status?.phase === "Running" && main(p)?.state?.running && main(p)?.resources ? p : undefined;
        },
        90_000,
      );
    }

    test("cpu and memory limits resized in place: the cgroup changes, no restart, the status shows the new resources", async () => {
      api.store.create("pods", resizablePod("web") as KubernetesObject);
      const before = await runningPod("web");
      const uid = before.metadata!.uid!;
      expect(main(before)!.resources).toEqual({ requests: { cpu: "100m", memory: "32Mi" }, limits: { cpu: "200m", memory: "64Mi" } });
      expect(main(before)!.allocatedResources).toEqual({ cpu: "100m", memory: "32Mi" });
      const first = await cgroup(node(), uid);
      expect(first).toMatchObject({ cpuQuota: 20_000, memoryLimit: 64 * MI });

      const r = await resize("web", { requests: { cpu: "150m" }, limits: { cpu: "300m", memory: "96Mi" } });
      expect(r.code).toBe(200);
      expect(r.body.metadata.generation).toBe(2);
      const after = await eventually(
        "the new resources in the status, the resize done",
        async () => {
          const p = stored("web");
          const done = main(p)?.resources?.limits?.cpu === "300m" && main(p)?.resources?.limits?.memory === "96Mi" && !condition(p, "PodResizeInProgress");
          return done ? p : undefined;
        },
        60_000,
      );
      expect(main(after)!.resources).toEqual({ requests: { cpu: "150m", memory: "32Mi" }, limits: { cpu: "300m", memory: "96Mi" } });
      expect(main(after)!.allocatedResources).toEqual({ cpu: "150m", memory: "32Mi" });
      expect(main(after)!.restartCount).toBe(0);
      expect(condition(after, "PodResizePending")).toBeUndefined();
      const resized = await cgroup(node(), uid);
      expect(resized).toEqual({ id: first.id, cpuQuota: 30_000, memoryLimit: 96 * MI });

      // And down again: the container first, then its pod's cgroup.
      expect((await resize("web", { requests: { cpu: "120m" }, limits: { cpu: "120m" } })).code).toBe(200);
      await eventually("the cpu limit down to 120m", async () => ((await cgroup(node(), uid)).cpuQuota === 12_000 ? true : undefined), 60_000);
      await eventually("the status at 120m", async () => (main(stored("web"))?.resources?.limits?.cpu === "120m" ? true : undefined), 30_000);
      expect(main(stored("web"))!.restartCount).toBe(0);
    });

    test("a resize beyond the node's allocatable is refused by the API server (403, PodResize admission) and nothing changes", async () => {
      const p = await runningPod("web");
      const before = await cgroup(node(), p.metadata!.uid!);
      const r = await resize("web", { requests: { cpu: "50" }, limits: { cpu: "50" } });
      expect(r.code).toBe(403);
      expect(r.body.message).toBe(
        `pods "web" is forbidden: node didn't have enough allocatable resources: cpu, requested: 50000, allocatable: ${allocatableCpu()}`,
      );
      expect(r.body.details.causes).toEqual([{ reason: "NodeCapacity" }]);
      const after = stored("web")!;
      expect(after.metadata!.generation).toBe(p.metadata!.generation);
      expect(condition(after, "PodResizePending")).toBeUndefined();
      expect(main(after)!.allocatedResources!.cpu).toBe("120m");
      expect(await cgroup(node(), p.metadata!.uid!)).toEqual(before);
    });

    /** A pod holding all the node's cpu but what web (120m) and `spare` leave. */
    function hog(name: string, spare: number, command: string): Pod {
      const cpu = `${allocatableCpu() - 120 - spare}m`;
      return {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name, namespace: "default" },
        spec: {
          nodeName: NODE_NAME,
          restartPolicy: "Never",
          terminationGracePeriodSeconds: 1,
          containers: [{ name: "main", image: "localhost/nodeagent/busybox:1.35", command: ["sh", "-c", command], resources: { requests: { cpu } } }],
        },
      };
    }

    /** web resized to 500m, which fits the node alone but not beside the hog: Deferred, nothing changes. */
    async function deferredResize(hogName: string): Promise<{ uid: string; before: { id: string; cpuQuota: number; memoryLimit: number } }> {
      const p = await runningPod("web");
      const uid = p.metadata!.uid!;
      const before = await cgroup(node(), uid);
      const r = await resize("web", { requests: { cpu: "500m" }, limits: { cpu: "500m" } });
      expect(r.code).toBe(200);
      const pending = await eventually("PodResizePending in the API", async () => condition(stored("web"), "PodResizePending"), 30_000);
      expect(pending.reason).toBe("Deferred");
      const used = allocatableCpu() - 120 - 200; // the others: the hog alone
      expect(pending.message).toBe(`Node didn't have enough resource: cpu, requested: 500, used: ${used}, capacity: ${allocatableCpu()}`);
      expect(pending.observedGeneration).toBe(stored("web")!.metadata!.generation);
      expect(main(stored("web"))!.allocatedResources!.cpu).toBe("120m");
      expect(await cgroup(node(), uid)).toEqual(before);
      expect(stored(hogName)?.status?.phase).toBe("Running");
      return { uid, before };
    }

    async function resizedTo(cpu: string, milli: number, uid: string, id: string): Promise<void> {
      const done = await eventually(
        `web resized to ${cpu}`,
        async () => {
          const s = stored("web");
          return main(s)?.resources?.limits?.cpu === cpu && !condition(s, "PodResizePending") && !condition(s, "PodResizeInProgress") ? s : undefined;
        },
        60_000,
      );
      expect(main(done)!.allocatedResources!.cpu).toBe(cpu);
      expect(await cgroup(node(), uid)).toMatchObject({ id, cpuQuota: milli * 100 });
    }

    test("a resize that fits the allocatable but not beside another pod is Deferred, and done once that pod is deleted", async () => {
      api.store.create("pods", hog("hog", 200, "sleep 3600") as KubernetesObject);
      await eventually("the hog running", async () => (stored("hog")?.status?.phase === "Running" ? true : undefined), 90_000);
      const { uid, before } = await deferredResize("hog");
      api.store.delete("pods", "default", "hog");
      await resizedTo("500m", 500, uid, before.id);
      await eventually("the hog gone", async () => (stored("hog") ? undefined : true), 60_000);
      expect((await resize("web", { requests: { cpu: "120m" }, limits: { cpu: "120m" } })).code).toBe(200);
      await resizedTo("120m", 120, uid, before.id);
    });

    test("a deferred resize is done once the other pod has finished (pod_terminated), without waiting for the periodic retry", async () => {
      api.store.create("pods", hog("short", 200, "sleep 30") as KubernetesObject);
      await eventually("the short pod running", async () => (stored("short")?.status?.phase === "Running" ? true : undefined), 90_000);
      const { uid, before } = await deferredResize("short");
      await eventually("the short pod Succeeded", async () => (stored("short")?.status?.phase === "Succeeded" ? true : undefined), 60_000);
      // The short pod ran past the agent's first periodic retry (30 s after it started), so the next one is
      // minutes away: only the pod_terminated trigger does it this soon.
      await resizedTo("500m", 500, uid, before.id);
      expect(stored("short")).toBeDefined();
      api.store.delete("pods", "default", "short");
    });

    test("resizePolicy RestartContainer for memory: the container is restarted with the new limit", async () => {
      api.store.create("pods", resizablePod("restart", "RestartContainer") as KubernetesObject);
      const p = await runningPod("restart");
      const first = await cgroup(node(), p.metadata!.uid!);
      expect((await resize("restart", { limits: { memory: "80Mi" } })).code).toBe(200);
      const after = await eventually(
        "the container restarted with 80Mi",
        async () => {
          const s = stored("restart");
          return main(s)?.restartCount === 1 && main(s)?.state?.running && main(s)?.resources?.limits?.memory === "80Mi" ? s : undefined;
        },
        60_000,
      );
      const second = await cgroup(node(), after.metadata!.uid!);
      expect(second.id).not.toBe(first.id);
      expect(second.memoryLimit).toBe(80 * MI);
    });
  });
}
