// bench/streaming.ts (make bench-streaming, issue 16): what the agent's API adds to the two streams
// people use most, each as a ratio against its floor in the same run, on containerd 1.6 and the
// compiled agent over HTTPS with its push token:
//   exec round trip   `kubectl exec`-style `true` through the agent's /exec (TLS, the gate, CRI Exec,
//                     the proxy to the runtime's streaming server) vs the same WebSocket session
//                     straight to the runtime's streaming URL from CRI Exec (no TLS, no gate, no
//                     proxy), turns interleaved A B A B so that load falls on both alike;
//   log streaming     GET /containerLogs of a 50 MB log through the agent vs reading the same CRI
//                     log file and stripping each line's prefix (the least any reader must do), MB/s.
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { AgentClient } from "../src/client/agent-client";
import { runRemoteCommand } from "../src/client/remote-command";
import { CriClient } from "../src/cri/client";
import { manifest, NODE_NAME, running, TestAgent } from "../test/e2e/agent-harness";
import { startNode } from "../test/e2e/node";
import { eventually } from "../test/e2e/proc";
import { fmtMs, percentile } from "./usage";

const EXEC_TURNS = Number(process.env.BENCH_EXEC_TURNS ?? 30);
const LOG_TURNS = Number(process.env.BENCH_LOG_TURNS ?? 5);
const LOG_MB = Number(process.env.BENCH_LOG_MB ?? 50);

async function session(url: string, options: Parameters<typeof runRemoteCommand>[1]): Promise<number> {
  const t0 = performance.now();
  const r = await runRemoteCommand(url, options, { stdout: () => {}, stderr: () => {} });
  if (r.exitCode !== 0) throw new Error(`exec ended with ${r.exitCode}: ${r.status?.message ?? ""}`);
  return performance.now() - t0;
}

const node = await startNode("1.6");
const agent = new TestAgent(node, ["--pleg-mode", "generic"], undefined, { https: true });
try {
  await agent.start();
  const client = new AgentClient({ server: agent.url, token: agent.token, ca: agent.servingCert });
  const cri = new CriClient(node.endpoint);
  agent.writeManifest("box.yaml", manifest("box", "sleep 3600"));
  agent.writeManifest("chatty.yaml", manifest("chatty", `head -c ${LOG_MB * 1_000_000} /dev/zero | tr '\\0' x | fold -w 100; exec sleep 3600`));
  const box = await agent.waitPod("box", "running", running, 60_000);
  const boxId = box.status!.containerStatuses![0]!.containerID!.replace(/^containerd:\/\//, "");

  // Exec round trip.
  const viaAgent: number[] = [];
  const direct: number[] = [];
  const path = `/exec/default/box-${NODE_NAME}/main?command=true&output=1&error=1`;
  for (let i = 0; i < EXEC_TURNS + 2; i++) {
    const { url, options } = client.websocket(path);
    const a = await session(url, options);
    const t0 = performance.now();
    const runtimeUrl = await cri.exec({ containerId: boxId, cmd: ["true"], tty: false, stdin: false, stdout: true, stderr: true });
    const b = performance.now() - t0 + (await session(runtimeUrl, {}));
    // The first two turns warm both paths (TLS session, JIT) and are not counted.
    if (i >= 2) {
      viaAgent.push(a);
      direct.push(b);
    }
  }
  const pa = percentile(viaAgent, 50);
  const pb = percentile(direct, 50);
  console.log(
    `exec round trip (${EXEC_TURNS} each, interleaved): through the agent p50 ${fmtMs(pa)} p90 ${fmtMs(percentile(viaAgent, 90))}; ` +
      `straight to the runtime p50 ${fmtMs(pb)} p90 ${fmtMs(percentile(direct, 90))}; ratio ${(pa / pb).toFixed(2)}×`,
  );

  // Log streaming: wait until the chatty pod's log stops growing.
  const chatty = await agent.waitPod("chatty", "running", running, 60_000);
  const uid = chatty.metadata!.uid!;
  const logDir = join(agent.dir, "logs", `default_chatty-${NODE_NAME}_${uid}`, "main");
  let last = -1;
  const size = await eventually(
    "the chatty pod's log to stop growing",
    async () => {
      const files = readdirSync(logDir).filter((f) => f.endsWith(".log"));
      const total = files.reduce((n, f) => n + statSync(join(logDir, f)).size, 0);
      const settled = total > LOG_MB * 1_000_000 && total === last;
      last = total;
      return settled ? total : undefined;
    },
    180_000,
    1000,
  );
  const logFile = join(logDir, "0.log");
  const viaApi: number[] = [];
  const fromFile: number[] = [];
  for (let i = 0; i < LOG_TURNS; i++) {
    let t0 = performance.now();
    const res = await client.fetch(`/containerLogs/default/chatty-${NODE_NAME}/main`);
    let got = 0;
    for await (const chunk of res.body!) got += chunk.length;
    viaApi.push(got / 1e6 / ((performance.now() - t0) / 1000));
    t0 = performance.now();
    const text = await Bun.file(logFile).text();
    let out = 0;
    // "<timestamp> <stream> <tag> <content>": the content starts after the third space.
    for (let at = 0; at < text.length; ) {
      const nl = text.indexOf("\n", at);
      const end = nl < 0 ? text.length : nl;
      let p = at;
      for (let k = 0; k < 3; k++) p = text.indexOf(" ", p) + 1;
      out += end - p + 1;
      at = end + 1;
    }
    fromFile.push(out / 1e6 / ((performance.now() - t0) / 1000));
  }
  const ma = percentile(viaApi, 50);
  const mb = percentile(fromFile, 50);
  console.log(
    `log streaming (${(size / 1e6).toFixed(0)} MB file, ${LOG_TURNS} each): through the agent ${ma.toFixed(0)} MB/s; ` +
      `reading the file ${mb.toFixed(0)} MB/s; ratio ${(ma / mb).toFixed(2)}× (higher is better for the agent)`,
  );
  agent.removeManifest("box.yaml");
  agent.removeManifest("chatty.yaml");
  await eventually("both pods gone", async () => (await agent.pods()).length === 0, 60_000, 500);
  cri.close();
} finally {
  await agent.stop().catch(() => {});
  await node.stop();
  agent.cleanup();
}
