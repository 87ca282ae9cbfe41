// What `nodeagent --version` and `nodeagent staticpod lint` load, read off the bundle `make build`
// compiles: the same entry points, ESM, --splitting. In that binary a chunk is loaded when the entry
// chunk or a loaded chunk imports it statically, or when a dynamic import() runs; loading a chunk
// loads every module in it and the built-in modules they import. The heavy parts — gRPC and the CRI
// descriptor, the Kubernetes client, prom-client, the scheduler — and node:readline must be in none
// of the chunks these commands load: together they were ≈150 ms of a 217 ms one-file lint.
import { afterAll, beforeAll, describe, expect, spyOn, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { AGENT_JIT_POLICY, NORMAL_JIT_POLICY } from "../../src/util/jit-policy";

const ROOT = resolve(import.meta.dir, "../..");
const ENTRY = "cmd/nodeagent.ts";
const LINT_WORKER = "src/lint/worker.ts";

/** What none of the start-up paths may load, and why each is named. */
const HEAVY: Array<[what: string, matches: (module: string) => boolean]> = [
  ["gRPC (@grpc/grpc-js)", (m) => m.includes("node_modules/@grpc/grpc-js/")],
  [
    "the CRI descriptor's loader (@grpc/proto-loader, protobufjs)",
    (m) => m.includes("node_modules/@grpc/proto-loader/") || m.includes("node_modules/protobufjs/"),
  ],
  ["the CRI descriptor (src/cri/generated/descriptor.json)", (m) => m === "src/cri/generated/descriptor.json"],
  ["the Kubernetes client (@kubernetes/client-node)", (m) => m.includes("node_modules/@kubernetes/client-node/")],
  ["prom-client", (m) => m.includes("node_modules/prom-client/")],
  ["the scheduler (src/scheduler)", (m) => m.startsWith("src/scheduler/")],
  ["node:readline (consola's prompt, client-node's watch)", (m) => m === "builtin:readline"],
];

interface Chunk {
  /** The input file this chunk is the entry of: an entry point or the target of a dynamic import. */
  entryPoint?: string;
  inputs: string[];
  imports: Array<{ path: string; kind: string }>;
}

let tmp: string;
let chunks: Map<string, Chunk>;
/** Each input's built-in modules (node:fs → "builtin:fs"). */
let builtins: Map<string, string[]>;

/** An input path of the metafile (relative to the working directory) as a path in the repository. */
const repoPath = (p: string) => relative(ROOT, resolve(process.cwd(), p));

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), "nodeagent-startup-graph-"));
  const build = await Bun.build({
    entrypoints: [join(ROOT, ENTRY), join(ROOT, LINT_WORKER)],
    target: "bun",
    format: "esm",
    splitting: true,
    metafile: true,
    outdir: tmp,
    throw: true,
  });
  const meta = build.metafile!;
  chunks = new Map();
  for (const [path, out] of Object.entries(meta.outputs)) {
    chunks.set(path, {
      ...(out.entryPoint ? { entryPoint: repoPath(out.entryPoint) } : {}),
      inputs: Object.keys(out.inputs).map(repoPath),
      imports: out.imports.map((i) => ({ path: i.path, kind: i.kind })),
    });
  }
  builtins = new Map();
  for (const [path, input] of Object.entries(meta.inputs)) {
    builtins.set(
      repoPath(path),
      input.imports.filter((i) => i.external && !i.path.includes("/")).map((i) => `builtin:${i.path.replace(/^node:/, "")}`),
    );
  }
});

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The output chunk whose entry is the repository file `file`. */
function chunkOf(file: string): string {
  for (const [path, c] of chunks) if (c.entryPoint === file) return path;
  throw new Error(`no chunk has ${file} as its entry: is it still imported with import()?`);
}

/** A chunk's import, as the key of the chunk imported (the metafile names both relative to the output directory). */
function lookup(from: string, to: string): string {
  if (chunks.has(to)) return to;
  throw new Error(`${from} imports ${to}, which is not an output of the build`);
}

/** The chunks loaded from `starts`: static imports always, dynamic ones where `dynamic` says so. */
function loaded(starts: string[], dynamic: (from: string) => boolean): Set<string> {
  const seen = new Set<string>();
  const queue = [...starts];
  while (queue.length > 0) {
    const c = queue.pop()!;
    if (seen.has(c)) continue;
    seen.add(c);
    for (const i of chunks.get(c)!.imports) if (i.kind !== "dynamic-import" || dynamic(c)) queue.push(lookup(c, i.path));
  }
  return seen;
}

