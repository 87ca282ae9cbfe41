// Runs `dist/nodeagent agent` against a test node (containerd started by the test), with its own
// manifest directory, root, log and cgroup folders, on an ephemeral API port read from its log.
//
// The API (issue 16) authenticates every request, /healthz included. So that the tests of pods,
// sources and probes can read it as they always have, an agent gets a push token of its own (a 0600
// file under its folder, unless the test gives --push-token-file) that every helper here sends, and
// serves plain HTTP on loopback (--insecure-http) unless the test asks for `https`: then the agent
// makes its self-signed certificate and `fetch` trusts it (the tests of the API's TLS and auth).
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Pod, PodList } from "kubernetes-types/core/v1";
import { afterAll, beforeAll } from "bun:test";
import { BINARY, CGROUP_SUFFIX, removeCgroups, startNode, type TestNode } from "./node";
import { BinaryProcess, eventually } from "./proc";

export const AGENT_CGROUP = `/nodeagent-e2e-agent${CGROUP_SUFFIX}`;
export const NODE_NAME = "e2e-node";

/**
 * Whether a build serves the authenticated API (issue 16) and so needs --insecure-http and a token
 * for these helpers: the benchmarks also run builds from before it, which know neither flag and
 * answer plain HTTP without credentials. Asked once per binary, from its --help.
 */
const authenticatedApi = new Map<string, boolean>();
export function hasAuthenticatedApi(binary: string): boolean {
  let known = authenticatedApi.get(binary);
  if (known === undefined) {
    const help = Bun.spawnSync([binary, "agent", "--help"], { stdout: "pipe", stderr: "pipe" });
    known = `${help.stdout.toString()}${help.stderr.toString()}`.includes("--insecure-http");
    authenticatedApi.set(binary, known);
  }
  return known;
}

export interface AgentOpts {
  /** Serve HTTPS with the agent's self-signed certificate (the API's TLS and auth tests). */
  https?: boolean;
  /** --cgroup-root instead of AGENT_CGROUP. */
  cgroupRoot?: string;
  /** Environment variables for the agent's process (NOTIFY_SOCKET, say). */
  env?: Record<string, string>;
}

export class TestAgent {
  proc!: BinaryProcess;
  url = "";
  /** The bearer token of its --push-token-file (the test's, or one the harness made). */
  token: string | undefined;
  /** With https: the agent's self-signed kubelet.crt, which a client trusts as its CA. */
  servingCert = "";
  readonly dir: string;
  readonly manifests: string;

  /** `binary`: dist/nodeagent unless a benchmark compares another build (the before binary). */
  /** Its --cgroup-root: AGENT_CGROUP unless the test gives its own (so that agents of other tests never share its cgroups). */
  readonly cgroupRoot: string;

  constructor(
    readonly node: TestNode,
    readonly extraArgs: string[] = [],
    readonly binary?: string,
    readonly opts: AgentOpts = {},
  ) {
    this.cgroupRoot = opts.cgroupRoot ?? AGENT_CGROUP;
    this.dir = join(node.rootDir, "agent");
    this.manifests = join(this.dir, "manifests");
    mkdirSync(this.manifests, { recursive: true });
  }

  async start(): Promise<void> {
    const tokenFlag = this.extraArgs.indexOf("--push-token-file");
    const own: string[] = [];
    if (tokenFlag >= 0) {
      this.token = readFileSync(this.extraArgs[tokenFlag + 1]!, "utf8").trim();
    } else if (hasAuthenticatedApi(this.binary ?? BINARY)) {
      this.token ??= randomBytes(16).toString("hex");
      const file = join(this.dir, "harness-token");
      writeFileSync(file, `${this.token}\n`, { mode: 0o600 });
      own.push("--push-token-file", file);
    }
    if (!this.opts.https && hasAuthenticatedApi(this.binary ?? BINARY)) own.push("--insecure-http");
    this.proc = new BinaryProcess(
      [
        "agent",
        "--runtime-endpoint",
        this.node.endpoint,
        "--root-dir",
        join(this.dir, "root"),
        "--pod-manifest-path",
        this.manifests,
        "--pod-logs-dir",
        join(this.dir, "logs"),
        "--cgroup-root",
        this.cgroupRoot,
        "--hostname-override",
        NODE_NAME,
        "--port",
        "0",
        "--file-check-frequency",
        "2s",
        "--log-format",
        "json",
        ...own,
        ...this.extraArgs,
      ],
      this.opts.env ?? {},
      this.binary,
    );
    // The start line's api field; a binary from before the structured logs (a bench's baseline) said
    // "… API at <url>, …" in its message.
    const line = await this.proc.waitFor(
      "the agent's API address",
      () => /"msg":"nodeagent started",.*?"api":"(https?:\/\/[0-9.:]+)"|API at (https?:\/\/[0-9.:]+)/.exec(this.proc.stderr) ?? undefined,
      30_000,
    );
    this.url = (line[1] ?? line[2])!;
    if (this.opts.https) this.servingCert = readFileSync(join(this.dir, "root", "pki", "kubelet.crt"), "utf8");
  }

