// The volumes and config of a cluster's pods (issue 15), through the compiled binary on containerd 1.6
// and 1.7, joined with a node's own credentials to the in-process test API server: a pod with a
// configMap volume (and a subPath of it), a secret volume (on tmpfs), the projected kube-api-access
// volume the ServiceAccount admission adds (a token bound to the pod, the cluster CA, the namespace), a
// downwardAPI volume, envFrom and key refs — the container reads them; a configMap update reaches the
// mounted file and not the subPath one; a missing secret is CreateContainerConfigError until it is
// created; a deleted pod leaves no mount behind; the container's env has the service-link variables
// (KUBERNETES_SERVICE_HOST/PORT for in-cluster clients, its namespace's services, docker-link style).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod } from "kubernetes-types/core/v1";
import { POD_UID } from "../../src/cri/labels";
import { readMountInfo } from "../../src/volume/mount";
import { decodeToken, TestApiServer, type KubernetesObject } from "../fakes/apiserver";
import { NODE_NAME, useAgent, type TestAgent } from "./agent-harness";
import type { TestNode } from "./node";
import { eventually } from "./proc";

const b64 = (s: string) => Buffer.from(s).toString("base64");

/** What the ServiceAccount admission plugin adds to every pod (kube-api-access-*), as 1.24 writes it. */
const KUBE_API_ACCESS = {
  name: "kube-api-access-x1",
  projected: {
    defaultMode: 420,
    sources: [
      { serviceAccountToken: { expirationSeconds: 3607, path: "token" } },
      { configMap: { name: "kube-root-ca.crt", items: [{ key: "ca.crt", path: "ca.crt" }] } },
      { downwardAPI: { items: [{ path: "namespace", fieldRef: { apiVersion: "v1", fieldPath: "metadata.namespace" } }] } },
    ],
  },
};

function podWithEverything(name: string): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "default", labels: { app: name } },
    spec: {
      nodeName: NODE_NAME,
      serviceAccountName: "default",
      terminationGracePeriodSeconds: 2,
      containers: [
        {
          name: "main",
          image: "localhost/nodeagent/busybox:1.35",
          command: ["sh", "-c", "sleep 3600"],
          envFrom: [{ configMapRef: { name: "app-config" }, prefix: "CFG_" }],
          env: [
            { name: "PASSWORD", valueFrom: { secretKeyRef: { name: "app-secret", key: "password" } } },
            { name: "COLOR", valueFrom: { configMapKeyRef: { name: "app-config", key: "color" } } },
            { name: "POD_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
          ],
          volumeMounts: [
            { name: "cfg", mountPath: "/etc/cfg" },
            { name: "cfg", mountPath: "/etc/greeting", subPath: "greeting" },
            { name: "sec", mountPath: "/etc/sec" },
            { name: "info", mountPath: "/etc/info" },
            { name: KUBE_API_ACCESS.name, mountPath: "/var/run/secrets/kubernetes.io/serviceaccount", readOnly: true },
          ],
        },
      ],
      volumes: [
        { name: "cfg", configMap: { name: "app-config" } },
        { name: "sec", secret: { secretName: "app-secret", defaultMode: 0o400 } },
        { name: "info", downwardAPI: { items: [{ path: "labels", fieldRef: { fieldPath: "metadata.labels" } }] } },
        KUBE_API_ACCESS,
      ],
    },
  };
}

