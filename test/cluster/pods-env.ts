// Shared set-up of the status manager and mirror pod tests: the heartbeat tests' API server and node
// client, the Node n1 registered, a pod informer on n1 like the API source's, a client whose pod writes
// the tests can read back (the test server records requests, not their bodies), and pod builders.
import type { Pod, PodStatus } from "kubernetes-types/core/v1";
import type { ApiPodView } from "../../src/cluster/api-pods";
import { CONFIG_HASH_ANNOTATION, CONFIG_SOURCE_ANNOTATION } from "../../src/api/annotations";
import { KubeInformer, type KubeClient } from "../../src/kube";
import { heartbeatEnv, type HeartbeatEnv } from "./node-heartbeat-env";

export interface PodWrite {
  verb: "patch" | "create" | "delete";
  name: string;
  body: unknown;
}

export interface PodsEnv extends HeartbeatEnv {
  nodeUid: string;
  view: ApiPodView;
  /** The client to hand to the module under test: the node's own, recording its pod writes. */
  recording: Pick<KubeClient, "core">;
  writes: PodWrite[];
  /** An API pod bound to n1, created the way the scheduler's binding leaves it. */
  createApiPod(name: string): Pod;
  storedPod(name: string, namespace?: string): Pod | undefined;
  /** Polls (real time: the informer's watch is real network) until cond holds, at most 5 s. */
  until(cond: () => boolean, what: string): Promise<void>;
}

export async function podsEnv(): Promise<PodsEnv> {
  const env = await heartbeatEnv("n1");
  const node = env.api.store.create("nodes", { apiVersion: "v1", kind: "Node", metadata: { name: "n1" } });
  const fieldSelector = "spec.nodeName=n1";
  const informer = new KubeInformer<Pod>({
    client: env.client,
    path: "/api/v1/pods",
    fieldSelector,
    clock: env.clock,
    log: env.log,
    what: "pods on n1",
  });
  informer.start();
  await informer.synced();
  const writes: PodWrite[] = [];
  const core = env.client.core;
  const recording = {
    core: Object.assign(Object.create(core) as typeof core, {
      patchNamespacedPodStatus: ((param, options) => {
        writes.push({ verb: "patch", name: param.name, body: structuredClone(param.body) });
        return core.patchNamespacedPodStatus(param, options);
      }) as typeof core.patchNamespacedPodStatus,
      createNamespacedPod: ((param, options) => {
        writes.push({ verb: "create", name: param.body.metadata?.name ?? "", body: structuredClone(param.body) });
        return core.createNamespacedPod(param, options);
      }) as typeof core.createNamespacedPod,
      deleteNamespacedPod: ((param, options) => {
        writes.push({ verb: "delete", name: param.name, body: structuredClone(param.body) });
        return core.deleteNamespacedPod(param, options);
      }) as typeof core.deleteNamespacedPod,
    }),
  };
  const storedPod = (name: string, namespace = "default") => env.api.store.get("pods", namespace, name) as Pod | undefined;
  return {
    ...env,
    nodeUid: node.metadata?.uid ?? "",
    view: informer,
    recording,
    writes,
    createApiPod: (name) =>
      env.api.store.create("pods", {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name, namespace: "default" },
        spec: { nodeName: "n1", containers: [{ name: "app", image: "busybox" }] },
      }) as Pod,
    storedPod,
    until: async (cond, what) => {
      for (let i = 0; i < 250 && !cond(); i++) await Bun.sleep(20);
      if (!cond()) throw new Error(`timed out waiting for ${what}`);
    },
    close: async () => {
      await informer.stop();
      await env.close();
    },
  };
}

/** The pod as the agent holds it: the API pod with the source annotation PodConfig adds. */
export function agentPod(apiPod: Pod): Pod {
  return { ...apiPod, metadata: { ...apiPod.metadata, annotations: { ...apiPod.metadata?.annotations, [CONFIG_SOURCE_ANNOTATION]: "api" } } };
}

/** A static pod from the file source, named and hashed as src/manifest/static-pod.ts does. */
export function staticPod(name: string, hash: string, image = "busybox"): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: `${name}-n1`,
      namespace: "kube-system",
      uid: hash,
      labels: { tier: "control-plane" },
      annotations: { [CONFIG_HASH_ANNOTATION]: hash, [CONFIG_SOURCE_ANNOTATION]: "file" },
    },
    spec: { nodeName: "n1", containers: [{ name: "app", image }] },
  };
}

const T0 = "2026-01-01T00:00:00Z";
const T1 = "2026-01-01T00:00:05Z";

/** What the agent reports while the container is being created. */
export function pendingStatus(): PodStatus {
  return {
    phase: "Pending",
    conditions: [
      { type: "PodReadyToStartContainers", status: "False", lastTransitionTime: T0 },
      { type: "Initialized", status: "True", lastTransitionTime: T0 },
      { type: "Ready", status: "False", reason: "ContainersNotReady", message: "containers with unready status: [app]", lastTransitionTime: T0 },
      { type: "ContainersReady", status: "False", reason: "ContainersNotReady", message: "containers with unready status: [app]", lastTransitionTime: T0 },
      { type: "PodScheduled", status: "True", lastTransitionTime: T0 },
    ],
    hostIP: "10.0.0.1",
    hostIPs: [{ ip: "10.0.0.1" }],
    startTime: T0,
    containerStatuses: [
      { name: "app", image: "busybox", imageID: "", ready: false, started: false, restartCount: 0, state: { waiting: { reason: "ContainerCreating" } } },
    ],
    qosClass: "BestEffort",
  };
}

/** The same pod once its container runs and is ready. */
export function runningStatus(): PodStatus {
  const s = pendingStatus();
  return {
    ...s,
    phase: "Running",
    podIP: "10.88.0.5",
    podIPs: [{ ip: "10.88.0.5" }],
    conditions: s.conditions!.map((c) =>
      c.type === "PodScheduled" || c.type === "Initialized" ? c : { type: c.type, status: "True", lastTransitionTime: T1 },
    ),
    containerStatuses: [
      {
        name: "app",
        image: "busybox",
        imageID: "sha256:abc",
        containerID: "containerd://c1",
        ready: true,
        started: true,
        restartCount: 0,
        state: { running: { startedAt: T1 } },
      },
    ],
  };
}
