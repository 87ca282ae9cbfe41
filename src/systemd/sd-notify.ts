// sd_notify: telling systemd how the agent's unit is doing (sd_notify(3)), so that `Type=notify` units
// are "active" only once the agent runs its pods, and a WatchdogSec unit is restarted when the agent hangs.
//
// k/k@1.24.1 cmd/kubelet/app/server.go sends READY=1 (go-systemd daemon.SdNotify) once the kubelet has
// started; here READY=1 goes once the sync loop has run housekeeping after the PLEG's first relist (the
// agent knows its pods and has handled them). WATCHDOG=1 is sent every WATCHDOG_USEC/2 when systemd set
// WATCHDOG_USEC for this process (WATCHDOG_PID this process's, or unset) — not in 1.24; later kubelets
// gained a systemd watchdog of their own (pkg/kubelet/watchdog). STOPPING=1 when the agent stops.
//
// $NOTIFY_SOCKET is a unix datagram socket, a path or (leading "@") an abstract name. Neither Bun nor
// Node can send a unix datagram (node:dgram is UDP only, node:net is streams, Bun.udpSocket is UDP),
// and `systemd-notify` would report its own PID (the unit would need NotifyAccess=all and still race
// systemd's PID lookup). So the datagram is sent by libc itself through bun:ffi (socket, sendto,
// close), which works in the compiled binary too.
import { dlopen, FFIType, ptr } from "bun:ffi";
import { type Clock, type Logger, runUntil } from "../util";

/** Where notifications go: the libc datagram socket on a node, a recorder in tests. */
export interface NotifySocket {
  /** Sends one datagram of newline-separated assignments; throws when it cannot. */
  send(state: string): void;
}

const AF_UNIX = 1;
const SOCK_DGRAM = 2;
const SOCK_CLOEXEC = 0o2000000;
/** sizeof(sockaddr_un): sun_family (2 bytes) and sun_path (108). */
const SOCKADDR_UN_SIZE = 110;

type Libc = ReturnType<typeof openLibc>;
function openLibc() {
  return dlopen("libc.so.6", {
    socket: { args: [FFIType.i32, FFIType.i32, FFIType.i32], returns: FFIType.i32 },
    sendto: { args: [FFIType.i32, FFIType.ptr, FFIType.u64, FFIType.i32, FFIType.ptr, FFIType.u32], returns: FFIType.i64 },
    close: { args: [FFIType.i32], returns: FFIType.i32 },
  }).symbols;
}

/** The sockaddr_un of $NOTIFY_SOCKET and its length (an abstract name has no trailing NUL). */
export function notifyAddress(path: string): { addr: Buffer; length: number } {
  const abstract = path.startsWith("@");
  const name = Buffer.from(abstract ? path.slice(1) : path);
  // sun_path holds 108 bytes: a path needs its NUL, an abstract name its leading NUL.
  if (name.length + 1 > SOCKADDR_UN_SIZE - 2) throw new Error(`NOTIFY_SOCKET ${JSON.stringify(path)} is too long for a unix socket address`);
  const addr = Buffer.alloc(SOCKADDR_UN_SIZE);
  addr.writeUInt16LE(AF_UNIX, 0);
  name.copy(addr, abstract ? 3 : 2);
  return { addr, length: 2 + name.length + 1 };
}

/** A unix datagram to $NOTIFY_SOCKET through libc (bun:ffi): a socket per message, as sd_notify does. */
export class LibcNotifySocket implements NotifySocket {
  private libc: Libc | undefined;
  private readonly address: { addr: Buffer; length: number };

  constructor(readonly path: string) {
    if (!path.startsWith("/") && !path.startsWith("@"))
      throw new Error(`NOTIFY_SOCKET ${JSON.stringify(path)}: expected an absolute path or an @abstract name`);
    this.address = notifyAddress(path);
  }

  send(state: string): void {
    const libc = (this.libc ??= openLibc());
    const fd = libc.socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) throw new Error("socket(AF_UNIX, SOCK_DGRAM) failed");
    try {
      const msg = Buffer.from(state);
      const sent = Number(libc.sendto(fd, ptr(msg), msg.length, 0, ptr(this.address.addr), this.address.length));
      if (sent !== msg.length) throw new Error(`sendto ${this.path} failed`);
    } finally {
      libc.close(fd);
    }
  }
}

export interface SdNotifierOptions {
  /** The environment systemd gave the process (NOTIFY_SOCKET, WATCHDOG_USEC, WATCHDOG_PID). */
  env: Record<string, string | undefined>;
  pid: number;
  clock: Clock;
  log: Logger;
  /** How datagrams are sent; a LibcNotifySocket on $NOTIFY_SOCKET by default. */
  socket?: NotifySocket;
}

/** The agent's notifications to systemd; does nothing when NOTIFY_SOCKET is unset. */
export class SdNotifier {
  private readonly socket: NotifySocket | undefined;
  /** Half of WATCHDOG_USEC, in ms, when systemd watches this process. */
  readonly watchdogPeriodMs: number | undefined;
  private readySent = false;
  private failed = false;

  constructor(private readonly o: SdNotifierOptions) {
    const path = o.env.NOTIFY_SOCKET;
    let socket = o.socket;
    if (!socket && path) {
      try {
        socket = new LibcNotifySocket(path);
      } catch (err) {
        o.log.warn("sd_notify: cannot open the notify socket; systemd is not notified", { path, err });
      }
    }
    this.socket = path ? socket : undefined;
    const usec = Number(o.env.WATCHDOG_USEC);
    const pid = o.env.WATCHDOG_PID;
    const forUs = pid === undefined || pid === "" || Number(pid) === o.pid;
    this.watchdogPeriodMs = this.socket && Number.isFinite(usec) && usec > 0 && forUs ? usec / 2000 : undefined;
  }

  get enabled(): boolean {
    return this.socket !== undefined;
  }

  /** READY=1, once. */
  ready(): void {
    if (this.readySent) return;
    this.readySent = true;
    this.notify("READY=1");
  }

  stopping(): void {
    this.notify("STOPPING=1");
  }

  /** WATCHDOG=1 every WATCHDOG_USEC/2 until the signal aborts (nothing when systemd set no watchdog). */
  async runWatchdog(signal: AbortSignal): Promise<void> {
    if (this.watchdogPeriodMs === undefined) return;
    await runUntil(this.o.clock, this.watchdogPeriodMs, signal, async () => this.notify("WATCHDOG=1"));
  }

  private notify(state: string): void {
    if (!this.socket) return;
    try {
      this.socket.send(state);
    } catch (err) {
      // Said once: a socket that is gone stays gone, and the agent runs on without systemd's view.
      if (!this.failed) this.o.log.warn("sd_notify failed", { state, err });
      this.failed = true;
    }
  }
}
