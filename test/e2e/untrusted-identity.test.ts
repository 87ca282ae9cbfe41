// Issue 12, findings 1, 2 and the push source's share of 4, through the compiled agent on real
// containerd 1.6 and 1.7:
//   (a) a pushed pod and a URL pod whose metadata.uid is a traversal ("../…/victim", "..") run under
//       the agent's own UID, and neither running nor deleting them creates or removes anything
//       outside --root-dir, --pod-logs-dir and --cgroup-root (a sentinel folder beside the root
//       survives; the root itself survives uid "..");
//   (b) a push that reuses a static pod's UID, or its name, cannot take the static pod over: 409 for
//       the name, its own derived UID otherwise; the static pod's container is never touched;
//   (c) a corrupt pushed-pods.json at a restart loses no pod: the pushed pods' containers keep their
//       IDs, pushes answer 503 until the file is fixed, and then the pods are adopted as they run.
// On the main branch before this change each of these fails: (a) the rm -rf of <root>/pods/<uid>
// removed the victim folder and, for "..", the root; (b) the intruder replaced the static pod's
// container; (c) the unreadable file started the push source empty and its pods were orphaned.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Pod, PodList } from "kubernetes-types/core/v1";
import YAML from "yaml";
import { NODE_NAME, TestAgent, manifest, running } from "./agent-harness";
import { removeCgroups, startNode, type TestNode } from "./node";
import { eventually } from "./proc";

const TOKEN = "untrusted-identity-token";
const HEX_UID = /^[0-9a-f]{32}$/;

/** A harness pod as a JSON object with metadata.uid set to whatever a client may write. */
function podWithUid(name: string, uid: string | undefined): Pod {
  const pod = YAML.parse(manifest(name, "sleep 3600")) as Pod;
  return uid === undefined ? pod : { ...pod, metadata: { ...pod.metadata, uid } };
}

/** The cgroup hierarchies: the unified one (v2) or one per controller (v1). */
function cgroupRoots(): string[] {
  const base = "/sys/fs/cgroup";
  return existsSync(join(base, "cgroup.controllers")) ? [base] : readdirSync(base).map((d) => join(base, d));
}

/** This test's own --cgroup-root: agents of other tests (or other checkouts) never put folders in it. */
const CGROUP_ROOT = "/nodeagent-e2e-untrusted";

