// sd_notify: the datagram really reaches a unix datagram socket (a listener on a path and on an
// abstract name) through libc (bun:ffi), and the SdNotifier's protocol on a recording socket and a fake
// clock: READY=1 once, WATCHDOG=1 every WATCHDOG_USEC/2 only for this PID, STOPPING=1, nothing at all
// without NOTIFY_SOCKET.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LibcNotifySocket, notifyAddress, SdNotifier, type NotifySocket } from "../../src/systemd";
import { FakeClock, flushMicrotasks } from "../../src/util/clock";
import { eventually } from "../e2e/proc";
import { NotifyListener } from "../fixtures/systemd/notify-listener";
import { linesLog } from "../fakes/recording-log";

class RecordingSocket implements NotifySocket {
  readonly sent: string[] = [];
  fail = false;
  send(state: string): void {
    if (this.fail) throw new Error("sendto /run/systemd/notify failed");
    this.sent.push(state);
  }
}

describe("libc sendto to NOTIFY_SOCKET", () => {
  let listener: NotifyListener | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await listener?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
    listener = dir = undefined;
  });

  test("a socket path: READY=1 arrives", async () => {
    dir = mkdtempSync(join(tmpdir(), "notify-"));
    listener = await NotifyListener.start(join(dir, "notify"));
    new LibcNotifySocket(join(dir, "notify")).send("READY=1");
    await eventually("READY=1", async () => listener!.received.includes("READY=1"), 5_000, 20);
  });

  test("an abstract name (@…): READY=1 and a multi-line state arrive", async () => {
    const name = `@nodeagent-test-${process.pid}-${Date.now()}`;
    listener = await NotifyListener.start(name);
    const s = new LibcNotifySocket(name);
    s.send("READY=1");
    s.send("STATUS=running\nWATCHDOG=1");
    await eventually("both datagrams", async () => listener!.received.length === 2, 5_000, 20);
    expect(listener.received).toEqual(["READY=1", "STATUS=running\\nWATCHDOG=1"]);
  });

  test("nobody listening: an error to report, not a crash", () => {
    expect(() => new LibcNotifySocket("/nonexistent/notify").send("READY=1")).toThrow("sendto /nonexistent/notify failed");
  });

  test("the sockaddr_un: a path with its NUL, an abstract name with its leading NUL and no trailing one", () => {
    const path = notifyAddress("/run/systemd/notify");
    expect(path.length).toBe(2 + "/run/systemd/notify".length + 1);
    expect(path.addr.readUInt16LE(0)).toBe(1);
    expect(path.addr.subarray(2, path.length - 1).toString()).toBe("/run/systemd/notify");
    const abs = notifyAddress("@abc");
    expect(abs.length).toBe(2 + 1 + 3);
    expect([...abs.addr.subarray(2, abs.length)]).toEqual([0, 97, 98, 99]);
    expect(() => notifyAddress(`/${"x".repeat(120)}`)).toThrow("too long");
    expect(() => new LibcNotifySocket("relative/notify")).toThrow("expected an absolute path or an @abstract name");
  });
});

describe("SdNotifier", () => {
  const make = (env: Record<string, string | undefined>, socket = new RecordingSocket()) => {
    const clock = new FakeClock();
    const { log, lines } = linesLog();
    return { clock, socket, lines, n: new SdNotifier({ env, pid: 4242, clock, log, socket }) };
  };

  test("READY=1 once however often asked; STOPPING=1 on stop", () => {
    const t = make({ NOTIFY_SOCKET: "/run/systemd/notify" });
    expect(t.n.enabled).toBe(true);
    t.n.ready();
    t.n.ready();
    t.n.stopping();
    expect(t.socket.sent).toEqual(["READY=1", "STOPPING=1"]);
  });

  test("WATCHDOG=1 every WATCHDOG_USEC/2 while it runs, the first at once", async () => {
    const t = make({ NOTIFY_SOCKET: "/run/systemd/notify", WATCHDOG_USEC: "20000000", WATCHDOG_PID: "4242" });
    expect(t.n.watchdogPeriodMs).toBe(10_000);
    const ac = new AbortController();
    const running = t.n.runWatchdog(ac.signal);
    await flushMicrotasks();
    expect(t.socket.sent).toEqual(["WATCHDOG=1"]);
    await t.clock.advance(9_999);
    expect(t.socket.sent).toHaveLength(1);
    await t.clock.advance(1);
    expect(t.socket.sent).toEqual(["WATCHDOG=1", "WATCHDOG=1"]);
    ac.abort();
    await running;
    await t.clock.advance(30_000);
    expect(t.socket.sent).toHaveLength(2);
  });

  test("no watchdog for another PID's WATCHDOG_PID, or without WATCHDOG_USEC", async () => {
    expect(make({ NOTIFY_SOCKET: "/n", WATCHDOG_USEC: "20000000", WATCHDOG_PID: "1" }).n.watchdogPeriodMs).toBeUndefined();
    expect(make({ NOTIFY_SOCKET: "/n" }).n.watchdogPeriodMs).toBeUndefined();
    expect(make({ NOTIFY_SOCKET: "/n", WATCHDOG_USEC: "20000000" }).n.watchdogPeriodMs).toBe(10_000);
    const t = make({ NOTIFY_SOCKET: "/n", WATCHDOG_USEC: "20000000", WATCHDOG_PID: "1" });
    await t.n.runWatchdog(new AbortController().signal);
    expect(t.socket.sent).toEqual([]);
  });

  test("without NOTIFY_SOCKET nothing is sent, watchdog or not", async () => {
    const t = make({ WATCHDOG_USEC: "20000000" });
    expect(t.n.enabled).toBe(false);
    t.n.ready();
    t.n.stopping();
    await t.n.runWatchdog(new AbortController().signal);
    expect(t.socket.sent).toEqual([]);
  });

  test("a socket that fails is said once, and the agent goes on", () => {
    const socket = new RecordingSocket();
    socket.fail = true;
    const t = make({ NOTIFY_SOCKET: "/run/systemd/notify" }, socket);
    t.n.ready();
    t.n.stopping();
    expect(t.lines).toEqual(['warn sd_notify failed state="READY=1" err="sendto /run/systemd/notify failed"']);
  });
});
