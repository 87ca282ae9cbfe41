// The CRI client and the managed containerd against real containerd 1.6 and 1.7: error mapping,
// reconnection after a runtime restart, and pods that outlive the containerd (and nodeagent) that
// started them.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, copyFileSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { CriClient } from "../../src/cri/client";
import { NotFoundError, UnimplementedError } from "../../src/cri/errors";
import { ManagedContainerd } from "../../src/cri/managed";
import { createLogger } from "../../src/util/log";
import { BUSYBOX_IMAGE, CONTAINERD, PAUSE_IMAGE, REPO, removeAllPods, removeCgroups, startNode, unmountUnder, CGROUP_PARENT, type TestNode } from "./node";
import { runContainer, runSandbox } from "./pods";
import { BinaryProcess, eventually } from "./proc";

/** The pid of a running container's main process, from the runtime's verbose status. */
async function containerPid(client: CriClient, id: string): Promise<number> {
  const r = await (client as unknown as { rt: (m: string, req: unknown) => Promise<{ info: Record<string, string> }> }).rt("ContainerStatus", {
    containerId: id,
    verbose: true,
  });
  return JSON.parse(r.info.info ?? "{}").pid as number;
}

for (const version of ["1.6", "1.7"] as const) {
  describe(`CRI client and managed containerd ${version}`, () => {
    let node: TestNode;
    beforeAll(async () => {
      node = await startNode(version);
    });
    afterAll(async () => {
      await node?.stop();
    });

    test("version, images imported from <root-dir>/images, NotFound mapped", async () => {
      const v = await node.client.version();
      expect(v.runtimeName).toBe("containerd");
      expect(v.runtimeVersion).toStartWith(`${version}.`);
      const tags = (await node.client.listImages()).flatMap((i) => i.repoTags);
      expect(tags).toEqual(expect.arrayContaining([PAUSE_IMAGE, BUSYBOX_IMAGE]));
      const err = await node.client.containerStatus("nonexistent").then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(NotFoundError);
    });

    test(`GetContainerEvents: ${version === "1.6" ? "UNIMPLEMENTED" : "streams"}`, async () => {
      const stream = node.client.containerEvents();
      if (version === "1.6") {
        await expect(
          (async () => {
            for await (const _ of stream) {
              /* no events */
            }
          })(),
        ).rejects.toBeInstanceOf(UnimplementedError);
      } else {
        const first = (async () => {
          for await (const ev of stream) return ev;
        })();
        const pod = await runSandbox(node, "events");
        const ev = await first;
        expect(ev?.podSandboxStatus?.metadata?.uid).toBe(pod.uid);
        stream.close();
      }
    });

    test("a containerd restart: containers keep running and the same client reconnects", async () => {
      const pod = await runSandbox(node, "survivor");
      const cid = await runContainer(node.client, pod, "sleeper", ["sleep", "3600"]);
      const pid = await containerPid(node.client, cid);
      expect(pid).toBeGreaterThan(0);
      await node.managed.stop();
      expect(node.managed.pid()).toBeUndefined();
      // The container's process lives on in its shim while containerd is down.
      expect(existsSync(`/proc/${pid}`)).toBe(true);
      expect(await node.managed.start()).toBe(true);
      const status = await eventually("the old client to answer again", () => node.client.containerStatus(cid), 10_000);
      expect(status.state).toBe("CONTAINER_RUNNING");
      expect(await containerPid(node.client, cid)).toBe(pid);
    });
  });
}

describe("nodeagent with no --runtime-endpoint starts its own containerd under --root-dir", () => {
  const rootDir = `/tmp/na-e2e-managed-${process.pid}`;
  const log = createLogger("text", 1);
  const managed = new ManagedContainerd({
    rootDir,
    containerdBin: CONTAINERD["1.6"],
    sandboxImage: PAUSE_IMAGE,
    log,
    bridgeName: "naemanaged0",
    networkName: "naemanaged0",
  });
  beforeAll(() => {
    rmSync(rootDir, { recursive: true, force: true });
    mkdirSync(join(rootDir, "images"), { recursive: true });
    const images = process.env.NODEAGENT_IMAGES ?? join(REPO, ".cache/images");
    for (const f of ["pause.tar", "busybox.tar"]) copyFileSync(join(images, f), join(rootDir, "images", f));
  });
  afterAll(async () => {
    if (!managed.pid()) await managed.start();
    const c = new CriClient(managed.endpoint);
    await removeAllPods(c);
    c.close();
    await managed.stop();
    unmountUnder(rootDir);
    removeCgroups(CGROUP_PARENT);
    Bun.spawnSync(["ip", "link", "delete", "naemanaged0"]);
    rmSync("/var/lib/cni/networks/naemanaged0", { recursive: true, force: true });
    rmSync(rootDir, { recursive: true, force: true });
  });

  test("imports the images, serves pleg watch, and on exit stops containerd but not the pods", async () => {
    if (existsSync("/run/containerd/containerd.sock") || existsSync("/var/run/crio/crio.sock")) {
      throw new Error("a system CRI socket exists; this test needs a machine without one (CI's is)");
    }
    // The binary finds containerd on PATH, as a user's machine would; its config sets our bridge.
    const watch = new BinaryProcess(["pleg", "watch", "-o", "json", "--root-dir", rootDir]);
    const pidFile = join(rootDir, "run/containerd.pid");
    await watch.waitFor("the managed containerd", () => existsSync(pidFile) && watch.json().some((l) => l.type === "ModeChanged"), 30_000);
    const pid = Number(readFileSync(pidFile, "utf8"));
    expect(watch.stderr).toContain(`started containerd pid=${pid}`);
    expect(watch.stderr).toContain("imported");
    const client = new CriClient(managed.endpoint);
    const tags = (await client.listImages()).flatMap((i) => i.repoTags);
    expect(tags).toEqual(expect.arrayContaining([PAUSE_IMAGE, BUSYBOX_IMAGE]));
    const fakeNode = { client, logDir: join(rootDir, "pods") } as TestNode;
    const pod = await runSandbox(fakeNode, "outlives");
    const cid = await runContainer(client, pod, "sleeper", ["sleep", "3600"]);
    await watch.waitFor("the container's start", () =>
      watch.json<{ type: string; container?: { id: string } }>().some((l) => l.type === "ContainerStarted" && l.container?.id === cid),
    );
    const cpid = await containerPid(client, cid);
    client.close();
    expect(await watch.interrupt()).toBe(0);
    await eventually("containerd to exit", async () => !existsSync(`/proc/${pid}`), 10_000);
    expect(existsSync(`/proc/${cpid}`)).toBe(true);
  });
});
