// bench/exec-clients.ts: whose ceiling is the exec probes' ceiling — the runtime's, or the CRI
// client's? ExecSyncs of `true` a second with 1, 4 and 16 in flight, on the same containerd and the
// same containers, in one run, through:
//  - ours: src/cri CriClient, one HTTP/2 connection of our own (h2-connection.ts, grpc-channel.ts);
//  - grpc-js: @grpc/grpc-js with @grpc/proto-loader over the same embedded CRI descriptor and the same
//    loader options, the client the agent used before (a reference implementation of gRPC over HTTP/2;
//    it also multiplexes every call on one connection);
//  - crictl: `crictl exec --sync` processes in parallel, when crictl is on PATH (each pays a process
//    start and a new connection: a lower bound on what the runtime serves, not a peer of a client).
// The clients take turns at each concurrency, each twice (ABAB), so a drift of the shared machine
// falls on both; the figures are summed over the two turns. `make bench-probes` prints this before
// its probe runs; `bun bench/exec-clients.ts` runs it alone on a fresh containerd 1.6.
// Knobs: EXEC_CLIENTS_S (3: seconds a turn), EXEC_CLIENTS_INFLIGHT ("1,4,16"), EXEC_CLIENTS_CONTAINERS (16).
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import type { INamespace } from "protobufjs";
import descriptor from "../src/cri/generated/descriptor.json" with { type: "json" };
import { CriClient, socketPath } from "../src/cri/client";
import { LOADER_OPTIONS } from "../src/cri/proto-options";
import { removeAllPods, startNode, type TestNode } from "../test/e2e/node";
import { runContainer, runSandbox } from "../test/e2e/pods";
import { percentile } from "./usage";

const TURN_S = Number(process.env.EXEC_CLIENTS_S ?? 3);
const IN_FLIGHT = (process.env.EXEC_CLIENTS_INFLIGHT ?? "1,4,16").split(",").filter(Boolean).map(Number);
const CONTAINERS = Number(process.env.EXEC_CLIENTS_CONTAINERS ?? 16);

/** One ExecSync of `true` on a container, 1 s timeout: resolves true when it exited 0. */
type Exec = (containerId: string) => Promise<boolean>;

interface ExecClient {
  name: string;
  exec: Exec;
  close(): void;
}

function ours(endpoint: string): ExecClient {
  const client = new CriClient(endpoint);
  return {
    name: "ours",
    exec: async (id) => (await client.execSync(id, ["true"], 1)).exitCode === 0,
    close: () => client.close(),
  };
}

interface GrpcExecClient extends grpc.Client {
  ExecSync(req: object, opts: grpc.CallOptions, cb: (err: grpc.ServiceError | null, res?: { exitCode: number }) => void): void;
}

function grpcJs(endpoint: string): ExecClient {
  const definition = protoLoader.fromJSON(descriptor as INamespace, LOADER_OPTIONS);
  const pkg = grpc.loadPackageDefinition(definition) as unknown as {
    runtime: { v1: { RuntimeService: new (target: string, creds: grpc.ChannelCredentials, options: object) => GrpcExecClient } };
  };
  const client = new pkg.runtime.v1.RuntimeService(`unix://${socketPath(endpoint)}`, grpc.credentials.createInsecure(), {
    "grpc.max_receive_message_length": 16 * 1024 * 1024,
  });
  return {
    name: "grpc-js",
    exec: (id) =>
      new Promise((resolve, reject) =>
        client.ExecSync({ containerId: id, cmd: ["true"], timeout: 1 }, { deadline: Date.now() + 30_000 }, (err, res) =>
          err ? reject(err) : resolve(res?.exitCode === 0),
        ),
      ),
    close: () => client.close(),
  };
}

function crictl(endpoint: string, path: string): ExecClient {
  return {
    name: "crictl",
    exec: async (id) => {
      const p = Bun.spawn([path, "--runtime-endpoint", endpoint, "--timeout", "30s", "exec", "--sync", "--timeout", "1", id, "true"], {
        stdout: "ignore",
        stderr: "ignore",
      });
      return (await p.exited) === 0;
    },
    close: () => {},
  };
}

