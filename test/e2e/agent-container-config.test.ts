// What the agent checks while making a container's config, as the kubelet's generateContainerConfig,
// through dist/nodeagent on containerd 1.6 and 1.7 (issue 24):
// - subPathExpr: `$(POD_NAME)` (downward API) on a hostPath mounts only the pod's own sub-folder; an
//   expansion to `../..` is CreateContainerConfigError with the kubelet's makeMounts message, and the
//   container never runs.
// - runAsNonRoot: runAsUser 0, or no runAsUser on the busybox image (whose configured user is empty:
//   root), is CreateContainerConfigError with verifyRunAsNonRoot's message and no container; runAsUser
//   1000 runs as uid 1000.
// - a pod field the agent cannot honour (hostUsers: false) is refused at admission (the field ledger).
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod } from "kubernetes-types/core/v1";
import { POD_UID } from "../../src/cri/labels";
import { NODE_NAME, running, useAgent, type TestAgent } from "./agent-harness";
import type { TestNode } from "./node";
import { eventually } from "./proc";

const BUSYBOX = "localhost/nodeagent/busybox:1.35";

function subPathPod(name: string, host: string, expr: string, env: string): string {
  return `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  terminationGracePeriodSeconds: 1
  containers:
    - name: main
      image: ${BUSYBOX}
      command: ["sh", "-c", "ls /data; echo written-by-${name} > /data/out; sleep 3600"]
      env: ${env}
      volumeMounts: [{ name: data, mountPath: /data, subPathExpr: ${JSON.stringify(expr)} }]
  volumes: [{ name: data, hostPath: { path: ${host}, type: Directory } }]
`;
}

function nonRootPod(name: string, securityContext: string): string {
  return `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  terminationGracePeriodSeconds: 1
  containers:
    - name: main
      image: ${BUSYBOX}
      command: ["sh", "-c", "id -u; sleep 3600"]
      securityContext: ${securityContext}
`;
}

const waitingWith = (reason: string) => (p: Pod) => p.status?.containerStatuses?.[0]?.state?.waiting?.reason === reason;

