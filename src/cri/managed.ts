// ManagedContainerd: a containerd that nodeagent starts itself when the host has no CRI runtime
// running. Everything lives under --root-dir: config, CNI conflist, root, state, socket, log, pid.
// Image tarballs in <root-dir>/images/ are imported at start (the air-gap convention of k3s).
// It runs in its own session, so a signal to nodeagent never reaches it; its shims run apart from it,
// so stopping it (or nodeagent) leaves the pods' containers running, to be adopted on the next start.
import { spawn } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { type Logger, writeFileAtomic } from "../util";
import { CriClient } from "./client";
import { bridgeCniConflist, containerdConfigToml } from "./containerd-config";

export interface ManagedContainerdOptions {
  rootDir: string;
  containerdBin: string;
  sandboxImage: string;
  log: Logger;
  /** Pod network of the CNI bridge. */
  podCidr?: string;
  bridgeName?: string;
  /** CNI network name; host-local keeps its leases in /var/lib/cni/networks/<name>. */
  networkName?: string;
  /** How long containerd may take to answer on its socket (the kubelet's maxWaitForContainerRuntime). */
  startTimeoutMs?: number;
  /** More runc runtime handler names for RuntimeClasses (containerd-config.ts runtimeHandlers). */
  runtimeHandlers?: readonly string[];
}

/** containerd on PATH (or NODEAGENT_CONTAINERD), or undefined. */
export function findContainerd(): string | undefined {
  const fromEnv = process.env.NODEAGENT_CONTAINERD;
  if (fromEnv) return fromEnv;
  for (const dir of (process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin").split(":")) {
    const p = join(dir || ".", "containerd");
    try {
      if (statSync(p).isFile()) return p;
    } catch {
      /* not here */
    }
  }
  return undefined;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("containerd");
  } catch {
    return false;
  }
}

export class ManagedContainerd {
  readonly rootDir: string;
  readonly socket: string;
  readonly configPath: string;
  readonly logPath: string;
  private readonly pidPath: string;
  private readonly stateDir: string;
  private readonly cniConfDir: string;

  constructor(private readonly o: ManagedContainerdOptions) {
    this.rootDir = o.rootDir;
    this.stateDir = join(o.rootDir, "run");
    this.socket = join(this.stateDir, "containerd.sock");
    this.pidPath = join(this.stateDir, "containerd.pid");
    this.configPath = join(o.rootDir, "etc", "containerd.toml");
    this.cniConfDir = join(o.rootDir, "etc", "cni");
    this.logPath = join(o.rootDir, "containerd.log");
  }

  get endpoint(): string {
    return `unix://${this.socket}`;
  }

  /** The pid of the running containerd, if any. */
  pid(): number | undefined {
    try {
      const pid = Number(readFileSync(this.pidPath, "utf8").trim());
      return pid > 0 && alive(pid) ? pid : undefined;
    } catch {
      return undefined;
    }
  }

