// Issue 12, findings 4-6, through the compiled agent on containerd 1.6 and 1.7: bad input in the file
// and URL sources loses no running container. A manifest invalid at restart, a URL that answers an
// empty body or nothing at restart, a manifest directory removed while the agent runs: same container
// IDs, restartCount 0. A two-step half write starts the pod once, with its final spec. A 200 MB body
// at the manifest URL leaves the agent's RSS within 50 MB of where it was.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Pod } from "kubernetes-types/core/v1";
import { POD_NAME, POD_UID } from "../../src/cri/labels";
import { NODE_NAME, manifest, running, useAgent, type TestAgent } from "./agent-harness";
import type { TestNode } from "./node";
import { eventually } from "./proc";

const MB = 1024 * 1024;
const HUGE = 200 * MB;

type UrlMode = "good" | "empty" | "huge-with-length" | "huge-streamed";

/** The manifest URL, on 127.0.0.1: what it answers is set by the test; it can be stopped and started again on its port. */
class ManifestUrl {
  mode: UrlMode = "good";
  readonly requests: Record<UrlMode, number> = { good: 0, empty: 0, "huge-with-length": 0, "huge-streamed": 0 };
  private server: ReturnType<typeof Bun.serve> | undefined;
  private port = 0;
  /** A sparse 200 MB file: served with its Content-Length, without the test holding it in memory. */
  private readonly hugeFile: string;

  constructor(readonly body: string) {
    const dir = mkdtempSync("/tmp/na-e2e-url-");
    this.hugeFile = join(dir, "huge.yaml");
    writeFileSync(this.hugeFile, "");
    truncateSync(this.hugeFile, HUGE);
    this.start();
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/pods.yaml`;
  }

  start(): void {
    this.server = Bun.serve({
      hostname: "127.0.0.1",
      port: this.port,
      fetch: () => {
        this.requests[this.mode]++;
        switch (this.mode) {
          case "good":
            return new Response(this.body);
          case "empty":
            return new Response("");
          case "huge-with-length":
            return new Response(Bun.file(this.hugeFile));
          case "huge-streamed": {
            // No Content-Length: 200 MB of YAML comment lines, produced as the client reads.
            const line = new TextEncoder().encode(`#${" ".repeat(1022)}\n`);
            const chunk = new Uint8Array(64 * 1024);
            for (let i = 0; i < chunk.length; i += line.length) chunk.set(line, i);
            let sent = 0;
            return new Response(new ReadableStream({ pull: (c) => (sent >= HUGE ? c.close() : (c.enqueue(chunk), void (sent += chunk.length))) }));
          }
        }
      },
    });
    this.port = this.server.port ?? 0;
  }

  stop(): void {
    this.server?.stop(true);
    this.server = undefined;
  }

  cleanup(): void {
    this.stop();
    rmSync(join(this.hugeFile, ".."), { recursive: true, force: true });
  }
}

/** What identifies a pod's running containers: its UID, each container's ID and restart count. */
interface PodRun {
  uid: string;
  containers: { name: string; id: string; restartCount: number }[];
}

function runOf(p: Pod): PodRun {
  return {
    uid: p.metadata!.uid!,
    containers: (p.status?.containerStatuses ?? [])
      .map((c) => ({ name: c.name, id: c.containerID ?? "", restartCount: c.restartCount }))
      .sort((a, b) => a.name.localeCompare(b.name)),
  };
}

/** Kilobytes of resident memory of a process, from /proc/<pid>/status. */
function rssKb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!m) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(m[1]);
}

/** Asserts `check` at every poll for `ms`: something that must NOT happen during a period. */
async function holdsFor(ms: number, check: () => Promise<void>): Promise<number> {
  const end = Date.now() + ms;
  let polls = 0;
  while (Date.now() < end) {
    await check();
    polls++;
    await Bun.sleep(200);
  }
  await check();
  return polls + 1;
}

const HALF_1 = `apiVersion: v1
kind: Pod
metadata:
  name: half
spec:
  terminationGracePeriodSeconds: 2
  containers:
    - name: one
      image: localhost/nodeagent/busybox:1.35
      command: ["sh", "-c", "sleep 3600"]
`;
const HALF_2 = `    - name: two
      image: localhost/nodeagent/busybox:1.35
      command: ["sh", "-c", "sleep 3600"]
`;

