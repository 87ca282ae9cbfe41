// The control plane of `make bench-hollow`: etcd, kube-apiserver, kube-controller-manager and
// kube-scheduler from KUBE_BIN, started by scripts/conformance/control-plane.sh on ports of their own
// (127.0.0.1), with the API server's audit log on (AUDIT=1), and what the benchmark asks of it: the
// admin's calls, Nodes Ready, and who sent which request.
//
// Requests per client come from the audit log, not from apiserver_request_total: the metric has no
// client label, and the audit event carries the user and the user agent. The hollow nodes of both
// contenders run with the admin's kubeconfig (as kubemark's scalability runs do), so a hollow node's
// request is one by user `admin` (or a system:node:* user) whose user agent is not this benchmark's.
// A request is counted once (by auditID), in the window its requestReceivedTimestamp falls in; a
// watch counts when it starts (its ResponseStarted event).
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, readSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Node } from "kubernetes-types/core/v1";
import { loadKubeClient, type KubeClient } from "../../src/kube";
import { eventually } from "../../test/e2e/proc";

const REPO = resolve(import.meta.dir, "../..");
const CONTROL_PLANE = join(REPO, "scripts/conformance/control-plane.sh");
/** The user agent of this benchmark's own calls, left out of every count. */
export const BENCH_USER_AGENT = "nodeagent-bench-hollow";

export interface Ports {
  api: number;
  etcd: number;
  kcm: number;
  scheduler: number;
}

export function benchPorts(): Ports {
  const env = (k: string, d: number) => Number(process.env[k] ?? d);
  return {
    api: env("BENCH_HOLLOW_API_PORT", 17443),
    etcd: env("BENCH_HOLLOW_ETCD_PORT", 17379),
    kcm: env("BENCH_HOLLOW_KCM_PORT", 17267),
    scheduler: env("BENCH_HOLLOW_SCHED_PORT", 17268),
  };
}

/** Why the control plane cannot run, or undefined when KUBE_BIN has what control-plane.sh needs. */
export function missingControlPlane(kubeBin: string | undefined): string | undefined {
  if (!kubeBin)
    return "KUBE_BIN is not set (the folder of a built Kubernetes 1.36: kube-apiserver, kube-controller-manager, kube-scheduler, etcd/usr/bin/etcd)";
  const missing = ["kube-apiserver", "kube-controller-manager", "kube-scheduler", "etcd/usr/bin/etcd"].filter((b) => {
    try {
      return !statSync(join(kubeBin, b)).isFile();
    } catch {
      return true;
    }
  });
  return missing.length ? `no ${missing.join(", ")} under ${kubeBin}` : undefined;
}

export interface RequestCount {
  requests: number;
  /** Answered 403: refused by the authorizer (the Node authorizer, for node identities). */
  refused: number;
  /** The user agents seen, with their counts. */
  userAgents: Map<string, number>;
}

interface AuditEvent {
  auditID: string;
  stage: string;
  user?: { username?: string };
  userAgent?: string;
  requestReceivedTimestamp?: string;
  responseStatus?: { code?: number };
}

export class HollowCluster {
  private stopped = false;

  private constructor(
    readonly rundir: string,
    private readonly kubeBin: string,
    private readonly ports: Ports,
    readonly client: KubeClient,
  ) {}

  /**
   * `audit` (on by default) is the API server's audit log, what request counts come from; `env` passes
   * more of control-plane.sh's knobs (KCM_QPS, KCM_BURST).
   */
  static async start(kubeBin: string, ports: Ports, o: { audit?: boolean; env?: Record<string, string> } = {}): Promise<HollowCluster> {
    const rundir = mkdtempSync(join(tmpdir(), "nodeagent-bench-hollow-"));
    const env = {
      ...process.env,
      ...o.env,
      KUBE_BIN: kubeBin,
      AUDIT: o.audit === false ? "0" : "1",
      API_PORT: String(ports.api),
      ETCD_PORT: String(ports.etcd),
      KCM_PORT: String(ports.kcm),
      SCHED_PORT: String(ports.scheduler),
    };
    const up = Bun.spawnSync(["bash", CONTROL_PLANE, "up", rundir], { env, stdout: "pipe", stderr: "pipe" });
    if (up.exitCode !== 0) {
      Bun.spawnSync(["bash", CONTROL_PLANE, "down", rundir], { env, stdout: "ignore", stderr: "ignore" });
      throw new Error(`control-plane.sh up failed (${up.exitCode}): ${up.stderr.toString().trim()}; logs in ${rundir}`);
    }
    const client = await loadKubeClient(join(rundir, "admin.kubeconfig"), { userAgent: BENCH_USER_AGENT });
    return new HollowCluster(rundir, kubeBin, ports, client);
  }

  get adminKubeconfig(): string {
    return join(this.rundir, "admin.kubeconfig");
  }

  get apiserverPid(): number {
    return this.pid("apiserver");
  }

  /** The PID control-plane.sh recorded for apiserver, etcd, kcm or sched (0 when there is none). */
  pid(name: "apiserver" | "etcd" | "kcm" | "sched"): number {
    try {
      return Number(readFileSync(join(this.rundir, `${name}.pid`), "utf8"));
    } catch {
      return 0;
    }
  }