for (const version of ["1.6", "1.7"] as const) {
  describe(`a cluster pod's volumes and config on containerd ${version}`, () => {
    const dir = mkdtempSync(join(tmpdir(), "nodeagent-cluster-volumes-"));
    let api: TestApiServer;
    const kubeconfig = join(dir, "node.kubeconfig");
    beforeAll(async () => {
      api = await TestApiServer.start();
      api.writeKubeconfig(kubeconfig, api.nodeToken(NODE_NAME));
      api.store.create("serviceaccounts", {
        apiVersion: "v1",
        kind: "ServiceAccount",
        metadata: { name: "default", namespace: "default" },
      } as KubernetesObject);
      api.store.create("configmaps", {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "kube-root-ca.crt", namespace: "default" },
        data: { "ca.crt": api.caPem },
      } as KubernetesObject);
      api.store.create("configmaps", {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "app-config", namespace: "default" },
        data: { greeting: "hello", color: "blue" },
      } as KubernetesObject);
      api.store.create("secrets", {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "app-secret", namespace: "default" },
        type: "Opaque",
        data: { password: b64("s3cret") },
      } as KubernetesObject);
      // Services exist before the agent starts: its service informer lists them at start.
      api.store.create("services", {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: "back-end", namespace: "default" },
        spec: {
          ports: [
            { name: "http", port: 8080 },
            { name: "dns", port: 53, protocol: "UDP" },
          ],
        },
      } as KubernetesObject);
      api.store.create("services", {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: "headless", namespace: "default" },
        spec: { clusterIP: "None", ports: [{ port: 80 }] },
      } as KubernetesObject);
      api.store.create("namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "other" } } as KubernetesObject);
      api.store.create("services", {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: "elsewhere", namespace: "other" },
        spec: { ports: [{ port: 80 }] },
      } as KubernetesObject);
    });
    afterAll(async () => {
      await api?.stop();
      rmSync(dir, { recursive: true, force: true });
    });
    const { agent, node } = useAgent(version, () => ["--kubeconfig", kubeconfig, "--node-status-update-frequency", "2s"]);

    const storedPod = (name: string) => api.store.get("pods", "default", name) as Pod | undefined;
    /** The pod's running container of that name, and a shell command's output in it. */
    async function inContainer(n: TestNode, uid: string, cmd: string): Promise<string> {
      const [c] = await n.client.listContainers({ labelSelector: { [POD_UID]: uid }, state: { state: "CONTAINER_RUNNING" } });
      if (!c) throw new Error(`no running container of pod ${uid}`);
      const r = await n.client.execSync(c.id, ["sh", "-c", cmd], 10);
      return new TextDecoder().decode(r.stdout).trim();
    }
    const podsDir = (a: TestAgent) => join(a.dir, "root", "pods");
    const mountsOf = (a: TestAgent, uid: string) =>
      readMountInfo().filter((m) => m.mountPoint.includes(`/pods/${uid}/`) && m.mountPoint.startsWith(podsDir(a).replace(/\/+$/, "")));

    test("the container reads its configMap, secret, projected token and downwardAPI volumes and its env from objects", async () => {
      api.store.create("pods", podWithEverything("everything") as KubernetesObject);
      const running = await eventually(
        "the pod Running in the API",
        async () => (storedPod("everything")?.status?.phase === "Running" ? storedPod("everything") : undefined),
        90_000,
      );
      const uid = running!.metadata!.uid!;
      const out = await inContainer(
        node(),
        uid,
        [
          "echo env:$CFG_greeting,$CFG_color,$PASSWORD,$COLOR,$POD_NAME",
          "echo cfg:$(cat /etc/cfg/greeting),$(cat /etc/greeting)",
          "echo sec:$(cat /etc/sec/password),$(stat -L -c %a /etc/sec/password)",
          "echo info:$(cat /etc/info/labels)",
          "echo ns:$(cat /var/run/secrets/kubernetes.io/serviceaccount/namespace)",
          "echo ca:$(head -1 /var/run/secrets/kubernetes.io/serviceaccount/ca.crt)",
          "echo token:$(cat /var/run/secrets/kubernetes.io/serviceaccount/token)",
          "touch /etc/cfg/x 2>/dev/null && echo ro:no || echo ro:yes",
        ].join("; "),
      );
      const line = (k: string) =>
        out
          .split("\n")
          .find((l) => l.startsWith(`${k}:`))!
          .slice(k.length + 1);
      expect(line("env")).toBe("hello,blue,s3cret,blue,everything");
      expect(line("cfg")).toBe("hello,hello");
      expect(line("sec")).toBe("s3cret,400");
      expect(line("info")).toBe('app="everything"');
      expect(line("ns")).toBe("default");
      expect(line("ca")).toBe("-----BEGIN CERTIFICATE-----");
      expect(line("ro")).toBe("yes");
      // The token was asked for this pod: bound to its name and uid, for the default service account.
      const claims = decodeToken(line("token"));
      expect(JSON.stringify(claims)).toContain(uid);
      expect(claims.sub).toBe("system:serviceaccount:default:default");
      // The secret and the projected volume are on tmpfs, never on disk; the configMap is on disk.
      const mounts = mountsOf(agent(), uid);
      expect(mounts.find((m) => m.mountPoint.endsWith("kubernetes.io~secret/sec"))?.fsType).toBe("tmpfs");
      expect(mounts.find((m) => m.mountPoint.endsWith(`kubernetes.io~projected/${KUBE_API_ACCESS.name}`))?.fsType).toBe("tmpfs");
      expect(mounts.some((m) => m.mountPoint.includes("kubernetes.io~configmap"))).toBe(false);
    }, 120_000);

    test("a configMap update reaches the mounted file, not the subPath one", async () => {
      const uid = storedPod("everything")!.metadata!.uid!;
      const cm = api.store.get("configmaps", "default", "app-config") as KubernetesObject;
      api.store.update("configmaps", { ...cm, data: { greeting: "bonjour", color: "blue" } } as KubernetesObject);
      await eventually(
        "the mounted file updated",
        async () => ((await inContainer(node(), uid, "cat /etc/cfg/greeting")) === "bonjour" ? true : undefined),
        60_000,
      );
      expect(await inContainer(node(), uid, "cat /etc/greeting")).toBe("hello");
    }, 90_000);

    test("a missing secret is CreateContainerConfigError with the kubelet's message; the container starts once it exists", async () => {
      const pod = podWithEverything("late");
      pod.spec!.containers[0]!.env = [{ name: "LATE", valueFrom: { secretKeyRef: { name: "late-secret", key: "v" } } }];
      api.store.create("pods", pod as KubernetesObject);
      const waiting = await eventually(
        "CreateContainerConfigError in the API",
        async () => {
          const w = storedPod("late")?.status?.containerStatuses?.[0]?.state?.waiting;
          return w?.reason === "CreateContainerConfigError" ? w : undefined;
        },
        60_000,
      );
      expect(waiting.message).toBe('secret "late-secret" not found');
      api.store.create("secrets", {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "late-secret", namespace: "default" },
        data: { v: b64("now") },
      } as KubernetesObject);
      const running = await eventually(
        "the late pod Running",
        async () => (storedPod("late")?.status?.phase === "Running" ? storedPod("late") : undefined),
        60_000,
      );
      expect(await inContainer(node(), running!.metadata!.uid!, "echo $LATE")).toBe("now");
    }, 150_000);

    test("the container's env has the service-link variables: the master service, its namespace's services, lowest precedence", async () => {
      const backEnd = (api.store.get("services", "default", "back-end") as { spec: { clusterIP: string } }).spec.clusterIP;
      const pod: Pod = {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "svc-env", namespace: "default" },
        spec: {
          nodeName: NODE_NAME,
          terminationGracePeriodSeconds: 2,
          containers: [
            {
              name: "main",
              image: "localhost/nodeagent/busybox:1.35",
              command: ["sh", "-c", "sleep 3600"],
              env: [
                { name: "API", value: "https://$(KUBERNETES_SERVICE_HOST):$(KUBERNETES_SERVICE_PORT)" },
                { name: "BACK_END_SERVICE_PORT", value: "mine" },
              ],
            },
          ],
        },
      };
      api.store.create("pods", pod as KubernetesObject);
      const running = await eventually(
        "the svc-env pod Running",
        async () => (storedPod("svc-env")?.status?.phase === "Running" ? storedPod("svc-env") : undefined),
        90_000,
      );
      const env = new Map(
        (await inContainer(node(), running!.metadata!.uid!, "env")).split("\n").map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)] as const),
      );
      expect(env.get("KUBERNETES_SERVICE_HOST")).toBe("10.96.0.1");
      expect(env.get("KUBERNETES_SERVICE_PORT")).toBe("443");
      expect(env.get("KUBERNETES_SERVICE_PORT_HTTPS")).toBe("443");
      expect(env.get("KUBERNETES_PORT_443_TCP")).toBe("tcp://10.96.0.1:443");
      expect(env.get("API")).toBe("https://10.96.0.1:443");
      expect(env.get("BACK_END_SERVICE_HOST")).toBe(backEnd);
      expect(env.get("BACK_END_SERVICE_PORT")).toBe("mine");
      expect(env.get("BACK_END_SERVICE_PORT_HTTP")).toBe("8080");
      expect(env.get("BACK_END_SERVICE_PORT_DNS")).toBe("53");
      expect(env.get("BACK_END_PORT")).toBe(`tcp://${backEnd}:8080`);
      expect(env.get("BACK_END_PORT_53_UDP")).toBe(`udp://${backEnd}:53`);
      expect(env.get("BACK_END_PORT_53_UDP_PROTO")).toBe("udp");
      expect(env.get("BACK_END_PORT_53_UDP_ADDR")).toBe(backEnd);
      // Headless services and other namespaces' services give nothing.
      expect([...env.keys()].filter((k) => k.startsWith("HEADLESS_") || k.startsWith("ELSEWHERE_"))).toEqual([]);
      api.store.delete("pods", "default", "svc-env");
    }, 120_000);

    test("a deleted pod leaves no mount and no volume folder behind", async () => {
      const uid = storedPod("everything")!.metadata!.uid!;
      expect(mountsOf(agent(), uid).length).toBeGreaterThan(0);
      api.store.delete("pods", "default", "everything");
      await eventually("the pod gone from the API", async () => (storedPod("everything") ? undefined : true), 60_000);
      await eventually("its mounts gone", async () => (mountsOf(agent(), uid).length === 0 ? true : undefined), 30_000);
    }, 90_000);
  });
}