for (const version of ["1.6", "1.7"] as const) {
  describe(`untrusted file and URL sources on containerd ${version}`, () => {
    const url = new ManifestUrl(manifest("fromurl", "sleep 3600"));
    const env = useAgent(version, () => ["--manifest-url", url.url, "--http-check-frequency", "1s"]);
    let node: TestNode;
    let agent: TestAgent;
    beforeAll(() => {
      node = env.node();
      agent = env.agent();
    });
    afterAll(() => url.cleanup());

    /** The pod, running, as /pods shows it; and the runtime agrees that exactly those containers run. */
    async function runningRun(name: string, containers = 1): Promise<PodRun> {
      return eventually(
        `pod ${name} running with ${containers} container(s), as the runtime has it`,
        async () => {
          const p = await agent.pod(name);
          if (!p || !running(p) || (p.status?.containerStatuses ?? []).length !== containers) return undefined;
          const run = runOf(p);
          const live = await node.client.listContainers({ labelSelector: { [POD_UID]: run.uid }, state: { state: "CONTAINER_RUNNING" } });
          const same =
            live
              .map((c) => c.id)
              .sort()
              .join() ===
            run.containers
              .map((c) => c.id.replace(/^[a-z]+:\/\//, ""))
              .sort()
              .join();
          return same ? run : undefined;
        },
        60_000,
        200,
      );
    }

    /** The pod keeps exactly the same containers (IDs, restartCount 0) at every poll for `ms`. */
    async function keeps(name: string, before: PodRun, ms: number): Promise<void> {
      await holdsFor(ms, async () => {
        const p = await agent.pod(name);
        expect(p && running(p)).toBe(true);
        expect(runOf(p!)).toEqual(before);
        const live = await node.client.listContainers({ labelSelector: { [POD_UID]: before.uid }, state: { state: "CONTAINER_RUNNING" } });
        expect(live).toHaveLength(before.containers.length);
      });
      for (const c of before.containers) expect(c.restartCount).toBe(0);
    }

    /** Restarts the agent (SIGINT: the pods keep running) after `whileDown`, and waits until orphan cleanup has run. */
    async function restart(whileDown: () => void): Promise<void> {
      expect(await agent.stop()).toBe(0);
      whileDown();
      await agent.start();
      await agent.proc.waitFor(
        "every source seen (orphan cleanup runs)",
        () => agent.proc.stderr.includes("every pod source has been seen") || undefined,
        30_000,
      );
    }

    test("a two-step half write starts the pod once, with the final spec", async () => {
      await runningRun("fromurl");
      const file = join(agent.manifests, "half.yaml");
      const sandboxes = new Set<string>();
      let watching = true;
      const watcher = (async () => {
        while (watching) {
          for (const s of await node.client.listPodSandbox({ labelSelector: { [POD_NAME]: `half-${NODE_NAME}` } })) sandboxes.add(s.id);
          await Bun.sleep(50);
        }
      })();
      // The first step is a valid one-container pod of its own; the writer pauses, then appends.
      writeFileSync(file, HALF_1);
      await Bun.sleep(300);
      appendFileSync(file, HALF_2);
      const run = await runningRun("half", 2);
      watching = false;
      await watcher;
      expect(run.containers.map((c) => c.name)).toEqual(["one", "two"]);
      expect(sandboxes.size).toBe(1);
      // Every container of the pod name, exited ones included: each started once.
      const all = await node.client.listContainers({ labelSelector: { [POD_NAME]: `half-${NODE_NAME}` } });
      expect(all.map((c) => `${c.metadata?.name}:${c.metadata?.attempt}`).sort()).toEqual(["one:0", "two:0"]);
      expect(agent.proc.stderr).not.toContain("half.yaml:");
    }, 90_000);

    test("a 200 MB URL body, with and without Content-Length, leaves the agent's RSS within 50 MB; the URL's pods keep running", async () => {
      const before = await runningRun("fromurl");
      const pid = agent.proc.proc.pid;
      // Settled: the pod's start is over and a few polls of the good body have passed.
      const polled = url.requests.good;
      await eventually("two more polls of the good body", async () => url.requests.good >= polled + 2, 10_000);
      const rssBefore = rssKb(pid);
      let peak = rssBefore;
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          peak = Math.max(peak, rssKb(pid));
          await Bun.sleep(10);
        }
      })();
      try {
        for (const mode of ["huge-with-length", "huge-streamed"] as const) {
          url.mode = mode;
          // A second request in this mode: the first was answered, and read (or refused) as far as the agent goes.
          await eventually(`two requests for the ${mode} body`, async () => url.requests[mode] >= 2, 60_000);
        }
        url.mode = "good";
        const goodAgain = url.requests.good;
        await eventually("the good body again", async () => url.requests.good >= goodAgain + 2, 30_000);
      } finally {
        sampling = false;
        await sampler.catch(() => {});
      }
      const rssAfter = rssKb(pid);
      console.log(
        `containerd ${version}: agent RSS before ${(rssBefore / 1024).toFixed(1)} MiB, peak ${(peak / 1024).toFixed(1)} MiB, after ${(rssAfter / 1024).toFixed(1)} MiB`,
      );
      expect(peak - rssBefore).toBeLessThan(50 * 1024);
      expect(rssAfter - rssBefore).toBeLessThan(50 * 1024);
      await keeps("fromurl", before, 1_000);
      expect(agent.proc.stderr).toContain("Content-Length 209715200 is over the 10485760-byte limit: not read");
      expect(agent.proc.stderr).toContain("the body is over the 10485760-byte limit: stopped reading after");
    }, 120_000);

    test("the manifest directory removed while the agent runs: pods kept past two rescans, and putting it back changes nothing", async () => {
      agent.writeManifest("keep.yaml", manifest("keep", "sleep 3600"));
      const keep = await runningRun("keep");
      const half = await runningRun("half", 2);
      const saved = new Map<string, string>();
      for (const f of ["keep.yaml", "half.yaml"]) saved.set(f, readFileSync(join(agent.manifests, f), "utf8"));
      rmSync(agent.manifests, { recursive: true });
      // Rescans every 2 s (--file-check-frequency), retries every second: 5 s is past two of each.
      await keeps("keep", keep, 5_000);
      await keeps("half", half, 0);
      const reported = agent.proc.stderr.split(`the static pod path ${agent.manifests} is missing`).length - 1;
      expect(reported).toBe(1);

      mkdirSync(agent.manifests);
      for (const [f, text] of saved) agent.writeManifest(f, text);
      await agent.proc.waitFor(
        "the directory back",
        () => agent.proc.stderr.includes(`"msg":"static pod path is back","path":${JSON.stringify(agent.manifests)}`) || undefined,
        10_000,
      );
      await keeps("keep", keep, 3_000);
      await keeps("half", half, 0);
      expect((await node.client.listPodSandbox({ labelSelector: { [POD_NAME]: `keep-${NODE_NAME}` } })).map((s) => s.state)).toEqual(["SANDBOX_READY"]);
    }, 90_000);

    test("restarted with a manifest made invalid while it was down: no container lost", async () => {
      mkdirSync(agent.manifests, { recursive: true });
      agent.writeManifest("keep.yaml", manifest("keep", "sleep 3600"));
      const keep = await runningRun("keep");
      await restart(() => agent.writeManifest("keep.yaml", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: keep\nspec:\n  containers: not-a-list\n"));
      await keeps("keep", keep, 4_000);
      await agent.proc.waitFor("the invalid manifest reported", () => agent.proc.stderr.includes("keep.yaml:") || undefined, 10_000);
      // Fixed again as it was: the same pod, nothing restarted.
      agent.writeManifest("keep.yaml", manifest("keep", "sleep 3600"));
      await keeps("keep", keep, 2_000);
    }, 90_000);

    test("restarted while the URL serves an empty body: no container lost", async () => {
      url.mode = "good";
      const before = await runningRun("fromurl");
      await restart(() => (url.mode = "empty"));
      await keeps("fromurl", before, 4_000);
      await agent.proc.waitFor("the empty body reported", () => agent.proc.stderr.includes("empty body (0 bytes)") || undefined, 10_000);
      url.mode = "good";
      await keeps("fromurl", before, 2_000);
    }, 120_000);

    test("restarted while the URL is unreachable: no container lost, and the source counts as seen (orphan cleanup is not held up)", async () => {
      url.mode = "good";
      const before = await runningRun("fromurl");
      await restart(() => url.stop());
      await keeps("fromurl", before, 4_000);
      await agent.proc.waitFor("the failed request reported", () => agent.proc.stderr.includes(`GET ${url.url}: `) || undefined, 20_000);
      url.start();
      await keeps("fromurl", before, 3_000);
    }, 120_000);
  });
}
