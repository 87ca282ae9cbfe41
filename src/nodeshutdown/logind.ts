// LogindShutdownSignal: systemd-logind as the kubelet talks to it (k/k@1.24.1
// pkg/kubelet/nodeshutdown/systemd/inhibit_linux.go), over the system bus, through systemd's own tools
// rather than a D-Bus library: the delay lock logind hands out is a file descriptor (Inhibit returns a
// unix fd, D-Bus type `h`), passed with SCM_RIGHTS, which neither Bun's nor Node's sockets can receive,
// and so no npm D-Bus client can hold it in this process. `systemd-inhibit` can: it takes the lock and
// holds it for as long as its child runs, here `cat` reading a pipe from the agent — closing the pipe
// (release, or the agent dying for any reason) ends both and lets the shutdown go on, as closing the fd
// does in the kubelet.
//
//   - InhibitDelayMaxUSec: `busctl get-property org.freedesktop.login1 /org/freedesktop/login1
//     org.freedesktop.login1.Manager InhibitDelayMaxUSec` ("t 5000000", µs).
//   - Override: /etc/systemd/logind.conf.d/99-kubelet.conf with `InhibitDelayMaxSec=N` (the kubelet's
//     file, so a host moved from the kubelet keeps one), then logind reloads it on SIGHUP, sent through
//     systemd: KillUnit("systemd-logind.service", "all", 1).
//   - Lock: Inhibit(what "shutdown", who "kubelet", why "Kubelet needs time to handle node shutdown",
//     mode "delay"), the kubelet's words (the agent stands in for the kubelet on the node).
//   - Events: `busctl monitor --json=short --match …PrepareForShutdown…`, one JSON message a line whose
//     payload.data[0] is the boolean.
//
// The watch runs on a real bus in the tests (a private dbus-daemon, the signal sent with dbus-send);
// logind itself is absent from the test machine (PID 1 is not systemd), so the property, the override
// and the lock are exercised only on a systemd host.
import { mkdirSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { type Logger, streamLines } from "../util";
import type { ShutdownSignal } from "./shutdown-manager";

const LOGIND = ["org.freedesktop.login1", "/org/freedesktop/login1", "org.freedesktop.login1.Manager"] as const;
const PREPARE_FOR_SHUTDOWN_MATCH =
  "type='signal',sender='org.freedesktop.login1',interface='org.freedesktop.login1.Manager',member='PrepareForShutdown',path='/org/freedesktop/login1'";
/** The system bus's socket when DBUS_SYSTEM_BUS_ADDRESS does not name another. */
export const SYSTEM_BUS_SOCKET = "/run/dbus/system_bus_socket";
export const LOGIND_CONFIG_DIR = "/etc/systemd/logind.conf.d";
const LOGIND_OVERRIDE_FILE = "99-kubelet.conf";

export interface LogindOptions {
  log: Logger;
  /** A D-Bus address (unix:path=…); the system bus by default. Tests give a private bus. */
  address?: string;
  /** Where the InhibitDelayMaxSec drop-in goes; LOGIND_CONFIG_DIR by default. */
  configDir?: string;
  /** The `sender` part of the match; logind's well-known name by default (a test bus has no logind). */
  matchSender?: string | null;
}

/** The socket path of a unix:path= address, if it is one. */
function socketPath(address: string): string | undefined {
  const m = /^unix:(?:.*,)?path=([^,;]+)/.exec(address);
  return m?.[1];
}

export class LogindShutdownSignal implements ShutdownSignal {
  private readonly address: string;
  private lock: Subprocess<"pipe", "ignore", "pipe"> | undefined;

  constructor(private readonly o: LogindOptions) {
    this.address = o.address ?? process.env.DBUS_SYSTEM_BUS_ADDRESS ?? `unix:path=${SYSTEM_BUS_SOCKET}`;
  }

  unavailable(): string | undefined {
    const path = socketPath(this.address);
    if (path && !existsSync(path)) return `no system bus at ${path}`;
    return undefined;
  }

  private busctl(args: string[]): string[] {
    return ["busctl", `--address=${this.address}`, ...args];
  }

  private async run(cmd: string[]): Promise<string> {
    const p = Bun.spawn(cmd, { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
    if (code !== 0) throw new Error(`${cmd.slice(0, 2).join(" ")} … exited ${code}: ${err.trim() || out.trim()}`);
    return out;
  }

  async inhibitDelayMaxSeconds(): Promise<number> {
    const out = (await this.run(this.busctl(["get-property", ...LOGIND, "InhibitDelayMaxUSec"]))).trim();
    const m = /^t (\d+)$/.exec(out);
    if (!m) throw new Error(`InhibitDelayMaxUSec from logind is not a uint64 as expected: ${JSON.stringify(out)}`);
    return Number(m[1]) / 1e6;
  }

  async overrideInhibitDelay(seconds: number): Promise<void> {
    const dir = this.o.configDir ?? LOGIND_CONFIG_DIR;
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    writeFileSync(join(dir, LOGIND_OVERRIDE_FILE), `# Kubelet logind override\n[Login]\nInhibitDelayMaxSec=${Math.round(seconds)}\n`, { mode: 0o644 });
    await this.run(
      this.busctl([
        "call",
        "org.freedesktop.systemd1",
        "/org/freedesktop/systemd1",
        "org.freedesktop.systemd1.Manager",
        "KillUnit",
        "ssi",
        "systemd-logind.service",
        "all",
        "1",
      ]),
    );
  }

  async inhibit(): Promise<void> {
    const before = this.lock;
    const lock = Bun.spawn(["systemd-inhibit", "--what=shutdown", "--who=kubelet", "--why=Kubelet needs time to handle node shutdown", "--mode=delay", "cat"], {
      stdin: "pipe",
      stdout: "ignore",
      stderr: "pipe",
      env: { ...process.env, DBUS_SYSTEM_BUS_ADDRESS: this.address },
    });
    this.lock = lock;
    void lock.exited.then(async (code) => {
      if (this.lock !== lock) return;
      this.lock = undefined;
      const err = (await new Response(lock.stderr).text()).trim();
      this.o.log.warn("the shutdown delay lock (systemd-inhibit) ended; shutdown will not wait for the pods", { exitCode: code, err: err || undefined });
    });
    if (before) await this.closeLock(before);
  }

  async release(): Promise<void> {
    const lock = this.lock;
    this.lock = undefined;
    if (lock) await this.closeLock(lock);
  }

  private async closeLock(lock: Subprocess<"pipe", "ignore", "pipe">): Promise<void> {
    try {
      await lock.stdin.end();
    } catch {
      // already gone
    }
    await lock.exited;
  }

  async watch(onEvent: (shuttingDown: boolean) => void, signal: AbortSignal): Promise<void> {
    const sender = this.o.matchSender === undefined ? LOGIND[0] : this.o.matchSender;
    const match = sender === null ? PREPARE_FOR_SHUTDOWN_MATCH.replace(/sender='[^']*',/, "") : PREPARE_FOR_SHUTDOWN_MATCH.replace(LOGIND[0], sender);
    const p = Bun.spawn(this.busctl(["monitor", "--json=short", `--match=${match}`]), { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    const stop = () => p.kill();
    signal.addEventListener("abort", stop, { once: true });
    try {
      for await (const line of streamLines(p.stdout)) {
        const v = prepareForShutdown(line);
        if (v === undefined) {
          if (line.trim())
            this.o.log.warn("failed obtaining shutdown event, PrepareForShutdown event was not bool type as expected", { line: line.slice(0, 200) });
          continue;
        }
        onEvent(v);
      }
      const code = await p.exited;
      if (!signal.aborted) throw new Error(`busctl monitor exited ${code}: ${(await new Response(p.stderr).text()).trim()}`);
    } finally {
      signal.removeEventListener("abort", stop);
    }
  }
}

/** PrepareForShutdown's boolean from one `busctl monitor --json=short` line; undefined for anything else. */
export function prepareForShutdown(line: string): boolean | undefined {
  let m: unknown;
  try {
    m = JSON.parse(line);
  } catch {
    return undefined;
  }
  const msg = m as { member?: unknown; payload?: { type?: unknown; data?: unknown } };
  if (msg.member !== "PrepareForShutdown" || msg.payload?.type !== "b" || !Array.isArray(msg.payload.data)) return undefined;
  const v = msg.payload.data[0];
  return typeof v === "boolean" ? v : undefined;
}