for (const version of ["1.6", "1.7"] as const) {
  describe(`container config checks on containerd ${version}`, () => {
    const env = useAgent(version);
    let node: TestNode;
    let agent: TestAgent;
    beforeAll(() => {
      node = env.node();
      agent = env.agent();
    });

    const logs = async (pod: string) => (await agent.fetch(`/containerLogs/default/${pod}-${NODE_NAME}/main`)).text();
    /** The runtime has no container of the pod: it was never created. */
    const noContainers = async (p: Pod) => (await node.client.listContainers({ labelSelector: { [POD_UID]: p.metadata!.uid! } })).length === 0;
    const remove = async (name: string) => {
      agent.removeManifest(`${name}.yaml`);
      await eventually(`pod ${name} to leave /pods`, async () => !(await agent.pod(name)), 30_000);
    };

    test("subPathExpr $(POD_NAME): each pod sees only its own sub-folder of the hostPath", async () => {
      const host = mkdtempSync(join(tmpdir(), "nodeagent-e2e-subpathexpr-"));
      for (const pod of ["alpha", "beta"]) {
        mkdirSync(join(host, `${pod}-${NODE_NAME}`));
        writeFileSync(join(host, `${pod}-${NODE_NAME}`, `only-${pod}`), "");
      }
      const podName = `[{ name: POD_NAME, valueFrom: { fieldRef: { fieldPath: metadata.name } } }]`;
      for (const pod of ["alpha", "beta"]) agent.writeManifest(`${pod}.yaml`, subPathPod(pod, host, "$(POD_NAME)", podName));
      for (const pod of ["alpha", "beta"]) {
        await agent.waitPod(pod, "running", running, 60_000);
        await eventually(`${pod}'s listing in its log`, async () => (await logs(pod)).includes(`only-${pod}`));
        const other = pod === "alpha" ? "beta" : "alpha";
        expect(await logs(pod)).not.toContain(`only-${other}`);
        expect(await logs(pod)).not.toContain(`${other}-${NODE_NAME}`);
        // What it wrote landed in its own folder, not at the volume's root.
        await eventually(`${pod}'s file in its folder`, async () => existsSync(join(host, `${pod}-${NODE_NAME}`, "out")));
      }
      expect(existsSync(join(host, "out"))).toBe(false);
      for (const pod of ["alpha", "beta"]) await remove(pod);
    }, 120_000);

    test("subPathExpr $(UP) with UP=../..: CreateContainerConfigError with the kubelet's message, the container never runs", async () => {
      const host = mkdtempSync(join(tmpdir(), "nodeagent-e2e-subpathexpr-"));
      agent.writeManifest("climber.yaml", subPathPod("climber", host, "$(UP)", `[{ name: UP, value: "../.." }]`));
      const p = await agent.waitPod("climber", "CreateContainerConfigError", waitingWith("CreateContainerConfigError"), 60_000);
      expect(p.status!.containerStatuses![0]!.state!.waiting!.message).toBe("unable to provision SubPath `../..`: must not contain '..'");
      expect(p.status!.phase).toBe("Pending");
      expect(await noContainers(p)).toBe(true);
      await remove("climber");
    }, 90_000);

    test("runAsNonRoot with runAsUser 0: CreateContainerConfigError, no container", async () => {
      agent.writeManifest("root-uid.yaml", nonRootPod("root-uid", "{ runAsNonRoot: true, runAsUser: 0 }"));
      const p = await agent.waitPod("root-uid", "CreateContainerConfigError", waitingWith("CreateContainerConfigError"), 60_000);
      expect(p.status!.containerStatuses![0]!.state!.waiting!.message).toBe(
        `container's runAsUser breaks non-root policy (pod: "root-uid-${NODE_NAME}_default(${p.metadata!.uid})", container: main)`,
      );
      expect(await noContainers(p)).toBe(true);
      await remove("root-uid");
    }, 90_000);

    test("runAsNonRoot with no runAsUser on the root busybox image: CreateContainerConfigError, no container", async () => {
      agent.writeManifest("root-image.yaml", nonRootPod("root-image", "{ runAsNonRoot: true }"));
      const p = await agent.waitPod("root-image", "CreateContainerConfigError", waitingWith("CreateContainerConfigError"), 60_000);
      expect(p.status!.containerStatuses![0]!.state!.waiting!.message).toBe(
        `container has runAsNonRoot and image will run as root (pod: "root-image-${NODE_NAME}_default(${p.metadata!.uid})", container: main)`,
      );
      expect(await noContainers(p)).toBe(true);
      await remove("root-image");
    }, 90_000);

    test("runAsNonRoot with runAsUser 1000: runs as uid 1000", async () => {
      agent.writeManifest("non-root.yaml", nonRootPod("non-root", "{ runAsNonRoot: true, runAsUser: 1000 }"));
      await agent.waitPod("non-root", "running", running, 60_000);
      await eventually("id -u in its log", async () => (await logs("non-root")).trim() === "1000");
      await remove("non-root");
    }, 90_000);

    test("a field the agent cannot honour (hostUsers: false) is refused at admission: Failed, PodFieldNotSupported, no sandbox", async () => {
      agent.writeManifest("userns.yaml", nonRootPod("userns", "{}").replace("spec:\n", "spec:\n  hostUsers: false\n"));
      const p = await agent.waitPod("userns", "Failed", (x) => x.status?.phase === "Failed", 60_000);
      expect(p.status!.reason).toBe("PodFieldNotSupported");
      expect(p.status!.message).toStartWith("Pod was rejected: spec.hostUsers: false is not supported by nodeagent");
      expect(await node.client.listPodSandbox({ labelSelector: { [POD_UID]: p.metadata!.uid! } })).toHaveLength(0);
      await remove("userns");
    }, 90_000);
  });
}