  /**
   * Stops the kube-scheduler control-plane.sh started (by its PID) and returns its command line, so a
   * phase can start one of its own with the same flags; a PID written with adoptScheduler() is stopped
   * with the control plane.
   */
  async stopScheduler(): Promise<string[]> {
    const pid = this.pid("sched");
    const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
    process.kill(pid, "SIGTERM");
    await eventually("kube-scheduler stopped", async () => !existsSync(`/proc/${pid}`), 15_000, 100).catch(() => process.kill(pid, "SIGKILL"));
    rmSync(join(this.rundir, "sched.pid"), { force: true });
    return argv;
  }

  /** Records a scheduler the bench started, so stop() stops it too should the bench not. */
  adoptScheduler(pid: number | undefined): void {
    if (pid) writeFileSync(join(this.rundir, "sched.pid"), String(pid));
    else rmSync(join(this.rundir, "sched.pid"), { force: true });
  }

  /** Stops the control plane by the PIDs control-plane.sh recorded. */
  stop(keepLogs: boolean): void {
    if (this.stopped) return;
    this.stopped = true;
    Bun.spawnSync(["bash", CONTROL_PLANE, "down", this.rundir], { env: { ...process.env, KUBE_BIN: this.kubeBin }, stdout: "ignore", stderr: "ignore" });
    if (!keepLogs) rmSync(this.rundir, { recursive: true, force: true });
  }

  /** A call as the admin, the JSON answer; throws on a status over 299. */
  async call<T>(method: string, path: string, body?: unknown, contentType = "application/json"): Promise<T> {
    const resp = await fetch(`https://127.0.0.1:${this.ports.api}${path}`, {
      method,
      headers: { Authorization: "Bearer admintoken", "Content-Type": contentType, "User-Agent": BENCH_USER_AGENT },
      body: body === undefined ? undefined : JSON.stringify(body),
      tls: { rejectUnauthorized: false },
    } as RequestInit);
    const text = await resp.text();
    if (resp.status > 299) throw new Error(`${method} ${path}: ${resp.status} ${text.slice(0, 300)}`);
    return (text ? JSON.parse(text) : {}) as T;
  }

  /** How many Nodes with the label are Ready. */
  async readyNodes(labelSelector: string): Promise<number> {
    const list = await this.call<{ items: Node[] }>("GET", `/api/v1/nodes?labelSelector=${encodeURIComponent(labelSelector)}`);
    return list.items.filter((n) => n.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True")).length;
  }

  /** Waits until `count` Nodes with the label are Ready; the seconds it took. */
  async waitReady(labelSelector: string, count: number, timeoutMs: number, alive: () => boolean): Promise<number> {
    const t0 = performance.now();
    let seen = 0;
    await eventually(
      `${count} Ready nodes ${labelSelector}`,
      async () => {
        if (!alive()) throw new Error("a hollow-node process exited");
        seen = await this.readyNodes(labelSelector);
        return seen >= count;
      },
      timeoutMs,
      1000,
    ).catch((e) => {
      throw new Error(`${(e as Error).message} (${seen} Ready)`);
    });
    return (performance.now() - t0) / 1000;
  }

  async deleteNodes(labelSelector: string): Promise<void> {
    await this.call("DELETE", `/api/v1/nodes?labelSelector=${encodeURIComponent(labelSelector)}`);
  }

  /** The audit log's size now: a window's requests are read from here on. */
  auditOffset(): number {
    try {
      return statSync(join(this.rundir, "audit.log")).size;
    } catch {
      return 0;
    }
  }

  /**
   * The hollow nodes' requests received in [fromMs, toMs] (wall clock), read from the audit log from
   * `offset` on. Requests still running at the end (watches) are there once started.
   */
  countHollowRequests(offset: number, fromMs: number, toMs: number): RequestCount {
    const seen = new Set<string>();
    const result: RequestCount = { requests: 0, refused: 0, userAgents: new Map() };
    for (const e of readAuditFrom(join(this.rundir, "audit.log"), offset)) {
      if (seen.has(e.auditID)) continue;
      const user = e.user?.username ?? "";
      if (e.userAgent === BENCH_USER_AGENT || !(user === "admin" || user.startsWith("system:node:"))) continue;
      const at = Date.parse(e.requestReceivedTimestamp ?? "");
      if (!(at >= fromMs && at <= toMs)) continue;
      seen.add(e.auditID);
      result.requests++;
      if (e.responseStatus?.code === 403) result.refused++;
      const ua = (e.userAgent ?? "").split(" ")[0] ?? "";
      result.userAgents.set(ua, (result.userAgents.get(ua) ?? 0) + 1);
    }
    return result;
  }
}

/** The audit events written after `offset` (whole lines only). */
function readAuditFrom(path: string, offset: number): AuditEvent[] {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return [];
  }
  try {
    const size = statSync(path).size;
    const buf = Buffer.alloc(Math.max(0, size - offset));
    readSync(fd, buf, 0, buf.length, offset);
    const events: AuditEvent[] = [];
    for (const line of buf.toString("utf8").split("\n")) {
      if (!line.startsWith("{")) continue;
      try {
        events.push(JSON.parse(line) as AuditEvent);
      } catch {
        // a line being written as we read
      }
    }
    return events;
  } finally {
    closeSync(fd);
  }
}
