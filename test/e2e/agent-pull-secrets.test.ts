// imagePullSecrets end to end (issue 15), through the compiled agent as a node of the in-process test
// API server, on containerd 1.6 and 1.7, against Debian's docker-registry on 127.0.0.1 with basic
// authentication: without a pull secret the pull is refused (ErrImagePull / ImagePullBackOff); with a
// kubernetes.io/dockerconfigjson secret holding the credentials the pod runs; with a wrong password
// it does not; a secret that does not exist is skipped, as the kubelet does, and the pull fails.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod } from "kubernetes-types/core/v1";
import { TestApiServer, type KubernetesObject } from "../fakes/apiserver";
import { NODE_NAME, useAgent } from "./agent-harness";
import { REPO } from "./node";
import { eventually } from "./proc";
import { TestRegistry } from "./registry";

const b64 = (s: string) => Buffer.from(s).toString("base64");
const CREDS = { user: "puller", password: "s3cret-pw" };

function dockerConfig(host: string, password: string): string {
  return JSON.stringify({ auths: { [host]: { username: CREDS.user, password, auth: b64(`${CREDS.user}:${password}`) } } });
}

for (const version of ["1.6", "1.7"] as const) {
  describe(`imagePullSecrets against a registry with basic auth, containerd ${version}`, () => {
    const dir = mkdtempSync(join(tmpdir(), "nodeagent-pull-secrets-"));
    const kubeconfig = join(dir, "node.kubeconfig");
    let api: TestApiServer;
    let registry: TestRegistry;
    beforeAll(async () => {
      registry = new TestRegistry(join(dir, "registry"), CREDS);
      await registry.start();
      registry.push(join(process.env.NODEAGENT_IMAGES ?? join(REPO, ".cache/images"), "busybox.tar"), "private/busybox:1");
      api = await TestApiServer.start();
      api.writeKubeconfig(kubeconfig, api.nodeToken(NODE_NAME));
      api.store.create("secrets", {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "regcred", namespace: "default" },
        type: "kubernetes.io/dockerconfigjson",
        data: { ".dockerconfigjson": b64(dockerConfig(registry.host, CREDS.password)) },
      } as KubernetesObject);
      api.store.create("secrets", {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "wrongcred", namespace: "default" },
        type: "kubernetes.io/dockerconfigjson",
        data: { ".dockerconfigjson": b64(dockerConfig(registry.host, "not-it")) },
      } as KubernetesObject);
    });
    afterAll(async () => {
      await api?.stop();
      await registry?.stop();
      rmSync(dir, { recursive: true, force: true });
    });
    useAgent(version, () => ["--kubeconfig", kubeconfig, "--node-status-update-frequency", "2s"]);

    const pod = (name: string, secrets: string[]): Pod => ({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name, namespace: "default" },
      spec: {
        nodeName: NODE_NAME,
        terminationGracePeriodSeconds: 1,
        ...(secrets.length ? { imagePullSecrets: secrets.map((name) => ({ name })) } : {}),
        containers: [{ name: "main", image: `${registry.host}/private/busybox:1`, imagePullPolicy: "Always", command: ["sleep", "3600"] }],
      },
    });
    const stored = (name: string) => api.store.get("pods", "default", name) as Pod | undefined;
    const waitingReason = (name: string) => stored(name)?.status?.containerStatuses?.[0]?.state?.waiting?.reason;

    test("no pull secret: the registry refuses the pull", async () => {
      api.store.create("pods", pod("anonymous", []) as KubernetesObject);
      // ErrImagePull carries the runtime's error (the back-off between attempts only says it waits).
      const message = await eventually(
        "ErrImagePull with the registry's refusal",
        async () => {
          const w = stored("anonymous")?.status?.containerStatuses?.[0]?.state?.waiting;
          return w?.reason === "ErrImagePull" ? w.message : undefined;
        },
        60_000,
      );
      expect(message).toMatch(/401|nauthorized|authoriz/);
    }, 90_000);

    test("a dockerconfigjson secret with the credentials: the pod runs; a wrong password or a missing secret does not", async () => {
      api.store.create("pods", pod("with-secret", ["missing-secret", "regcred"]) as KubernetesObject);
      api.store.create("pods", pod("wrong-secret", ["wrongcred"]) as KubernetesObject);
      await eventually("the pod with the secret Running", async () => stored("with-secret")?.status?.phase === "Running" || undefined, 60_000);
      const reason = await eventually(
        "a pull error with the wrong password",
        async () => {
          const r = waitingReason("wrong-secret");
          return r === "ErrImagePull" || r === "ImagePullBackOff" ? r : undefined;
        },
        60_000,
      );
      expect(["ErrImagePull", "ImagePullBackOff"]).toContain(reason);
      expect(stored("wrong-secret")?.status?.phase).toBe("Pending");
    }, 90_000);
  });
}
