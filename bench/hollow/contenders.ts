// The two kinds of hollow node `make bench-hollow` measures, as processes it starts and stops by PID:
//   kubemark  — Kubernetes' own: cmd/kubemark of the control plane's tree, `--morph=kubelet`, the real
//               kubelet code over a fake CRI runtime and fake cAdvisor, ONE PROCESS PER NODE. Each gets
//               the admin kubeconfig (as scalability runs do), its own --name, its own kubelet port
//               (they share this host's network, a kubemark pod would have its own), no read-only
//               port, and the fake image service (--use-host-image-service=false: no containerd).
//               Its node has kubemark's fake machine: 1 CPU, 3840Mi, 110 pods.
//   nodeagent — `nodeagent hollow`: ALL the nodes in one process, with the same kubeconfig, labels and
//               capacity, its state under the run folder. Measured only when `dist/nodeagent hollow
//               --help` succeeds. Its figures are of its process tree (proc.ts).
// Each contender's nodes carry the label bench-hollow=<contender>, which the Deployment selects.
import { existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";

export type ContenderName = "kubemark" | "nodeagent";

export interface Contender {
  readonly name: ContenderName;
  readonly nodes: number;
  /** The label selector of this contender's Nodes. */
  readonly selector: string;
  readonly label: [string, string];
  /** Starts the hollow nodes; their processes are `pids` until stop(). */
  start(): Promise<void>;
  readonly pids: number[];
  /** False once any of its processes has exited on its own. */
  alive(): boolean;
  stop(): Promise<void>;
  /** Synchronous last resort (SIGINT of the benchmark): SIGKILL by PID. */
  kill(): void;
}

/** kubemark's fake machine (cadvisortest.Fake: 1 core, 4026531840 bytes) and its default pod limit. */
export const HOLLOW_CAPACITY = { cpu: "1", memory: "3840Mi", maxPods: 110 };

/** SIGTERM, then SIGKILL after 10 s. */
export async function stopProcess(proc: Subprocess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  proc.kill("SIGTERM");
  const late = await Promise.race([proc.exited.then(() => false), Bun.sleep(10_000).then(() => true)]);
  if (late) {
    proc.kill("SIGKILL");
    await proc.exited;
  }
}

abstract class Processes {
  protected readonly procs: Subprocess[] = [];
  get pids(): number[] {
    return this.procs.map((p) => p.pid);
  }
  alive(): boolean {
    return this.procs.every((p) => p.exitCode === null && p.signalCode === null);
  }
  async stop(): Promise<void> {
    await Promise.all(this.procs.map(stopProcess));
  }
  kill(): void {
    for (const p of this.procs) if (p.exitCode === null) p.kill("SIGKILL");
  }
}

export class Kubemark extends Processes implements Contender {
  readonly name = "kubemark";
  readonly label: [string, string] = ["bench-hollow", "kubemark"];
  readonly selector = "bench-hollow=kubemark";
  /**
   * kubemark writes to /tmp whatever TMPDIR says: its fake runtime's socket kubelet_remote_<random>.sock
   * and its kubelet root dir hollow-kubelet.<random>; those that were not there before it started are ours.
   */
  private tmpBefore = new Set<string>();

  constructor(
    private readonly binary: string,
    private readonly kubeconfig: string,
    private readonly dir: string,
    readonly nodes: number,
    private readonly firstPort: number,
    private readonly startGapMs: number,
  ) {
    super();
  }

  /** The flags of hollow node i (what the report prints for node 0). */
  argv(i: number): string[] {
    return [
      this.binary,
      "--morph=kubelet",
      `--kubeconfig=${this.kubeconfig}`,
      `--name=kubemark-${i}`,
      `--kubelet-port=${this.firstPort + i}`,
      "--kubelet-read-only-port=0",
      "--use-host-image-service=false",
      `--node-labels=${this.label.join("=")}`,
      `--max-pods=${HOLLOW_CAPACITY.maxPods}`,
    ];
  }

  async start(): Promise<void> {
    this.tmpBefore = new Set(kubemarkTmp());
    for (let i = 0; i < this.nodes; i++) {
      mkdirSync(join(this.dir, "kubemark"), { recursive: true });
      const log = Bun.file(join(this.dir, "kubemark", `${i}.log`));
      this.procs.push(Bun.spawn(this.argv(i), { stdin: "ignore", stdout: log, stderr: log }));
      if (this.startGapMs > 0) await Bun.sleep(this.startGapMs);
    }
  }

  override async stop(): Promise<void> {
    await super.stop();
    for (const f of kubemarkTmp()) if (!this.tmpBefore.has(f)) rmSync(join("/tmp", f), { recursive: true, force: true });
  }
}

function kubemarkTmp(): string[] {
  return existsSync("/tmp") ? readdirSync("/tmp").filter((f) => /^(kubelet_remote_\d+\.sock|hollow-kubelet\.\d+)$/.test(f)) : [];
}

export class NodeagentHollow extends Processes implements Contender {
  readonly name = "nodeagent";
  readonly label: [string, string] = ["bench-hollow", "nodeagent"];
  readonly selector = "bench-hollow=nodeagent";

  constructor(
    private readonly binary: string,
    private readonly kubeconfig: string,
    private readonly dir: string,
    readonly nodes: number,
  ) {
    super();
  }

  argv(): string[] {
    return [
      this.binary,
      "hollow",
      "--kubeconfig",
      this.kubeconfig,
      "--nodes",
      String(this.nodes),
      "--name-prefix",
      "nodeagent-",
      "--root-dir",
      join(this.dir, "nodeagent-hollow"),
      "--node-labels",
      this.label.join("="),
      "--max-pods",
      String(HOLLOW_CAPACITY.maxPods),
      "--capacity",
      `cpu=${HOLLOW_CAPACITY.cpu},memory=${HOLLOW_CAPACITY.memory}`,
    ];
  }

  /**
   * Bun's fetch keeps BUN_CONFIG_MAX_HTTP_REQUESTS (256) requests open at once, read at start-up; each
   * hollow node holds a dozen watches open, so the process gets a limit its fleet fits in (as a
   * `nodeagent hollow` that raises it itself would run itself again with: then it sees it is set).
   */
  async start(): Promise<void> {
    const log = Bun.file(join(this.dir, "nodeagent-hollow.log"));
    const fetches = String(Math.min(65_336, 256 + this.nodes * 16));
    const env = { ...process.env, BUN_CONFIG_MAX_HTTP_REQUESTS: fetches };
    this.procs.push(Bun.spawn(this.argv(), { stdin: "ignore", stdout: log, stderr: log, env }));
  }
}

/** Why `nodeagent hollow` cannot be measured, or undefined when `<binary> hollow --help` succeeds. */
export function nodeagentHollowMissing(binary: string): string | undefined {
  if (!existsSync(binary)) return `no ${binary} (make build)`;
  const r = Bun.spawnSync([binary, "hollow", "--help"], { stdout: "pipe", stderr: "pipe" });
  if (r.exitCode === 0) return undefined;
  const said = (r.stderr.toString() || r.stdout.toString()).trim().split("\n")[0] ?? "";
  return `\`${binary} hollow --help\` exited ${r.exitCode}${said ? `: ${said}` : ""}`;
}
