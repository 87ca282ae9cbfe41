// The real node for e2e tests: a containerd (1.6 from Debian 12 or 1.7 from Debian 13) started by the
// test itself through ManagedContainerd, under its own root in /tmp, with the images `make images`
// built. Nothing is skipped: when the node cannot be brought up the test fails and says why.
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { removeCgroupTree } from "../../src/cm/cgroup-manager";
import { CriClient } from "../../src/cri/client";
import { ManagedContainerd } from "../../src/cri/managed";
import { createLogger } from "../../src/util/log";

export type ContainerdVersion = "1.6" | "1.7";
export const CONTAINERD: Record<ContainerdVersion, string> = {
  "1.6": "/usr/bin/containerd",
  "1.7": "/opt/nodeagent/containerd-1.7/bin/containerd",
};
export const PAUSE_IMAGE = "localhost/nodeagent/pause:1.0";
export const BUSYBOX_IMAGE = "localhost/nodeagent/busybox:1.35";
export const REPO = join(import.meta.dir, "../..");
export const BINARY = join(REPO, "dist/nodeagent");
/**
 * Appended to the e2e tests' shared cgroup roots, so that two runs on one machine (two work trees)
 * never remove or adopt each other's cgroups; empty by default.
 */
export const CGROUP_SUFFIX = process.env.NODEAGENT_E2E_CGROUP_SUFFIX ?? "";
/** Pods of e2e tests live under this cgroup, removed when the node stops. */
export const CGROUP_PARENT = `/nodeagent-e2e${CGROUP_SUFFIX}`;

export interface TestNode {
  version: ContainerdVersion;
  rootDir: string;
  /** Where test pods write their logs. */
  logDir: string;
  endpoint: string;
  client: CriClient;
  managed: ManagedContainerd;
  stop(): Promise<void>;
}

let seq = 0;

/** What is missing for a real node, or undefined when everything is there. */
export function missingForRealNode(version: ContainerdVersion): string | undefined {
  if (process.getuid?.() !== 0) return "e2e tests need root (containerd, runc, cgroups)";
  if (!existsSync(CONTAINERD[version])) return `containerd ${version} not found at ${CONTAINERD[version]}: run scripts/install-node.sh (make node)`;
  const images = process.env.NODEAGENT_IMAGES ?? join(REPO, ".cache/images");
  for (const f of ["pause.tar", "busybox.tar"]) {
    if (!existsSync(join(images, f))) return `image ${join(images, f)} not built: run make images (or make test)`;
  }
  if (!existsSync(BINARY)) return `${BINARY} not built: run make build (or make test)`;
  return undefined;
}

/** Starts a containerd of the given version with the test images imported. Throws if it cannot. */
export async function startNode(version: ContainerdVersion): Promise<TestNode> {
  const missing = missingForRealNode(version);
  if (missing) throw new Error(`real node unavailable: ${missing}`);
  const n = ++seq;
  const rootDir = `/tmp/na-e2e-${process.pid}-${n}`;
  rmSync(rootDir, { recursive: true, force: true });
  mkdirSync(join(rootDir, "images"), { recursive: true });
  const images = process.env.NODEAGENT_IMAGES ?? join(REPO, ".cache/images");
  for (const f of ["pause.tar", "busybox.tar"]) copyFileSync(join(images, f), join(rootDir, "images", f));
  const bridge = `nae${process.pid % 10000}x${n}`.slice(0, 15);
  const managed = new ManagedContainerd({
    rootDir,
    containerdBin: CONTAINERD[version],
    sandboxImage: PAUSE_IMAGE,
    log: createLogger("text", process.env.NODEAGENT_TEST_VERBOSE ? 3 : 1),
    bridgeName: bridge,
    networkName: bridge,
    podCidr: `10.${200 + (n % 50)}.${process.pid % 250}.0/24`,
    // A second runc handler, for RuntimeClass tests (agent-lifecycle.test.ts).
    runtimeHandlers: ["runc-alt"],
  });
  await managed.start();
  const client = new CriClient(managed.endpoint, { timeoutMs: 30_000 });
  return {
    version,
    rootDir,
    logDir: join(rootDir, "pods"),
    endpoint: managed.endpoint,
    client,
    managed,
    async stop() {
      await removeAllPods(client).catch(() => {});
      client.close();
      await managed.stop();
      unmountUnder(rootDir);
      removeCgroups(CGROUP_PARENT);
      // The CNI bridge and host-local's leases outlive the pods; they are this node's alone.
      if (existsSync(`/sys/class/net/${bridge}`)) Bun.spawnSync(["ip", "link", "delete", bridge]);
      rmSync(`/var/lib/cni/networks/${bridge}`, { recursive: true, force: true });
      rmSync(rootDir, { recursive: true, force: true });
    },
  };
}

/** Stops and removes every sandbox (and with it its containers and shims). */
export async function removeAllPods(client: CriClient): Promise<void> {
  for (const s of await client.listPodSandbox()) {
    await client.stopPodSandbox(s.id).catch(() => {});
    await client.removePodSandbox(s.id).catch(() => {});
  }
}

/** Unmounts whatever is still mounted below dir, deepest first. */
export function unmountUnder(dir: string): void {
  const mounts = readFileSync("/proc/self/mounts", "utf8")
    .split("\n")
    .map((l) => l.split(" ")[1]?.replace(/\\040/g, " "))
    .filter((m): m is string => !!m && (m === dir || m.startsWith(dir + "/")))
    .sort((a, b) => b.length - a.length);
  for (const m of mounts) Bun.spawnSync(["umount", "-l", m]);
}

/** Removes a cgroup subtree in every hierarchy (v1 and v2), children first: the agent's own remover. */
export const removeCgroups = (path: string): void => void removeCgroupTree(path);
