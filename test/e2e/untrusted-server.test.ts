// The agent's API against untrusted local callers (issue 12, findings 7 and 8; issue 16), through the
// compiled binary on containerd 1.6 and 1.7: every request needs a credential (401 "Unauthorized"
// as the kubelet answers, /healthz included), the opt-in anonymous view hides env values, state
// files are 0600, an unprotected token file or plain HTTP on a non-loopback address stop the agent
// before it starts anything, and GET /node answers while the runtime is frozen.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Node, Pod, PodList } from "kubernetes-types/core/v1";
import { NODE_DEADLINE_MS } from "../../src/server/node-cache";
import { REDACTED } from "../../src/server/redact";
import { manifest, running, useAgent, NODE_NAME } from "./agent-harness";
import { CONTAINERD, removeCgroups, unmountUnder } from "./node";
import { BinaryProcess, eventually } from "./proc";
import { connect } from "node:net";
import { rawRequest, statusLine } from "../server/raw-http";

const TOKEN = "untrusted-e2e-token";
const PASSWORD = "hunter2-e2e-password";

/** Mode bits of a file, e.g. 0o600. */
function mode(path: string): number {
  return statSync(path).mode & 0o7777;
}

/** PIDs of processes, other than `except`, whose command line mentions `text` (a containerd started under a root dir). */
function processesMentioning(text: string, except: number[] = []): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || except.includes(pid) || pid === process.pid) continue;
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(text)) pids.push(pid);
    } catch {
      /* gone meanwhile */
    }
  }
  return pids;
}

/** A port nothing listens on right now. */
function freePort(): number {
  const s = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = s.port;
  s.stop(true);
  return port;
}

function readyCondition(n: Node) {
  return n.status?.conditions?.find((c) => c.type === "Ready");
}

