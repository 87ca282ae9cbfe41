// The agent as a node of a cluster (issue 7): the compiled binary on a real containerd, joined with a
// node's own credentials to the in-process test API server. A pod created in the API runs here and its
// status comes back; deleting it stops it and the agent finishes the deletion; a static pod is mirrored;
// `nodeagent schedule` binds a pending pod that the agent then runs; a pod bound over the node's
// allocatable is rejected at admission (OutOfcpu in the API); the API server going away for a
// while takes nothing down. The Node carries the addresses the API server must dial (--node-ip, the
// lower-cased --hostname-override), filled node info, and pods report the InternalIP as hostIP.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Lease } from "kubernetes-types/coordination/v1";
import type { Node, Pod } from "kubernetes-types/core/v1";
import { parseQuantity } from "../../src/api/quantity";
import { TestApiServer, type KubernetesObject } from "../fakes/apiserver";
import { manifest, NODE_NAME, running, useAgent } from "./agent-harness";
import { BinaryProcess, eventually } from "./proc";

const dir = mkdtempSync(join(tmpdir(), "nodeagent-cluster-"));
let api: TestApiServer;
const nodeKubeconfig = join(dir, "node.kubeconfig");

beforeAll(async () => {
  api = await TestApiServer.start();
  api.writeKubeconfig(nodeKubeconfig, api.nodeToken(NODE_NAME));
});
afterAll(async () => {
  await api?.stop();
  rmSync(dir, { recursive: true, force: true });
});

// The harness gives --hostname-override e2e-node; the last one given wins, so the name typed in upper
// case here must come out lower-cased, as the kubelet's GetHostname does.
const { agent, node } = useAgent("1.7", () => [
  "--kubeconfig",
  nodeKubeconfig,
  "--node-status-update-frequency",
  "2s",
  "--node-ip",
  "127.0.0.1",
  "--hostname-override",
  NODE_NAME.toUpperCase(),
]);

function apiPod(name: string, extra: Partial<Pod["spec"]> = {}): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "default" },
    spec: {
      nodeName: NODE_NAME,
      terminationGracePeriodSeconds: 2,
      containers: [{ name: "main", image: "localhost/nodeagent/busybox:1.35", command: ["sh", "-c", "sleep 3600"] }],
      ...extra,
    },
  };
}

const createPod = (p: Pod) => api.store.create("pods", p as KubernetesObject);
const storedPod = (name: string) => api.store.get("pods", "default", name) as Pod | undefined;
const condition = (p: Pod | undefined, type: string) => p?.status?.conditions?.find((c) => c.type === type)?.status;