  /**
   * fetch against the agent's API with its push token (unless `init` sets Authorization) and, over
   * HTTPS, its serving certificate trusted.
   */
  fetch(path: string, init: RequestInit & { tls?: { cert?: string; key?: string } } = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (!headers.has("authorization") && this.token) headers.set("Authorization", `Bearer ${this.token}`);
    return fetch(`${this.url}${path}`, { ...init, headers, ...(this.servingCert ? { tls: { ca: this.servingCert, ...init.tls } } : {}) } as RequestInit);
  }

  /** SIGKILL: no cleanup at all, as a crash. */
  async crash(): Promise<void> {
    this.proc.proc.kill("SIGKILL");
    await this.proc.proc.exited;
  }

  async stop(): Promise<number> {
    return this.proc.interrupt();
  }

  writeManifest(file: string, text: string): void {
    // Written to a dotfile then renamed, as a careful editor saves: the agent never sees half a file.
    const tmp = join(this.manifests, `.${file}.tmp`);
    writeFileSync(tmp, text);
    renameSync(tmp, join(this.manifests, file));
  }

  removeManifest(file: string): void {
    rmSync(join(this.manifests, file), { force: true });
  }

  /** Headers for a read: the bearer token when the agent has one. */
  auth(): Record<string, string> {
    return this.token ? { Authorization: `Bearer ${this.token}` } : {};
  }

  async pods(): Promise<Pod[]> {
    const r = await this.fetch("/pods");
    return ((await r.json()) as PodList).items;
  }

  async pod(name: string): Promise<Pod | undefined> {
    return (await this.pods()).find((p) => p.metadata?.name === `${name}-${NODE_NAME}` || p.metadata?.name === name);
  }

  /** Waits until the pod satisfies pred, returning it. */
  waitPod(name: string, what: string, pred: (p: Pod) => boolean, timeoutMs = 30_000): Promise<Pod> {
    return eventually(
      `pod ${name}: ${what}`,
      async () => {
        const p = await this.pod(name);
        return p && pred(p) ? p : undefined;
      },
      timeoutMs,
      200,
    );
  }

  cleanup(): void {
    removeCgroups(this.cgroupRoot);
  }
}

/** Every container of the pod is running and the phase says so. */
export function running(p: Pod): boolean {
  return p.status?.phase === "Running" && (p.status.containerStatuses ?? []).every((c) => c.state?.running);
}

/**
 * Starts a containerd of the version and an agent on it before the tests of the enclosing describe,
 * and stops both (and cleans up) after them.
 */
export function useAgent(
  version: "1.6" | "1.7",
  extraArgs: (node: TestNode) => string[] = () => [],
  opts: AgentOpts = {},
): { node: () => TestNode; agent: () => TestAgent } {
  let node: TestNode | undefined;
  let agent: TestAgent | undefined;
  beforeAll(async () => {
    node = await startNode(version);
    agent = new TestAgent(node, extraArgs(node), undefined, opts);
    await agent.start();
  });
  afterAll(async () => {
    if (agent) await agent.stop().catch(() => {});
    await node?.stop();
    agent?.cleanup();
  });
  return { node: () => node!, agent: () => agent! };
}

/**
 * A pod manifest running busybox with the given command. `container` is YAML added to the main
 * container's mapping (probes, say), indented as its other fields.
 */
export function manifest(
  name: string,
  command: string,
  extra: { restartPolicy?: string; initContainers?: string[]; hostNetwork?: boolean; container?: string } = {},
): string {
  const inits = (extra.initContainers ?? [])
    .map(
      (cmd, i) => `    - name: init${i + 1}
      image: localhost/nodeagent/busybox:1.35
      command: ["sh", "-c", ${JSON.stringify(cmd)}]
      volumeMounts: [{ name: work, mountPath: /work }]`,
    )
    .join("\n");
  return `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  terminationGracePeriodSeconds: 2
  restartPolicy: ${extra.restartPolicy ?? "Always"}
  hostNetwork: ${extra.hostNetwork ?? false}
${inits ? `  initContainers:\n${inits}\n` : ""}  containers:
    - name: main
      image: localhost/nodeagent/busybox:1.35
      command: ["sh", "-c", ${JSON.stringify(command)}]
      volumeMounts: [{ name: work, mountPath: /work }]
${extra.container ?? ""}  volumes:
    - name: work
      emptyDir: {}
`;
}
