// bench/pod-start-volumes.ts (the volumes case of make bench-pod-start, issue 15): how much a pod's
// configMap + secret + projected service-account token volumes add to its start, in one run on one
// containerd 1.6 and one agent joined to the in-process test API server. The same pod with and
// without the volumes, created in the API in turns (with, without, with, …) so that load on a shared
// machine falls on both alike; each timed from the create until GET /pods on the agent reports its
// container running. Target: the volume pod's p50 ≤ 1.2× the plain pod's.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod, PodList } from "kubernetes-types/core/v1";
import { TestApiServer, type KubernetesObject } from "../test/fakes/apiserver";
import { NODE_NAME, TestAgent } from "../test/e2e/agent-harness";
import { startNode } from "../test/e2e/node";
import { fmtMs, percentile } from "./usage";

const N = Number(process.env.BENCH_VOLUME_PODS ?? 20);
const POLL_MS = 2;

function benchPod(name: string, volumes: boolean): Pod {
  const mounts = [
    { name: "cfg", mountPath: "/etc/cfg" },
    { name: "sec", mountPath: "/etc/sec" },
    { name: "kube-api-access", mountPath: "/var/run/secrets/kubernetes.io/serviceaccount", readOnly: true },
  ];
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "default" },
    spec: {
      nodeName: NODE_NAME,
      serviceAccountName: "default",
      terminationGracePeriodSeconds: 1,
      containers: [
        { name: "main", image: "localhost/nodeagent/busybox:1.35", command: ["sh", "-c", "sleep 3600"], ...(volumes ? { volumeMounts: mounts } : {}) },
      ],
      ...(volumes
        ? {
            volumes: [
              { name: "cfg", configMap: { name: "app-config" } },
              { name: "sec", secret: { secretName: "app-secret" } },
              {
                name: "kube-api-access",
                projected: {
                  sources: [
                    { serviceAccountToken: { expirationSeconds: 3607, path: "token" } },
                    { configMap: { name: "kube-root-ca.crt", items: [{ key: "ca.crt", path: "ca.crt" }] } },
                    { downwardAPI: { items: [{ path: "namespace", fieldRef: { fieldPath: "metadata.namespace" } }] } },
                  ],
                },
              },
            ],
          }
        : {}),
    },
  };
}

async function timeStart(api: TestApiServer, agent: TestAgent, pod: Pod): Promise<number> {
  const t0 = performance.now();
  api.store.create("pods", pod as KubernetesObject);
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (Date.now() > deadline) throw new Error(`pod ${pod.metadata!.name} not running after 120 s`);
    const list = (await (await agent.fetch("/pods")).json()) as PodList;
    const p = list.items.find((x) => x.metadata?.name === pod.metadata!.name);
    if (p?.status?.containerStatuses?.length && p.status.containerStatuses.every((c) => c.state?.running)) return performance.now() - t0;
    await Bun.sleep(POLL_MS);
  }
}

const dir = mkdtempSync(join(tmpdir(), "nodeagent-bench-volumes-"));
const api = await TestApiServer.start();
const node = await startNode("1.6");
let agent: TestAgent | undefined;
try {
  const kubeconfig = join(dir, "node.kubeconfig");
  api.writeKubeconfig(kubeconfig, api.nodeToken(NODE_NAME));
  const create = (resource: string, o: object) => api.store.create(resource, o as KubernetesObject);
  create("serviceaccounts", { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "default", namespace: "default" } });
  create("configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "kube-root-ca.crt", namespace: "default" }, data: { "ca.crt": api.caPem } });
  create("configmaps", {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "app-config", namespace: "default" },
    data: { greeting: "hello", color: "blue" },
  });
  create("secrets", {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "app-secret", namespace: "default" },
    data: { password: Buffer.from("s3cret").toString("base64") },
  });
  agent = new TestAgent(node, ["--kubeconfig", kubeconfig, "--pleg-mode", "generic"]);
  await agent.start();
  // The first pod of each kind warms up what a first pod pays once (the image, the informers).
  await timeStart(api, agent, benchPod("warm-plain", false));
  await timeStart(api, agent, benchPod("warm-volumes", true));
  const plain: number[] = [];
  const withVolumes: number[] = [];
  for (let i = 0; i < N; i++) {
    // Who goes first alternates.
    if (i % 2 === 0) {
      withVolumes.push(await timeStart(api, agent, benchPod(`vol-${i}`, true)));
      plain.push(await timeStart(api, agent, benchPod(`plain-${i}`, false)));
    } else {
      plain.push(await timeStart(api, agent, benchPod(`plain-${i}`, false)));
      withVolumes.push(await timeStart(api, agent, benchPod(`vol-${i}`, true)));
    }
  }
  const v = await node.client.version();
  console.log(`pod start with volumes on ${v.runtimeName} ${v.runtimeVersion}, agent joined to the test API server: ${N} pods of each kind, in turns`);
  console.log(`  without volumes                                p50 ${fmtMs(percentile(plain, 50))}  p99 ${fmtMs(percentile(plain, 99))}`);
  console.log(`  configMap + secret + projected token volumes   p50 ${fmtMs(percentile(withVolumes, 50))}  p99 ${fmtMs(percentile(withVolumes, 99))}`);
  const ratio = percentile(withVolumes, 50) / percentile(plain, 50);
  console.log(`  with / without volumes: p50 ${ratio.toFixed(2)}× (target ≤ 1.20×): ${ratio <= 1.2 ? "met" : "NOT met"}`);
  console.log("\n" + JSON.stringify({ pods: N, plainP50: percentile(plain, 50), volumesP50: percentile(withVolumes, 50), ratio }));
} finally {
  if (agent) await agent.stop().catch(() => {});
  // A stopped agent leaves its pods running and their tmpfs volumes mounted: the node's stop removes
  // the pods and unmounts what is left under its folder.
  await node.stop();
  agent?.cleanup();
  await api.stop();
  rmSync(dir, { recursive: true, force: true });
}
