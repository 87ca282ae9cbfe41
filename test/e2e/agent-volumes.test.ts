// `nodeagent agent`'s volume manager on real containerd 1.6 and 1.7: with --local-objects a static pod
// may name a configMap, and one that cannot be made waits (FailedMount in GET /pods, no sandbox);
// without the flag the kubelet's rule refuses such a manifest; a subPath of an emptyDir is bound
// through the manager; after kill -9 the volume folders and tmpfs mounts of pods that are gone are
// unmounted and removed (nothing left in mountinfo), those of running pods kept.
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { POD_UID } from "../../src/cri/labels";
import { manifest, running, useAgent, type TestAgent } from "./agent-harness";
import type { TestNode } from "./node";
import { BinaryProcess, eventually } from "./proc";

const WITH_CONFIGMAP = `apiVersion: v1
kind: Pod
metadata:
  name: needs-config
spec:
  terminationGracePeriodSeconds: 2
  containers:
    - name: main
      image: localhost/nodeagent/busybox:1.35
      command: ["sh", "-c", "sleep 3600"]
      volumeMounts: [{ name: cfg, mountPath: /etc/app }]
  volumes:
    - name: cfg
      configMap: { name: settings }
`;

const WITH_SUBPATH = `apiVersion: v1
kind: Pod
metadata:
  name: subpath
spec:
  terminationGracePeriodSeconds: 2
  restartPolicy: Never
  initContainers:
    - name: prepare
      image: localhost/nodeagent/busybox:1.35
      command: ["sh", "-c", "mkdir -p /work/sub && echo hello > /work/sub/file"]
      volumeMounts: [{ name: work, mountPath: /work }]
  containers:
    - name: main
      image: localhost/nodeagent/busybox:1.35
      command: ["sh", "-c", "test \\"$(cat /sub/file)\\" = hello || exit 7; sleep 3600"]
      volumeMounts: [{ name: work, mountPath: /sub, subPath: sub }]
  volumes:
    - name: work
      emptyDir: {}
`;

function mountPoints(): string[] {
  return readFileSync("/proc/self/mountinfo", "utf8")
    .split("\n")
    .map((l) => l.split(" ")[4] ?? "")
    .filter(Boolean);
}

for (const version of ["1.6", "1.7"] as const) {
  describe(`agent volumes on containerd ${version}`, () => {
    // An empty objects folder: the configMap the pod names is not there (or, before the local source
    // is built in, the source says so); either way the volume cannot be made.
    const env = useAgent(version, () => ["--local-objects", mkdtempSync(join(tmpdir(), "nodeagent-e2e-objects-"))]);
    let node: TestNode;
    let agent: TestAgent;
    beforeAll(() => {
      node = env.node();
      agent = env.agent();
    });

    test("with --local-objects, a static pod whose configMap volume cannot be made waits: FailedMount in GET /pods, no sandbox", async () => {
      agent.writeManifest("needs-config.yaml", WITH_CONFIGMAP);
      const p = await agent.waitPod("needs-config", "waiting on its volume", (x) => !!x.status?.containerStatuses?.[0]?.state?.waiting?.message);
      expect(p.status?.phase).toBe("Pending");
      const waiting = p.status!.containerStatuses![0]!.state!.waiting!;
      expect(waiting.reason).toBe("ContainerCreating");
      expect(waiting.message).toStartWith("Unable to attach or mount volumes: unmounted volumes=[cfg], unattached volumes=[cfg]: ");
      expect(waiting.message).toContain(`MountVolume.SetUp failed for volume "cfg" : `);
      expect(p.status!.conditions!.find((c) => c.type === "PodReadyToStartContainers")).toMatchObject({ status: "False", reason: "FailedMount" });
      expect(await node.client.listPodSandbox({ labelSelector: { [POD_UID]: p.metadata!.uid! } })).toHaveLength(0);

      // pleg watch --agent says why, though the runtime has nothing of the pod: a Waiting event with
      // the agent's reason and message, and WaitEnded once the pod is gone.
      const tokenFile = join(agent.dir, "pleg-token");
      writeFileSync(tokenFile, `${agent.token}\n`, { mode: 0o600 });
      const watch = new BinaryProcess([
        "pleg",
        "watch",
        "--runtime-endpoint",
        node.endpoint,
        "--mode",
        "generic",
        "-o",
        "json",
        "--relist-period",
        "300ms",
        "--agent",
        agent.url,
        "--token-file",
        tokenFile,
      ]);
      try {
        const waiting = await watch.waitFor("a Waiting event for the pod", () =>
          watch
            .json<{ type: string; pod?: { name: string }; reason?: string; message?: string }>()
            .find((e) => e.type === "Waiting" && e.pod?.name === p.metadata!.name),
        );
        expect(waiting.reason).toBe("FailedMount");
        expect(waiting.message).toStartWith("Unable to attach or mount volumes: unmounted volumes=[cfg]");
        agent.removeManifest("needs-config.yaml");
        await eventually("the pod to leave /pods", async () => !(await agent.pod("needs-config")));
        await watch.waitFor("WaitEnded", () =>
          watch.json<{ type: string; pod?: { name: string } }>().find((e) => e.type === "WaitEnded" && e.pod?.name === p.metadata!.name),
        );
      } finally {
        await watch.interrupt();
      }
    }, 60_000);

    test("a subPath of an emptyDir is bound from the volume the manager made", async () => {
      agent.writeManifest("subpath.yaml", WITH_SUBPATH);
      const p = await agent.waitPod("subpath", "running", running, 60_000);
      expect(p.status!.containerStatuses![0]!.restartCount).toBe(0);
      agent.removeManifest("subpath.yaml");
      await eventually("the pod to leave /pods", async () => !(await agent.pod("subpath")), 30_000);
    }, 90_000);

    test("kill -9, a pod removed meanwhile: its tmpfs is unmounted and its folder removed; a running pod's volume kept", async () => {
      agent.writeManifest("keep.yaml", manifest("keep", "sleep 3600"));
      const kept = await agent.waitPod("keep", "running", running);
      const podsDir = join(agent.dir, "root", "pods");
      const keptVolume = join(podsDir, kept.metadata!.uid!, "volumes", "kubernetes.io~empty-dir", "work");
      expect(existsSync(keptVolume)).toBe(true);
      await agent.crash();
      // What a run that died left of a pod that is gone: a memory volume still mounted.
      const goneUid = "0b6f4c1e-9d41-4a70-8c7e-2f1f5c3a9d11";
      const tmpfs = join(podsDir, goneUid, "volumes", "kubernetes.io~secret", "token");
      mkdirSync(tmpfs, { recursive: true });
      expect(Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", tmpfs]).exitCode).toBe(0);
      expect(mountPoints()).toContain(tmpfs);
      await agent.start();
      await eventually(
        "the gone pod's tmpfs to be unmounted and its folder removed",
        async () => !mountPoints().includes(tmpfs) && !existsSync(join(podsDir, goneUid)),
        30_000,
      );
      expect(mountPoints().filter((m) => m.startsWith(join(podsDir, goneUid)))).toEqual([]);
      expect(existsSync(keptVolume)).toBe(true);
      const after = await agent.waitPod("keep", "running", running);
      expect(after.metadata!.uid).toBe(kept.metadata!.uid!);
      agent.removeManifest("keep.yaml");
      await eventually("the pod to leave /pods", async () => !(await agent.pod("keep")), 30_000);
    }, 120_000);
  });
}