/** Every module in the chunks, with the built-in modules they import. */
function modulesOf(loadedChunks: Set<string>): Set<string> {
  const modules = new Set<string>();
  for (const c of loadedChunks) {
    for (const input of chunks.get(c)!.inputs) {
      modules.add(input);
      for (const b of builtins.get(input) ?? []) modules.add(b);
    }
  }
  return modules;
}

/** The heavy parts among `modules`, each with one module that brought it. */
function heavyIn(modules: Set<string>): string[] {
  const found: string[] = [];
  for (const [what, matches] of HEAVY) {
    const module = [...modules].find(matches);
    if (module) found.push(`${what}: ${module}`);
  }
  return found;
}

/** `nodeagent --version` (and every start): the entry chunk and what it imports statically. */
function versionPath(): Set<string> {
  return modulesOf(loaded([chunkOf(ENTRY)], () => false));
}

/**
 * `nodeagent staticpod lint [--jobs N]`: the start, the staticpod command's chunk and everything it
 * can import, dynamic imports included, and the worker threads' entry.
 */
function lintPath(): Set<string> {
  const root = chunkOf(ENTRY);
  const start = loaded([root], () => false);
  const command = loaded([chunkOf("cmd/staticpod.ts"), chunkOf(LINT_WORKER)], (from) => from !== root);
  return modulesOf(new Set([...start, ...command]));
}