  /** Starts containerd, or adopts the one already running for this root. Returns true if started here. */
  async start(): Promise<boolean> {
    const running = this.pid();
    if (running && (await this.answers())) {
      this.o.log.info("using the managed containerd already running", { pid: running, socket: this.socket });
      await this.importImages();
      return false;
    }
    for (const d of [this.rootDir, this.stateDir, this.cniConfDir, join(this.rootDir, "images")]) mkdirSync(d, { recursive: true });
    // Its files are 0600 (writeFileAtomic) like every state file under --root-dir: only root reads them.
    writeFileAtomic(
      this.configPath,
      containerdConfigToml({
        root: join(this.rootDir, "containerd"),
        state: join(this.stateDir, "containerd"),
        socket: this.socket,
        sandboxImage: this.o.sandboxImage,
        cniConfDir: this.cniConfDir,
        ...(this.o.runtimeHandlers ? { runtimeHandlers: this.o.runtimeHandlers } : {}),
      }),
    );
    writeFileAtomic(
      join(this.cniConfDir, "10-nodeagent.conflist"),
      bridgeCniConflist({ name: this.o.networkName ?? "nodeagent", bridge: this.o.bridgeName ?? "nodeagent0", subnet: this.o.podCidr ?? "10.88.0.0/16" }),
    );
    rmSync(this.socket, { force: true });
    const logFd = openSync(this.logPath, "a", 0o600);
    const binDir = dirname(this.o.containerdBin);
    const child = spawn(this.o.containerdBin, ["--config", this.configPath], {
      detached: true,
      stdio: ["ignore", logFd, logFd],
      // Its own shim first on PATH: a containerd 1.7 beside Debian's 1.6 must start the 1.7 shim.
      env: { ...process.env, PATH: `${binDir}:${process.env.PATH ?? "/usr/sbin:/usr/bin:/sbin:/bin"}` },
    });
    closeSync(logFd);
    const pid = child.pid;
    if (!pid) throw new Error(`could not start ${this.o.containerdBin}`);
    child.unref();
    let exited: number | null | undefined;
    child.once("exit", (code) => (exited = code));
    writeFileAtomic(this.pidPath, `${pid}\n`);
    this.o.log.info("started containerd", { pid, config: this.configPath, log: this.logPath });
    const deadline = Date.now() + (this.o.startTimeoutMs ?? 30_000);
    while (!(await this.answers())) {
      if (exited !== undefined || Date.now() > deadline) {
        const tail = this.logTail();
        if (exited === undefined) await this.stop();
        throw new Error(`containerd ${exited !== undefined ? `exited (${exited})` : "did not answer in time"}; last log lines of ${this.logPath}:\n${tail}`);
      }
      await Bun.sleep(100);
    }
    await this.importImages();
    return true;
  }

  /** Stops containerd by its pid (SIGTERM, then SIGKILL after 10 s). Containers keep running in their shims. */
  async stop(): Promise<void> {
    const pid = this.pid();
    if (!pid) return;
    process.kill(pid, "SIGTERM");
    const deadline = Date.now() + 10_000;
    while (alive(pid) && Date.now() < deadline) await Bun.sleep(50);
    if (alive(pid)) process.kill(pid, "SIGKILL");
    rmSync(this.pidPath, { force: true });
    this.o.log.info("stopped containerd", { pid });
  }

  private async answers(): Promise<boolean> {
    if (!existsSync(this.socket)) return false;
    const c = new CriClient(this.endpoint, { timeoutMs: 2000 });
    try {
      await c.version();
      return true;
    } catch {
      return false;
    } finally {
      c.close();
    }
  }

  private logTail(lines = 15): string {
    try {
      return readFileSync(this.logPath, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
    } catch {
      return "(no log)";
    }
  }

  /**
   * Imports every <root-dir>/images/*.tar not imported since it last changed, into the k8s.io
   * namespace the CRI plugin uses, with the ctr that ships beside this containerd.
   */
  async importImages(): Promise<string[]> {
    const dir = join(this.rootDir, "images");
    if (!existsSync(dir)) return [];
    const stampPath = join(this.stateDir, "imported-images.json");
    let stamps: Record<string, string> = {};
    try {
      stamps = JSON.parse(readFileSync(stampPath, "utf8"));
    } catch {
      /* first import */
    }
    const ctr = join(dirname(this.o.containerdBin), "ctr");
    const imported: string[] = [];
    for (const name of readdirSync(dir).sort()) {
      if (name.startsWith(".") || !name.endsWith(".tar")) continue;
      const path = join(dir, name);
      const st = statSync(path);
      if (!st.isFile()) continue;
      const stamp = `${st.size}:${st.mtimeMs}`;
      if (stamps[name] === stamp) continue;
      const proc = Bun.spawn([ctr, "--address", this.socket, "-n", "k8s.io", "images", "import", path], { stdout: "pipe", stderr: "pipe" });
      const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
      if (code !== 0) {
        this.o.log.error("importing an image archive failed", { path, exitCode: code, output: err.trim() || out.trim() });
        continue;
      }
      stamps[name] = stamp;
      imported.push(basename(path));
      this.o.log.info("imported an image archive", { path, output: out.trim().split("\n").join("; ") });
    }
    writeFileAtomic(stampPath, JSON.stringify(stamps, null, 2));
    return imported;
  }
}
