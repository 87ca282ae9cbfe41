// exec and port-forward through dist/nodeagent on containerd 1.6 and 1.7 (issue 16): the agent asks
// the runtime for its streaming URL and proxies the client's upgraded connection to it. Over
// WebSocket (v4.channel.k8s.io, what the runtime's streaming library serves beside SPDY): a
// command's stdout, stderr and exit code, stdin, a TTY; `nodeagent exec`; attach; a port-forward reaching a
// port that listens only inside the pod's network namespace; and the kubelet's refusals.
import { beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { AgentClient } from "../../src/client/agent-client";
import { runRemoteCommand } from "../../src/client/remote-command";
import { manifest, NODE_NAME, running, useAgent, type TestAgent } from "./agent-harness";
import { BINARY } from "./node";
import { portForwardLine } from "./port-forward";

const TOKEN = "e2e-streaming-token";

for (const version of ["1.6", "1.7"] as const) {
  describe(`exec and port-forward, containerd ${version}`, () => {
    let tokenFile = "";
    const env = useAgent(
      version,
      (node) => {
        tokenFile = join(node.rootDir, "push-token");
        writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
        return ["--push-token-file", tokenFile];
      },
      { https: true },
    );
    let agent: TestAgent;
    let client: AgentClient;
    beforeAll(async () => {
      agent = env.agent();
      client = new AgentClient({ server: agent.url, token: TOKEN, ca: agent.servingCert });
      agent.writeManifest("box.yaml", manifest("box", "while true; do echo hello-from-the-pod | nc -l -p 8080; done"));
      await agent.waitPod("box", "running", running);
    });
    const pod = `default/box-${NODE_NAME}`;

    async function exec(command: string[], o: { stdin?: string; tty?: boolean } = {}) {
      const q = new URLSearchParams();
      for (const c of command) q.append("command", c);
      q.set("output", "1");
      if (!o.tty) q.set("error", "1");
      if (o.stdin !== undefined) q.set("input", "1");
      if (o.tty) q.set("tty", "1");
      const { url, options } = client.websocket(`/exec/${pod}/main?${q}`);
      let out = "";
      let err = "";
      const input = o.stdin;
      const result = await runRemoteCommand(url, options, {
        stdin:
          input === undefined
            ? undefined
            : (async function* () {
                yield new TextEncoder().encode(input);
              })(),
        stdout: (b) => (out += new TextDecoder().decode(b)),
        stderr: (b) => (err += new TextDecoder().decode(b)),
      });
      return { ...result, out, err };
    }

    test("exec: stdout, stderr and the exit code; stdin; a TTY", async () => {
      const r = await exec(["sh", "-c", "echo out; echo err >&2; exit 3"]);
      expect(r).toMatchObject({ out: "out\n", err: "err\n", exitCode: 3 });
      expect(await exec(["true"])).toMatchObject({ exitCode: 0, out: "" });
      const piped = await exec(["sh", "-c", "read line; echo got:$line"], { stdin: "ping\n" });
      expect(piped).toMatchObject({ out: "got:ping\n", exitCode: 0 });
      const tty = await exec(["sh", "-c", "test -t 0 && echo a-terminal"], { tty: true, stdin: "" });
      expect(tty.out).toContain("a-terminal");
      expect(tty.exitCode).toBe(0);
    }, 60_000);

    test("nodeagent exec: the command's output and exit status", async () => {
      const p = Bun.spawn(
        [
          BINARY,
          "exec",
          "--server",
          agent.url,
          "--token-file",
          tokenFile,
          "--certificate-authority",
          join(agent.dir, "root", "pki", "kubelet.crt"),
          pod,
          "--",
          "sh",
          "-c",
          "echo via-cli; exit 7",
        ],
        { stdout: "pipe", stderr: "pipe" },
      );
      const [out, code] = await Promise.all([new Response(p.stdout).text(), p.exited]);
      expect(code).toBe(7);
      expect(out).toBe("via-cli\n");
    }, 30_000);

    test("refusals: a wrong token 401; an unknown pod 404; an unknown container; no stream asked 400; no upgrade 400", async () => {
      const bare = await agent.fetch(`/exec/${pod}/main?command=ls&output=1`, { method: "POST", headers: { Authorization: "Bearer not-the-token" } });
      expect(bare.status).toBe(401);
      const get = (path: string) => agent.fetch(path, { method: "POST" });
      const noPod = await get(`/exec/default/nope/main?command=ls&output=1`);
      expect(noPod.status).toBe(404);
      expect(await noPod.text()).toBe("pod does not exist");
      const noContainer = await get(`/exec/${pod}/nope?command=ls&output=1`);
      expect(noContainer.status).toBe(500);
      expect(await noContainer.text()).toBe('container not found ("nope")');
      const noStream = await get(`/exec/${pod}/main?command=ls`);
      expect(noStream.status).toBe(400);
      expect(await noStream.text()).toBe("you must specify at least 1 of stdin, stdout, stderr");
      const notUpgraded = await get(`/exec/${pod}/main?command=ls&output=1`);
      expect(notUpgraded.status).toBe(400);
      expect(await notUpgraded.text()).toBe("Upgrade request required");
    }, 30_000);

    test("attach: the running container's own output, through the agent", async () => {
      agent.writeManifest("ticker.yaml", manifest("ticker", "while true; do echo tick; sleep 0.2; done"));
      await agent.waitPod("ticker", "running", running);
      const { url, options } = client.websocket(`/attach/default/ticker-${NODE_NAME}/main?output=1&error=1`);
      const ws = new WebSocket(url, { protocols: ["v4.channel.k8s.io"], headers: options.headers, tls: options.tls } as unknown as string[]);
      ws.binaryType = "arraybuffer";
      const got = await new Promise<string>((resolve, reject) => {
        let out = "";
        const timer = setTimeout(() => reject(new Error(`no output; got ${JSON.stringify(out)}`)), 15_000);
        ws.onmessage = (ev) => {
          const b = new Uint8Array(ev.data as ArrayBuffer);
          if (b[0] === 1) out += new TextDecoder().decode(b.subarray(1));
          if (out.includes("tick\ntick\n")) {
            clearTimeout(timer);
            resolve(out);
          }
        };
        ws.onerror = () => reject(new Error("websocket error"));
      });
      ws.close();
      expect(got).toContain("tick\ntick\n");
      agent.removeManifest("ticker.yaml");
    }, 40_000);

    test("port-forward: a port listening only in the pod's network namespace answers through the agent", async () => {
      const got = await portForwardLine(client, `/portForward/${pod}?port=8080`, 8080, "hi\n");
      expect(got).toBe("hello-from-the-pod\n");
    }, 40_000);
  });
}