for (const version of ["1.6", "1.7"] as const) {
  describe(`untrusted callers, agent with a push token, containerd ${version}`, () => {
    const env = useAgent(version, (node) => {
      const tokenFile = join(node.rootDir, "push-token");
      writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
      return ["--push-token-file", tokenFile];
    });
    const auth = { Authorization: `Bearer ${TOKEN}` };

    test("every request needs the token: without it, or with a wrong one, GET /pods, /pods/<ns>/<name>, /node, /metrics, /healthz are 401", async () => {
      const agent = env.agent();
      for (const route of ["/pods", "/pods/default/anything", "/node", "/metrics", "/healthz"]) {
        const res = await fetch(`${agent.url}${route}`);
        expect({ route, status: res.status }).toEqual({ route, status: 401 });
        // The kubelet's answer: the bare text (issue 16; it was a v1 Status with WWW-Authenticate).
        expect(await res.text()).toBe("Unauthorized");
        // A wrong token is unauthenticated too (issue 16; it was 403): the kubelet's union authenticator.
        expect((await fetch(`${agent.url}${route}`, { headers: { Authorization: "Bearer wrong" } })).status).toBe(401);
      }
      const list = await fetch(`${agent.url}/pods`, { headers: auth });
      expect(list.status).toBe(200);
      expect(((await list.json()) as PodList).kind).toBe("PodList");
      expect((await fetch(`${agent.url}/node`, { headers: auth })).status).toBe(200);
      expect((await fetch(`${agent.url}/metrics`, { headers: auth })).status).toBe(200);
      // With the token (it answers 500 only until the sync loop's first pass).
      await eventually("/healthz ok with the token", async () => (await fetch(`${agent.url}/healthz`, { headers: auth })).status === 200);
    }, 30_000);

    test("state files are 0600: pushed-pods.json, container-notes.json, every file the agent keeps in --root-dir", async () => {
      const agent = env.agent();
      const post = await fetch(`${agent.url}/pods`, {
        method: "POST",
        headers: { ...auth, "Content-Type": "application/yaml" },
        body: manifest("stateful", "sleep 3600"),
      });
      expect(post.status).toBe(201);
      await agent.waitPod("stateful", "running", running);
      const root = join(agent.dir, "root");
      const pushed = join(root, "pushed-pods.json");
      const notes = join(root, "container-notes.json");
      await eventually("container-notes.json to be written", async () => existsSync(notes));
      expect(mode(pushed).toString(8)).toBe("600");
      expect(mode(notes).toString(8)).toBe("600");
      for (const f of readdirSync(root, { withFileTypes: true }).filter((e) => e.isFile())) {
        expect({ file: f.name, mode: mode(join(root, f.name)).toString(8) }).toEqual({ file: f.name, mode: "600" });
      }
      expect((await fetch(`${agent.url}/pods/default/stateful`, { method: "DELETE", headers: auth })).status).toBe(200);
      await eventually("the pushed pod to go", async () => !(await agent.pod("stateful")));
    }, 60_000);

    test("GET /node answers within its deadline while containerd is frozen (SIGSTOP), not ready, and recovers", async () => {
      const agent = env.agent();
      const node = env.node();
      const before = await fetch(`${agent.url}/node`, { headers: auth });
      expect(before.status).toBe(200);
      const pid = node.managed.pid();
      expect(pid).toBeGreaterThan(0);
      process.kill(pid!, "SIGSTOP");
      let elapsed: number;
      let res: Response;
      try {
        const started = Date.now();
        res = await fetch(`${agent.url}/node`, { headers: auth, signal: AbortSignal.timeout(NODE_DEADLINE_MS + 4_000) });
        elapsed = Date.now() - started;
      } finally {
        process.kill(pid!, "SIGCONT");
      }
      expect(elapsed).toBeLessThan(NODE_DEADLINE_MS + 2_000);
      expect(res.status).toBe(200);
      expect(res.headers.get("warning")).toContain("did not answer within");
      const stale = (await res.json()) as Node;
      expect(stale.metadata?.name).toBe(NODE_NAME);
      expect(readyCondition(stale)).toMatchObject({ status: "False", reason: "KubeletNotReady" });
      expect(readyCondition(stale)?.message).toContain("container runtime is down: no answer within");
      // Once containerd runs again, the node is built afresh.
      await eventually(
        "a fresh node after SIGCONT",
        async () => {
          const r = await fetch(`${agent.url}/node`, { headers: auth });
          return r.status === 200 && r.headers.get("warning") === null;
        },
        30_000,
        500,
      );
    }, 60_000);

    test("a request the parser refuses gets a status, not a silent close: 431 for a head over 16 KiB or 2000 headers, 400 for a malformed request line, 405 for CONNECT and unknown methods", async () => {
      const port = Number(new URL(env.agent().url).port);
      const open = () => connect(port, "127.0.0.1");
      const head = (extra: string) => `GET /pods HTTP/1.1\r\nHost: x\r\n${extra}Connection: close\r\n\r\n`;
      const cases: [string, string][] = [
        [head(`X-Big: ${"a".repeat(20_000)}\r\n`), "HTTP/1.1 431 Request Header Fields Too Large"],
        [head(Array.from({ length: 2000 }, (_, i) => `X-H${i}: v\r\n`).join("")), "HTTP/1.1 431 Request Header Fields Too Large"],
        ["GARBAGE\r\n\r\n", "HTTP/1.1 400 Bad Request"],
        ["CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n", "HTTP/1.1 405 Method Not Allowed"],
        ["get /pods HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", "HTTP/1.1 405 Method Not Allowed"],
        ["FROB /pods HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", "HTTP/1.1 405 Method Not Allowed"],
      ];
      for (const [data, expected] of cases) {
        const r = await rawRequest(open, data);
        expect(statusLine(r.text)).toBe(expected);
        expect(r.closed).toBe(true);
      }
      // The agent serves on: a good request right after.
      expect((await fetch(`${env.agent().url}/pods`, { headers: auth })).status).toBe(200);
    });
  });

  describe(`untrusted callers, agent with --anonymous-read-only, containerd ${version}`, () => {
    const env = useAgent(version, () => ["--anonymous-read-only"]);

    test("a pod's env value runs in the container but never shows on /pods or /pods/<ns>/<name>", async () => {
      const agent = env.agent();
      agent.writeManifest(
        "secret.yaml",
        manifest("secret", 'echo "got=$DB_PASSWORD"; sleep 3600', {
          container: `      env:\n        - name: DB_PASSWORD\n          value: ${JSON.stringify(PASSWORD)}\n`,
        }),
      );
      const pod = await agent.waitPod("secret", "running", running);
      // The container did get the value...
      const log = join(agent.dir, "logs", `default_secret-${NODE_NAME}_${pod.metadata!.uid}`, "main", "0.log");
      await eventually("the container's log", async () => existsSync(log) && readFileSync(log, "utf8").includes(`got=${PASSWORD}`));
      // ...and no anonymous read shows it.
      const list = await fetch(`${agent.url}/pods`);
      expect(list.status).toBe(200);
      expect(list.headers.get("warning")).toContain("redacted");
      const text = await list.text();
      expect(text).not.toContain(PASSWORD);
      const listed = (JSON.parse(text) as PodList).items.find((p) => p.metadata?.name === `secret-${NODE_NAME}`)!;
      expect(listed.spec!.containers[0]!.env).toEqual([{ name: "DB_PASSWORD", value: REDACTED }]);
      // A wrong bearer token is never anonymous (issue 16: it was read as anonymous without a push token).
      expect((await fetch(`${agent.url}/pods/default/secret-${NODE_NAME}`, { headers: { Authorization: `Bearer ${PASSWORD}` } })).status).toBe(401);
      const one = await fetch(`${agent.url}/pods/default/secret-${NODE_NAME}`);
      expect(one.status).toBe(200);
      const onePod = (await one.json()) as Pod;
      expect(JSON.stringify(onePod)).not.toContain(PASSWORD);
      expect(onePod.status?.phase).toBe("Running");
      agent.removeManifest("secret.yaml");
      await eventually("the pod to go", async () => !(await agent.pod("secret")));
    }, 60_000);
  });

  describe(`start-up refusals, containerd ${version} as the runtime the agent would start`, () => {
    let dir: string;
    let n = 0;
    beforeAll(() => {
      dir = mkdtempSync(`/tmp/na-e2e-untrusted-${version}-`);
    });
    afterAll(() => {
      unmountUnder(dir);
      rmSync(dir, { recursive: true, force: true });
    });

    /**
     * Runs `nodeagent agent` with no --runtime-endpoint, so that once past its checks it would start
     * a containerd of this version under its own --root-dir; returns how it ended. Whatever happens
     * (today's main starts everything), the agent and any containerd it started are stopped by PID.
     */
    async function runAgent(args: string[]) {
      const rootDir = join(dir, `root-${++n}`);
      const port = freePort();
      // A cgroup root of its own: an agent that gets past its checks makes kubepods there, removed below.
      const cgroupRoot = "/nodeagent-e2e-untrusted-server";
      const proc = new BinaryProcess(["agent", "--root-dir", rootDir, "--port", String(port), "--log-format", "json", "--cgroup-root", cgroupRoot, ...args], {
        NODEAGENT_CONTAINERD: CONTAINERD[version],
      });
      try {
        await proc.waitFor("the agent to exit", () => proc.proc.exitCode !== null, 15_000);
        const listening = await fetch(`http://127.0.0.1:${port}/healthz`).then(
          () => true,
          () => false,
        );
        return { code: proc.proc.exitCode, stderr: proc.stderr, containerds: processesMentioning(rootDir, [proc.proc.pid]), listening, rootDir };
      } finally {
        if (proc.proc.exitCode === null) await proc.interrupt();
        for (const pid of processesMentioning(rootDir, [proc.proc.pid])) process.kill(pid, "SIGKILL");
        removeCgroups(cgroupRoot);
      }
    }

    test("a world-readable token file: exit 2 with the reason, before any containerd is started or any port opened", async () => {
      const tokenFile = join(dir, `token-${version}`);
      writeFileSync(tokenFile, `${TOKEN}\n`);
      chmodSync(tokenFile, 0o644);
      const r = await runAgent(["--push-token-file", tokenFile]);
      expect(r.stderr).toContain(`--push-token-file ${tokenFile}: permissions 0644 are too open`);
      expect(r.code).toBe(2);
      expect(r.containerds).toEqual([]);
      expect(r.listening).toBe(false);
      expect(existsSync(join(r.rootDir, "etc", "containerd.toml"))).toBe(false);
    }, 30_000);

    test("--insecure-http with --address 0.0.0.0: exit 2 with the ways out, nothing started", async () => {
      const manifests = join(dir, "manifests");
      mkdirSync(manifests, { recursive: true });
      // Issue 16: HTTPS with authentication may listen anywhere; plain HTTP only on loopback (it was:
      // no token, no non-loopback address).
      const r = await runAgent(["--insecure-http", "--address", "0.0.0.0", "--pod-manifest-path", manifests]);
      expect(r.stderr).toContain("--address 0.0.0.0 is not a loopback address");
      expect(r.stderr).toContain("drop --insecure-http");
      expect(r.code).toBe(2);
      expect(r.containerds).toEqual([]);
      expect(r.listening).toBe(false);
    }, 30_000);
  });
}