describe("the agent as a node of a cluster (containerd 1.7)", () => {
  test("registers its Node, Ready, and keeps its Lease", async () => {
    const n = await eventually("the Node to be Ready", async () => {
      const got = api.store.get("nodes", undefined, NODE_NAME) as Node | undefined;
      return got?.status?.conditions?.find((c) => c.type === "Ready")?.status === "True" ? got : undefined;
    });
    expect(n.status?.capacity?.pods).toBe("110");
    expect(n.status?.nodeInfo?.containerRuntimeVersion).toMatch(/^containerd:\/\/1\.7/);
    // The Lease is created at once and gets its owner once the Node's uid is known.
    const lease = await eventually("the Lease owned by the Node", async () => {
      const l = api.store.get("leases", "kube-node-lease", NODE_NAME) as Lease | undefined;
      return l?.metadata?.ownerReferences?.length ? l : undefined;
    });
    expect(lease.spec?.holderIdentity).toBe(NODE_NAME);
    expect(lease.spec?.leaseDurationSeconds).toBe(40);
    expect(lease.metadata?.ownerReferences?.[0]).toMatchObject({ kind: "Node", name: NODE_NAME, uid: n.metadata?.uid });
  }, 60_000);

  test("the Node's addresses are --node-ip and --hostname-override, its nodeInfo filled; a pod's hostIP (status and env) is the InternalIP", async () => {
    const n = await eventually("the Node registered", async () => api.store.get("nodes", undefined, NODE_NAME) as Node | undefined);
    // What the API server dials for logs/exec (--kubelet-preferred-address-types InternalIP first): the
    // agent's own address and port.
    expect(n.status?.addresses).toEqual([
      { type: "InternalIP", address: "127.0.0.1" },
      { type: "Hostname", address: NODE_NAME },
    ]);
    expect(n.status?.daemonEndpoints?.kubeletEndpoint?.Port).toBe(Number(new URL(agent().url).port));
    const info = n.status!.nodeInfo!;
    for (const field of [
      "machineID",
      "bootID",
      "kernelVersion",
      "osImage",
      "containerRuntimeVersion",
      "kubeletVersion",
      "operatingSystem",
      "architecture",
    ] as const) {
      expect(info[field], field).not.toBe("");
    }
    expect(info.bootID).toBe(readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim());
    const uuidFile = "/sys/class/dmi/id/product_uuid";
    let uuid = "";
    try {
      uuid = readFileSync(uuidFile, "utf8").trim();
    } catch {
      // Absent (no DMI) or unreadable (not root): the agent reports it empty too.
    }
    expect(info.systemUUID).toBe(uuid);
    // Semver (what apimachinery's version.ParseSemantic and any semver parser take), the Kubernetes
    // version followed, nodeagent's own as build metadata.
    const v = /^v(\d+)\.(\d+)\.(\d+)(?:-[0-9A-Za-z.-]+)?(?:\+([0-9A-Za-z.-]+))?$/.exec(info.kubeletVersion);
    expect(v, info.kubeletVersion).not.toBeNull();
    expect([v![1], v![2]]).toEqual(["1", "36"]);
    expect(v![4]).toStartWith("nodeagent.");
    // Deprecated, and empty from a 1.36 kubelet (DisableNodeKubeProxyVersion).
    expect(info.kubeProxyVersion).toBe("");
    expect(info.containerRuntimeVersion).toMatch(/^containerd:\/\/1\.7\./);
    if (existsSync("/sys/kernel/mm/hugepages/hugepages-2048kB")) expect(n.status?.capacity?.["hugepages-2Mi"]).toBeDefined();

    const env = [{ name: "HOST_IP", valueFrom: { fieldRef: { fieldPath: "status.hostIP" } } }];
    const spec = apiPod("host-ip").spec!;
    createPod({
      ...apiPod("host-ip"),
      spec: { ...spec, containers: [{ ...spec.containers[0]!, env, command: ["sh", "-c", 'echo "HOST_IP=$HOST_IP"; sleep 3600'] }] },
    });
    const reported = await eventually(
      "host-ip Running in the API",
      async () => {
        const p = storedPod("host-ip");
        return p?.status?.phase === "Running" ? p : undefined;
      },
      60_000,
    );
    expect(reported.status?.hostIP).toBe("127.0.0.1");
    expect(reported.status?.hostIPs).toEqual([{ ip: "127.0.0.1" }]);
    expect((await agent().pod("host-ip"))?.status?.hostIP).toBe("127.0.0.1");
    const logs = join(agent().dir, "logs");
    const log = await eventually(
      "the container's HOST_IP line",
      async () => {
        const podDir = readdirSync(logs).find((d) => d.startsWith(`default_host-ip_`));
        const file = podDir && join(logs, podDir, "main", "0.log");
        const text = file && existsSync(file) ? readFileSync(file, "utf8") : "";
        return text.includes("HOST_IP=") ? text : undefined;
      },
      30_000,
    );
    expect(log).toContain("HOST_IP=127.0.0.1\n");
    api.store.delete("pods", "default", "host-ip", { gracePeriodSeconds: 0 });
  }, 120_000);

  test("a pod created in the API runs here and its status comes back; deleting it stops it", async () => {
    createPod(apiPod("from-api"));
    const local = await agent().waitPod("from-api", "running", running, 60_000);
    expect(local.metadata?.annotations?.["kubernetes.io/config.source"]).toBe("api");
    const reported = await eventually(
      "the API pod Running and Ready",
      async () => {
        const p = storedPod("from-api");
        return p?.status?.phase === "Running" && condition(p, "Ready") === "True" ? p : undefined;
      },
      30_000,
    );
    expect(reported.status?.containerStatuses?.[0]?.state?.running).toBeDefined();
    expect(reported.status?.containerStatuses?.[0]?.containerID).toMatch(/^containerd:\/\//);
    expect(reported.status?.podIP).toBe(local.status?.podIP);
    const uid = reported.metadata!.uid!;

    // A graceful delete: the API server only marks the pod; the agent stops it, then deletes it for good.
    api.store.delete("pods", "default", "from-api", { gracePeriodSeconds: 2 });
    expect(storedPod("from-api")?.metadata?.deletionTimestamp).toBeDefined();
    await eventually("the pod gone from the API", async () => !storedPod("from-api"), 40_000);
    const finalDelete = api.requests.find((r) => r.verb === "delete" && r.resource === "pods" && r.name === "from-api");
    expect(finalDelete?.user).toBe(`system:node:${NODE_NAME}`);
    await eventually(
      "its sandbox gone from the runtime",
      async () => (await node().client.listPodSandbox({ labelSelector: { "io.kubernetes.pod.uid": uid } })).length === 0,
      30_000,
    ).catch((e) => {
      console.error(
        agent()
          .proc.stderr.split("\n")
          .filter((l) => l.includes("from-api"))
          .join("\n"),
      );
      throw e;
    });
  }, 120_000);

  test("a pod bound with nodeName asking for more cpu than the node's allocatable is Failed OutOfcpu in the API, never run", async () => {
    const n = api.store.get("nodes", undefined, NODE_NAME) as Node;
    const capacity = parseQuantity(n.status!.allocatable!.cpu!).milli();
    const hungry = apiPod("hungry");
    hungry.spec!.containers[0]!.resources = { requests: { cpu: "1000" } };
    createPod(hungry);
    const reported = await eventually(
      "the API pod Failed",
      async () => {
        const p = storedPod("hungry");
        return p?.status?.phase === "Failed" ? p : undefined;
      },
      30_000,
    );
    expect(reported.status).toMatchObject({
      phase: "Failed",
      reason: "OutOfcpu",
      message: `Pod was rejected: Node didn't have enough resource: cpu, requested: 1000000, used: 0, capacity: ${capacity}`,
    });
    expect(await node().client.listPodSandbox({ labelSelector: { "io.kubernetes.pod.uid": reported.metadata!.uid! } })).toEqual([]);
    api.store.delete("pods", "default", "hungry", { gracePeriodSeconds: 0 });
  }, 60_000);

  test("admission reads the API server's Node: a label set there with kubectl admits a pod selecting it; one never set is NodeAffinity", async () => {
    // As `kubectl label node <n> disktype=ssd`: a merge patch by the admin, not the node.
    api.store.patch("nodes", undefined, NODE_NAME, "application/merge-patch+json", { metadata: { labels: { disktype: "ssd" } } });
    const picky = apiPod("picky");
    picky.spec!.nodeSelector = { disktype: "ssd" };
    createPod(picky);
    const ok = await eventually(
      "the pod selecting the API's label running",
      async () => {
        const p = storedPod("picky");
        return p?.status?.phase === "Running" || p?.status?.phase === "Failed" ? p : undefined;
      },
      60_000,
    );
    expect(ok.status?.phase, JSON.stringify(ok.status)).toBe("Running");
    const fussy = apiPod("fussy");
    fussy.spec!.nodeSelector = { disktype: "nvme" };
    createPod(fussy);
    const refused = await eventually(
      "the pod selecting a label nobody set Failed",
      async () => {
        const p = storedPod("fussy");
        return p?.status?.phase === "Failed" ? p : undefined;
      },
      30_000,
    );
    expect(refused.status).toMatchObject({ reason: "NodeAffinity" });
    api.store.delete("pods", "default", "picky", { gracePeriodSeconds: 0 });
    api.store.delete("pods", "default", "fussy", { gracePeriodSeconds: 0 });
  }, 120_000);

  test("a static pod shows up as a mirror pod with its status", async () => {
    agent().writeManifest("static-web.yaml", manifest("static-web", "sleep 3600"));
    const mirror = await eventually(
      "the mirror pod running in the API",
      async () => {
        const p = storedPod(`static-web-${NODE_NAME}`);
        return p?.status?.phase === "Running" ? p : undefined;
      },
      60_000,
    );
    const local = await agent().pod("static-web");
    expect(mirror.metadata?.annotations?.["kubernetes.io/config.mirror"]).toBe(local?.metadata?.annotations?.["kubernetes.io/config.hash"]);
    expect(mirror.metadata?.ownerReferences?.[0]).toMatchObject({ apiVersion: "v1", kind: "Node", name: NODE_NAME, controller: true });
    // Deleting the mirror pod does not stop the static pod; the agent recreates the mirror.
    api.store.delete("pods", "default", `static-web-${NODE_NAME}`, { gracePeriodSeconds: 0 });
    await eventually(
      "the mirror pod recreated",
      async () => storedPod(`static-web-${NODE_NAME}`)?.metadata?.uid !== mirror.metadata?.uid && storedPod(`static-web-${NODE_NAME}`),
      30_000,
    );
    expect(running((await agent().pod("static-web"))!)).toBe(true);
    // Removing the manifest stops the pod and removes its mirror.
    agent().removeManifest("static-web.yaml");
    await eventually("the mirror pod gone", async () => !storedPod(`static-web-${NODE_NAME}`), 40_000);
  }, 150_000);

  test("the API server away for a while takes no pod down; status writes resume after", async () => {
    createPod(apiPod("survivor"));
    const before = await agent().waitPod("survivor", "running", running, 60_000);
    await eventually("survivor Running in the API", async () => storedPod("survivor")?.status?.phase === "Running", 30_000);
    await api.down();
    // Longer than a watch retry or two: the agent must keep the pod, whatever its informer sees.
    const downUntil = Date.now() + 8_000;
    await eventually("the outage to last", async () => Date.now() >= downUntil, 12_000, 500);
    const during = await agent().pod("survivor");
    expect(during?.metadata?.uid).toBe(before.metadata?.uid);
    expect(running(during!)).toBe(true);
    // Changed while the server was away: the container is killed, so its restart must reach the API.
    await api.up();
    const cid = during!.status!.containerStatuses![0]!.containerID!.replace(/^containerd:\/\//, "");
    await node().client.stopContainer(cid, 0);
    await eventually(
      "the restart reported to the API",
      async () => (storedPod("survivor")?.status?.containerStatuses?.[0]?.restartCount ?? 0) >= 1,
      60_000,
      500,
    );
    api.store.delete("pods", "default", "survivor", { gracePeriodSeconds: 0 });
    await eventually("survivor stopped", async () => !(await agent().pod("survivor")), 40_000);
  }, 150_000);

  test("`nodeagent schedule` binds a pending pod to the node and the agent runs it", async () => {
    const schedKubeconfig = join(dir, "scheduler.kubeconfig");
    api.writeKubeconfig(schedKubeconfig, api.schedulerToken);
    const scheduler = new BinaryProcess(["schedule", "--kubeconfig", schedKubeconfig, "--scheduler-name", "e2e-scheduler"]);
    try {
      createPod({ ...apiPod("scheduled"), spec: { ...apiPod("scheduled").spec!, nodeName: undefined, schedulerName: "e2e-scheduler" } });
      const bound = await eventually("the pod bound", async () => storedPod("scheduled")?.spec?.nodeName, 30_000);
      expect(bound).toBe(NODE_NAME);
      await agent().waitPod("scheduled", "running", running, 60_000);
      await eventually("scheduled Running in the API", async () => storedPod("scheduled")?.status?.phase === "Running", 30_000);
      expect(condition(storedPod("scheduled"), "PodScheduled")).toBe("True");
    } finally {
      await scheduler.interrupt();
    }
    api.store.delete("pods", "default", "scheduled", { gracePeriodSeconds: 0 });
  }, 150_000);
});