interface Turn {
  done: number;
  failed: number;
  took: number[];
}

/** `inFlight` loops of ExecSyncs over the containers for `seconds`. */
async function turn(c: ExecClient, ids: string[], inFlight: number, seconds: number): Promise<Turn> {
  const out: Turn = { done: 0, failed: 0, took: [] };
  const end = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: inFlight }, async (_, w) => {
      for (let k = w; performance.now() < end; k += inFlight) {
        const t = performance.now();
        const ok = await c.exec(ids[k % ids.length]!).catch(() => false);
        out.took.push(performance.now() - t);
        out.done++;
        if (!ok) out.failed++;
      }
    }),
  );
  return out;
}

export interface ExecClientRow {
  client: string;
  inFlight: number;
  perSecond: number;
  p50Ms: number;
  failed: number;
}

/** The comparison on `ids` (running containers): a row per client and concurrency. */
export async function compareExecClients(node: TestNode, ids: string[]): Promise<ExecClientRow[]> {
  const clients = [ours(node.endpoint), grpcJs(node.endpoint)];
  const crictlPath = Bun.which("crictl");
  if (crictlPath) clients.push(crictl(node.endpoint, crictlPath));
  try {
    // A first call on each: connections up before anything is timed.
    for (const c of clients) await c.exec(ids[0]!);
    const rows: ExecClientRow[] = [];
    for (const inFlight of IN_FLIGHT) {
      const sums = new Map<string, Turn>(clients.map((c) => [c.name, { done: 0, failed: 0, took: [] }]));
      for (let round = 0; round < 2; round++) {
        for (const c of round === 0 ? clients : [...clients].reverse()) {
          const t = await turn(c, ids, inFlight, TURN_S);
          const s = sums.get(c.name)!;
          s.done += t.done;
          s.failed += t.failed;
          s.took.push(...t.took);
        }
      }
      for (const c of clients) {
        const s = sums.get(c.name)!;
        rows.push({ client: c.name, inFlight, perSecond: s.done / (2 * TURN_S), p50Ms: percentile(s.took, 50), failed: s.failed });
      }
    }
    return rows;
  } finally {
    for (const c of clients) c.close();
  }
}

/** The rows as text: each client's rate and p50, and ours as a ratio to each other client. */
export function formatExecClients(rows: ExecClientRow[]): string {
  const lines = [
    `  ExecSync a second by client, same containerd and containers (${TURN_S} s turns, ABAB)${Bun.which("crictl") ? "" : "; crictl is not on PATH"}:`,
  ];
  for (const inFlight of [...new Set(rows.map((r) => r.inFlight))]) {
    const at = rows.filter((r) => r.inFlight === inFlight);
    const mine = at.find((r) => r.client === "ours")!;
    const each = at.map((r) => `${r.client} ${r.perSecond.toFixed(1)}/s (p50 ${r.p50Ms.toFixed(0)} ms${r.failed ? `, ${r.failed} failed` : ""})`).join(", ");
    const ratios = at
      .filter((r) => r !== mine)
      .map((r) => `ours/${r.client} ${(mine.perSecond / r.perSecond).toFixed(2)}×`)
      .join(", ");
    lines.push(`  ${String(inFlight).padStart(2)} in flight: ${each}; ${ratios}`);
  }
  return lines.join("\n");
}

/** Sandboxes with one `sleep 3600` container each: the containers the clients exec in. */
export async function execTargets(node: TestNode, n = CONTAINERS): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push(await runContainer(node.client, await runSandbox(node, `exec-target-${i}`), "main", ["sleep", "3600"]));
  return ids;
}

if (import.meta.main) {
  const node = await startNode("1.6");
  try {
    const v = await node.client.version();
    console.log(`ExecSync through three clients on ${v.runtimeName} ${v.runtimeVersion}, ${CONTAINERS} containers`);
    console.log(formatExecClients(await compareExecClients(node, await execTargets(node))));
  } finally {
    await removeAllPods(node.client).catch(() => {});
    await node.stop();
  }
}
