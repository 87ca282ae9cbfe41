// LogindShutdownSignal against a real D-Bus daemon (a private bus started here) with a stand-in logind
// (test/fixtures/logind/fake-logind.py, python3-dbus): busctl reads InhibitDelayMaxUSec, the override
// drop-in is written and KillUnit makes the stand-in read it, systemd-inhibit takes the delay lock with
// the kubelet's words and closing it lets it go, and busctl monitor delivers PrepareForShutdown(true)
// and (false). Skipped outside CI where the host lacks dbus-daemon, busctl, systemd-inhibit or python3-dbus.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { LogindShutdownSignal, prepareForShutdown } from "../../src/nodeshutdown";
import { streamLines } from "../../src/util/lines";
import { linesLog } from "../fakes/recording-log";
import { eventually } from "../e2e/proc";

const FAKE = join(import.meta.dir, "../fixtures/logind/fake-logind.py");
const tools =
  ["dbus-daemon", "busctl", "systemd-inhibit"].every((t) => Bun.which(t)) && Bun.spawnSync(["/usr/bin/python3", "-c", "import dbus, gi"]).exitCode === 0;

// Under CI=true the tools are installed by `make node`; missing there, the test fails instead of skipping.
const CI = process.env.CI === "true";

describe.skipIf(!tools && !CI)("logind over a real bus", () => {
  let dir: string;
  let address: string;
  let daemon: Subprocess;
  let logind: Subprocess<"pipe", "pipe", "inherit">;
  const said: string[] = [];

  beforeAll(async () => {
    if (!tools) throw new Error("logind test: dbus-daemon, busctl, systemd-inhibit and python3-dbus/gi are needed (make node installs them)");
    dir = mkdtempSync(join(tmpdir(), "logind-"));
    address = `unix:path=${join(dir, "bus")}`;
    daemon = Bun.spawn(["dbus-daemon", "--session", "--nofork", `--address=${address}`], { stdout: "ignore", stderr: "ignore" });
    await eventually("the bus socket", async () => existsSync(join(dir, "bus")), 10_000, 50);
    logind = Bun.spawn(["/usr/bin/python3", FAKE, address, "5000000", join(dir, "logind.conf.d")], { stdin: "pipe", stdout: "pipe", stderr: "inherit" });
    void (async () => {
      for await (const line of streamLines(logind.stdout)) said.push(line);
    })();
    await eventually("the stand-in logind", async () => said.includes("ready"), 10_000, 50);
  });

  afterAll(async () => {
    logind?.kill();
    daemon?.kill();
    await Promise.all([logind?.exited, daemon?.exited]);
    rmSync(dir, { recursive: true, force: true });
  });

  const signal = () => new LogindShutdownSignal({ log: linesLog().log, address, configDir: join(dir, "logind.conf.d") });

  test("without the bus's socket it is unavailable, and says where it looked", () => {
    expect(new LogindShutdownSignal({ log: linesLog().log, address: "unix:path=/nonexistent/system_bus_socket" }).unavailable()).toBe(
      "no system bus at /nonexistent/system_bus_socket",
    );
    expect(signal().unavailable()).toBeUndefined();
  });

  test("InhibitDelayMaxUSec in seconds; a longer one written to 99-kubelet.conf and read again after KillUnit(SIGHUP)", async () => {
    const s = signal();
    expect(await s.inhibitDelayMaxSeconds()).toBe(5);
    await s.overrideInhibitDelay(10);
    expect(readFileSync(join(dir, "logind.conf.d", "99-kubelet.conf"), "utf8")).toBe("# Kubelet logind override\n[Login]\nInhibitDelayMaxSec=10\n");
    expect(said).toContain("killunit systemd-logind.service all 1");
    expect(await s.inhibitDelayMaxSeconds()).toBe(10);
  }, 30_000);

  test("the delay lock is taken with the kubelet's words, held, and let go by release", async () => {
    const s = signal();
    const before = said.length;
    await s.inhibit();
    await eventually(
      "Inhibit",
      async () => said.slice(before).includes("inhibit shutdown kubelet 'Kubelet needs time to handle node shutdown' delay"),
      10_000,
      50,
    );
    expect(said.slice(before)).not.toContain("released");
    await s.release();
    await eventually("the lock released", async () => said.slice(before).includes("released"), 10_000, 50);
  }, 30_000);

  test("PrepareForShutdown(true) then (false) arrive in order through busctl monitor", async () => {
    const s = new LogindShutdownSignal({ log: linesLog().log, address, configDir: join(dir, "logind.conf.d") });
    const events: boolean[] = [];
    const ac = new AbortController();
    const watching = s.watch((v) => events.push(v), ac.signal);
    // The monitor subscribes a moment after it starts: the stand-in says true until it is heard.
    await eventually(
      "PrepareForShutdown(true)",
      async () => {
        if (events.length === 0) {
          logind.stdin.write("shutdown true\n");
          await logind.stdin.flush();
        }
        return events.length > 0;
      },
      10_000,
      200,
    );
    logind.stdin.write("shutdown false\n");
    await logind.stdin.flush();
    await eventually("PrepareForShutdown(false)", async () => events.includes(false), 10_000, 50);
    expect(events.at(-1)).toBe(false);
    expect(events.slice(0, -1).every((v) => v)).toBe(true);
    ac.abort();
    await watching;
  }, 30_000);
});

test("a busctl monitor line: PrepareForShutdown's boolean, nothing else", () => {
  const line = (member: string, payload: unknown) =>
    JSON.stringify({ type: "signal", path: "/org/freedesktop/login1", interface: "org.freedesktop.login1.Manager", member, payload });
  expect(prepareForShutdown(line("PrepareForShutdown", { type: "b", data: [true] }))).toBe(true);
  expect(prepareForShutdown(line("PrepareForShutdown", { type: "b", data: [false] }))).toBe(false);
  expect(prepareForShutdown(line("PrepareForSleep", { type: "b", data: [true] }))).toBeUndefined();
  expect(prepareForShutdown(line("PrepareForShutdown", { type: "s", data: ["yes"] }))).toBeUndefined();
  expect(prepareForShutdown("Monitoring bus message stream.")).toBeUndefined();
});