describe("start-up loads only what the command uses", () => {
  test("nodeagent --version: none of the heavy modules, and not the subcommands", () => {
    const modules = versionPath();
    expect(modules.has(ENTRY)).toBe(true);
    expect(heavyIn(modules)).toEqual([]);
    for (const command of [
      "cmd/agent.ts",
      "cmd/events.ts",
      "cmd/exec.ts",
      "cmd/hollow.ts",
      "cmd/logs.ts",
      "cmd/pleg.ts",
      "cmd/probe.ts",
      "cmd/schedule.ts",
      "cmd/staticpod.ts",
    ])
      expect(modules.has(command)).toBe(false);
  });

  test("nodeagent staticpod lint (and its --jobs workers): none of the heavy modules", () => {
    const modules = lintPath();
    expect(modules.has("src/lint/run.ts")).toBe(true);
    expect(modules.has("src/lint/worker.ts")).toBe(true);
    expect(heavyIn(modules)).toEqual([]);
  });

  for (const command of ["logs", "exec", "events"]) {
    test(`nodeagent ${command}: a thin client of the agent's API, with none of the heavy modules and not the CRI client`, () => {
      const root = chunkOf(ENTRY);
      const start = loaded([root], () => false);
      // Followed through its dynamic imports too: what the command loads on demand is part of its path.
      const modules = modulesOf(new Set([...start, ...loaded([chunkOf(`cmd/${command}.ts`)], (from) => from !== root)]));
      expect(modules.has("src/logs/log-request.ts")).toBe(true);
      expect(heavyIn(modules)).toEqual([]);
      expect([...modules].filter((m) => m.startsWith("src/cri/") && !m.endsWith("/types.ts"))).toEqual([]);
      expect(modules.has("src/agent/node.ts")).toBe(false);
    });
  }

  test("the check sees heavy modules where they are used: the agent, its imports followed, has the CRI descriptor and the Kubernetes client", () => {
    const agent = modulesOf(loaded([chunkOf("cmd/agent.ts")], () => true));
    const heavy = heavyIn(agent).map((h) => h.split(":")[0]);
    expect(heavy).toEqual(
      expect.arrayContaining(["the CRI descriptor (src/cri/generated/descriptor.json)", "the Kubernetes client (@kubernetes/client-node)"]),
    );
  });

  test("an agent without --kubeconfig and without gRPC probes loads neither grpc-js, protobufjs, client-node nor prom-client", () => {
    // The agent's chunk and its static imports: client-node comes by import() under --kubeconfig only,
    // grpc-js by import() at a pod's first gRPC probe; the CRI client has its own HTTP/2 and codec.
    // Every import followed, but not into the chunks that --kubeconfig (the cluster node, the API object
    // source, the service lister, the API event sink) and a gRPC probe load.
    // (The TLS bootstrap, src/certificate/bootstrap.ts, is loaded only with --bootstrap-kubeconfig; the
    // API server's status manager, src/status/status-manager.ts, by the cluster node through the status
    // module's loadStatusManager.)
    const onDemand = new Set([
      chunkOf("src/certificate/bootstrap.ts"),
      chunkOf("src/cluster/cluster-node.ts"),
      chunkOf("src/status/status-manager.ts"),
      chunkOf("src/objects/api-object-source.ts"),
      chunkOf("src/objects/api-service-lister.ts"),
      chunkOf("src/events/api-event-sink.ts"),
      chunkOf("src/prober/grpc.ts"),
    ]);
    // (The start itself imports each subcommand by import(): of those only the agent's is followed.)
    const agentChunks = loaded([chunkOf("cmd/agent.ts")], () => true);
    const reached = loaded([chunkOf(ENTRY)], () => false);
    const queue = [chunkOf("cmd/agent.ts")];
    while (queue.length > 0) {
      const c = queue.pop()!;
      if (reached.has(c) || onDemand.has(c)) continue;
      reached.add(c);
      for (const i of chunks.get(c)!.imports) queue.push(lookup(c, i.path));
    }
    expect(agentChunks.size).toBeGreaterThan(reached.size);
    const agent = modulesOf(reached);
    expect(agent.has("src/cri/client.ts")).toBe(true);
    expect(agent.has("src/agent/sync-loop.ts")).toBe(true);
    const heavy = heavyIn(agent).map((h) => h.split(":")[0]);
    expect(heavy).not.toContain("gRPC (@grpc/grpc-js)");
    expect(heavy).not.toContain("the CRI descriptor's loader (@grpc/proto-loader, protobufjs)");
    expect(heavy).not.toContain("the Kubernetes client (@kubernetes/client-node)");
    expect(heavy).not.toContain("prom-client");
  });

  test("make build compiles this bundle: ESM bytecode, split, with the lint worker as an entry point", () => {
    const makefile = readFileSync(join(ROOT, "Makefile"), "utf8");
    const variable = (name: string) => makefile.match(new RegExp(`^${name} := (.*)$`, "m"))?.[1] ?? "";
    expect(variable("BUILD_FLAGS").split(" ")).toEqual(expect.arrayContaining(["--compile", "--bytecode", "--format=esm", "--splitting"]));
    expect(variable("BUILD_ENTRIES").split(" ")).toEqual([ENTRY, LINT_WORKER]);
    expect(makefile).toMatch(/^\t\$\(BUN\) build \$\(BUILD_FLAGS\) .*\$\(BUILD_ENTRIES\) --outfile dist\/\.build\/nodeagent$/m);
  });

  test("the binary starts with the agent's JIT policy, and every other command sets the normal one back before it loads", async () => {
    const makefile = readFileSync(join(ROOT, "Makefile"), "utf8");
    const flags = makefile.match(/^BUILD_FLAGS := (.*)$/m)?.[1]?.split(" ") ?? [];
    expect(flags).toContain(`--compile-jit-policy=${AGENT_JIT_POLICY}`);
    expect(AGENT_JIT_POLICY).toBeGreaterThan(NORMAL_JIT_POLICY);
    // Each subcommand's loader, watched: the agent's leaves the policy as it is, the others set the
    // normal one before their chunk is imported (and the lint worker thread sets it for itself).
    const { root } = await import("../../cmd/nodeagent");
    const set = spyOn(Bun.unsafe, "setJITPolicy");
    try {
      const subs = root.subCommands as Record<string, () => Promise<unknown>>;
      for (const [name, load] of Object.entries(subs)) {
        set.mockClear();
        await load();
        // hollow runs agents (a thousand of them): it keeps the agent's policy, as agent does.
        expect({ name, calls: set.mock.calls }).toEqual({ name, calls: name === "agent" || name === "hollow" ? [] : [[NORMAL_JIT_POLICY]] });
      }
    } finally {
      set.mockRestore();
    }
    expect(readFileSync(join(ROOT, LINT_WORKER), "utf8")).toMatch(/^useNormalJitPolicy\(\);$/m);
  });
});