/** The folders directly in a cgroup folder. */
const subfolders = (dir: string): string[] =>
  existsSync(dir)
    ? readdirSync(dir, { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => d.name)
    : [];

/**
 * No cgroup named after the traversal target, and under --cgroup-root only the kubelet's hierarchy:
 * kubepods, its burstable and besteffort, and pod<uid> folders in those three.
 */
function expectNoCgroupOutside(target: string): void {
  for (const r of cgroupRoots()) {
    expect(existsSync(join(r, target))).toBe(false);
    const ours = join(r, CGROUP_ROOT);
    for (const d of subfolders(ours)) expect(d).toBe("kubepods");
    for (const d of subfolders(join(ours, "kubepods"))) expect(d).toMatch(/^(pod[a-z0-9-]+|burstable|besteffort)$/);
    for (const qos of ["burstable", "besteffort"]) for (const d of subfolders(join(ours, "kubepods", qos))) expect(d).toMatch(/^pod[a-z0-9-]+$/);
  }
}

for (const version of ["1.6", "1.7"] as const) {
  describe(`untrusted pod identities on containerd ${version}`, () => {
    let node: TestNode;
    let agent: TestAgent;
    let root = "";
    let victim = "";
    /** What the URL serves: a PodList, as JSON; always a placeholder pod, so the list is never empty. */
    const PLACEHOLDER = podWithUid("placeholder", undefined);
    let served: Pod[] = [PLACEHOLDER];
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () => Response.json({ apiVersion: "v1", kind: "PodList", items: served }),
    });
    const auth = { authorization: `Bearer ${TOKEN}` };
    const push = (pod: Pod) =>
      fetch(`${agent.url}/pods`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify(pod) });
    const remove = (name: string) => fetch(`${agent.url}/pods/default/${name}`, { method: "DELETE", headers: auth });
    /** /pods with the token (reads may need it too). */
    const pods = async (): Promise<Pod[]> => ((await (await fetch(`${agent.url}/pods`, { headers: auth })).json()) as PodList).items;
    const find = async (name: string) => (await pods()).find((p) => p.metadata?.name === name);
    const waitRunning = (name: string, timeoutMs = 40_000) =>
      eventually(
        `pod ${name} running`,
        async () => {
          const p = await find(name);
          return p && running(p) ? p : undefined;
        },
        timeoutMs,
        200,
      );
    const containerId = (p: Pod) => p.status?.containerStatuses?.[0]?.containerID ?? "";

    beforeAll(async () => {
      node = await startNode(version);
      const tokenFile = join(node.rootDir, "token");
      writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
      agent = new TestAgent(
        node,
        ["--manifest-url", `http://127.0.0.1:${server.port}/pods.json`, "--http-check-frequency", "1s", "--push-token-file", tokenFile],
        undefined,
        { cgroupRoot: CGROUP_ROOT },
      );
      root = join(agent.dir, "root");
      // The sentinel: a folder beside the root with a file in it, which every traversal aims at.
      victim = join(agent.dir, "victim");
      mkdirSync(victim, { recursive: true });
      writeFileSync(join(victim, "keep.txt"), "must survive");
      await agent.start();
    });
    afterAll(async () => {
      server.stop(true);
      if (agent) await agent.stop().catch(() => {});
      await node?.stop();
      agent?.cleanup();
      // Only an agent that lets a UID escape leaves cgroups named after this node's folders (an old
      // binary did: <hierarchy>/tmp/na-e2e-…/agent/victim); remove them, and their parent if empty.
      if (node) {
        removeCgroups(node.rootDir);
        for (const r of cgroupRoots()) {
          try {
            rmdirSync(join(r, "tmp"));
          } catch {
            /* absent (the usual case) or someone else's */
          }
        }
      }
    });

    /**
     * Runs two pods whose metadata.uid is a traversal (to the victim, and "..") from one source, then
     * deletes them, checking after each step that nothing outside the roots was made or removed.
     */
    async function traversal(source: "push" | "http"): Promise<void> {
      // Beside the sentinel: the agent's manifest folder, --root-dir and --pod-logs-dir, nothing else.
      const expected = ["logs", "manifests", "root", "victim"];
      // Enough ".." to reach / from any root, then the victim's absolute path.
      const escape = `${"../".repeat(16)}${victim.slice(1)}`;
      const evil = podWithUid(`evil-${source}`, escape);
      const dots = podWithUid(`dots-${source}`, "..");
      if (source === "push") {
        expect((await push(evil)).status).toBe(201);
        expect((await push(dots)).status).toBe(201);
      } else {
        served = [PLACEHOLDER, evil, dots];
      }
      const names = source === "push" ? ["evil-push", "dots-push"] : [`evil-http-${NODE_NAME}`, `dots-http-${NODE_NAME}`];
      const started = await Promise.all(names.map((n) => waitRunning(n)));
      // Running them made nothing outside the roots: not in the victim, not beside the root, no cgroup.
      expect(readdirSync(victim)).toEqual(["keep.txt"]);
      expect(readdirSync(agent.dir).sort()).toEqual(expected);
      expectNoCgroupOutside(victim);
      const uids = started.map((p) => p.metadata!.uid!);
      for (const uid of uids) expect(uid).toMatch(HEX_UID);
      expect(new Set(uids).size).toBe(2);
      // The runtime knows them by the derived UIDs too, and their folders are under the root.
      for (const uid of uids) {
        expect((await node.client.listPodSandbox({ labelSelector: { "io.kubernetes.pod.uid": uid } })).length).toBe(1);
        expect(statSync(join(root, "pods", uid, "volumes", "kubernetes.io~empty-dir", "work")).isDirectory()).toBe(true);
      }

      // Delete both: the pushed ones through the API, the URL's by serving only the placeholder.
      if (source === "push") {
        expect((await remove("evil-push")).status).toBe(200);
        expect((await remove("dots-push")).status).toBe(200);
      } else {
        served = [PLACEHOLDER];
      }
      // Removal done: every pod's folder under the root is gone (the positive sign that rm -rf ran).
      await eventually("the deleted pods' folders to be removed", async () => uids.every((uid) => !existsSync(join(root, "pods", uid))), 40_000, 200);
      // GET /pods lists a pod until its worker has finished the clean-up that removed that folder.
      for (const n of names) await eventually(`pod ${n} gone from GET /pods`, async () => ((await find(n)) === undefined ? true : undefined), 30_000, 200);

      expect(readFileSync(join(victim, "keep.txt"), "utf8")).toBe("must survive");
      expect(readdirSync(victim)).toEqual(["keep.txt"]);
      expect(readdirSync(agent.dir).sort()).toEqual(expected);
      expect(existsSync(join(root, "pushed-pods.json"))).toBe(true);
      expect(existsSync(join(root, "pods"))).toBe(true);
      expect(running((await find(`placeholder-${NODE_NAME}`))!)).toBe(true);
      expectNoCgroupOutside(victim);
      // The pod log folders are <ns>_<name>_<derived uid>, all inside --pod-logs-dir.
      for (const l of readdirSync(join(agent.dir, "logs"))) expect(l).toMatch(/^default_[a-z0-9.-]+_[0-9a-f]{32}$/);
    }

    test("(a) pushed pods with traversal UIDs run under derived UIDs; nothing outside the roots is made or removed", async () => {
      await waitRunning(`placeholder-${NODE_NAME}`);
      await traversal("push");
    }, 180_000);

    test("(a) URL pods with traversal UIDs run under derived UIDs; nothing outside the roots is made or removed", async () => {
      await traversal("http");
    }, 180_000);

    test("(b) a push cannot take over a static pod: 409 for its name, its own UID for its UID; the static container is untouched", async () => {
      agent.writeManifest("web.yaml", manifest("web", "sleep 3600"));
      const staticPod = await waitRunning(`web-${NODE_NAME}`);
      const staticUid = staticPod.metadata!.uid!;
      const staticContainer = containerId(staticPod);

      const sameName = await push(podWithUid(`web-${NODE_NAME}`, staticUid));
      expect(sameName.status).toBe(409);
      expect(((await sameName.json()) as { message: string }).message).toContain(`pod default/web-${NODE_NAME} is held by source file (UID ${staticUid})`);
      expect((await push(podWithUid(`web-${NODE_NAME}`, undefined))).status).toBe(409);

      const other = await push(podWithUid("intruder", staticUid));
      expect(other.status).toBe(201);
      const accepted = (await other.json()) as Pod;
      expect(accepted.metadata!.uid).toMatch(HEX_UID);
      expect(accepted.metadata!.uid).not.toBe(staticUid);
      const intruder = await waitRunning("intruder");
      expect(intruder.metadata!.uid).toBe(accepted.metadata!.uid!);

      const after = await find(`web-${NODE_NAME}`);
      expect(after?.metadata?.uid).toBe(staticUid);
      expect(running(after!)).toBe(true);
      expect(containerId(after!)).toBe(staticContainer);
      expect(after!.status!.containerStatuses![0]!.restartCount).toBe(0);
      const inRuntime = await node.client.listContainers({ labelSelector: { "io.kubernetes.pod.uid": staticUid } });
      expect(inRuntime.map((c) => `${c.id}:${c.state}`)).toEqual([`${staticContainer.replace(/^[a-z]+:\/\//, "")}:CONTAINER_RUNNING`]);

      expect((await remove("intruder")).status).toBe(200);
      await eventually("the intruder to go", async () => !(await find("intruder")), 40_000, 200);
      const last = await find(`web-${NODE_NAME}`);
      expect(containerId(last!)).toBe(staticContainer);
      expect(running(last!)).toBe(true);
    }, 180_000);

    test("(c) a corrupt pushed-pods.json at a restart loses no pod: same container IDs, 503 until fixed, then adopted", async () => {
      expect((await push(podWithUid("kept-a", undefined))).status).toBe(201);
      expect((await push(podWithUid("kept-b", undefined))).status).toBe(201);
      const before = await Promise.all(["kept-a", "kept-b"].map((n) => waitRunning(n)));
      const state = join(root, "pushed-pods.json");
      const good = readFileSync(state, "utf8");

      await agent.stop();
      writeFileSync(state, good.slice(0, Math.floor(good.length / 2)));
      await agent.start();
      await agent.proc.waitFor("the unreadable state file reported", () => agent.proc.stderr.includes("the pushed pods cannot be read back") || undefined);
      // The static pod is synced again: the agent is running its loop (and its housekeeping) now.
      await waitRunning(`web-${NODE_NAME}`);
      // Housekeeping runs every 2 s; on the old agent the orphans were gone within one pass. Three
      // passes must remove nothing (a fixed wait: it checks that something does NOT happen).
      await Bun.sleep(6_000);
      for (const p of before) {
        const listed = await node.client.listContainers({ labelSelector: { "io.kubernetes.pod.uid": p.metadata!.uid! } });
        expect(listed.map((c) => `${c.id}:${c.state}`)).toEqual([`${containerId(p).replace(/^[a-z]+:\/\//, "")}:CONTAINER_RUNNING`]);
      }
      expect(agent.proc.stderr).not.toContain("every pod source has been seen");
      const refused = await push(podWithUid("during", undefined));
      expect(refused.status).toBe(503);

      // The operator puts the file back: the next push reads it, and the pods are adopted as they run.
      writeFileSync(state, good);
      expect((await push(podWithUid("after-fix", undefined))).status).toBe(201);
      for (const p of before) {
        const now = await waitRunning(p.metadata!.name!);
        expect(now.metadata!.uid).toBe(p.metadata!.uid!);
        expect(containerId(now)).toBe(containerId(p));
        expect(now.status!.containerStatuses![0]!.restartCount).toBe(0);
      }
      await waitRunning("after-fix");
      await agent.proc.waitFor("every source seen", () => agent.proc.stderr.includes("every pod source has been seen") || undefined);
      // Pods' env values may be secrets: the state file is the owner's alone.
      expect(statSync(state).mode & 0o777).toBe(0o600);
    }, 240_000);
  });
}
