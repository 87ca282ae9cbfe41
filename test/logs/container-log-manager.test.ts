import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { ContainerLogManager, LOG_MONITOR_PERIOD_MS, rotationTimestamp, type ContainerLogRuntime } from "../../src/logs/container-log-manager";
import { ALL_LEVELS, linesLog } from "../fakes/recording-log";
import type { Container, ContainerStatus } from "../../src/cri/types";
import { FakeClock } from "../../src/util/clock";
import { grpcStatusError } from "../fakes/grpc";
import { eventually } from "../e2e/proc";

const root = mkdtempSync(join(tmpdir(), "container-logs-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let seq = 0;

/** The runtime as log rotation sees it: containers with a log path; ReopenContainerLog makes the file again. */
class FakeLogRuntime implements ContainerLogRuntime {
  containers: { id: string; state: Container["state"]; logPath: string }[] = [];
  reopened: string[] = [];
  failReopen = false;
  async listContainers(): Promise<Container[]> {
    return this.containers.map((c) => ({ id: c.id, state: c.state, metadata: { name: "app", attempt: 0 } }) as unknown as Container);
  }
  async containerStatus(id: string): Promise<ContainerStatus> {
    const c = this.containers.find((x) => x.id === id);
    if (!c) throw grpcStatusError("ContainerStatus", 5, "not found");
    return { id, logPath: c.logPath, state: c.state } as unknown as ContainerStatus;
  }
  async reopenContainerLog(id: string): Promise<void> {
    this.reopened.push(id);
    if (this.failReopen) throw grpcStatusError("ReopenContainerLog", 2, "containerd says no");
    const c = this.containers.find((x) => x.id === id)!;
    // As containerd: a new live file at the path (it appends to one that exists).
    if (!existsSync(c.logPath)) writeFileSync(c.logPath, "");
  }
}

// 2024-01-01 12:00:00 local time: rotated names are local time, as the kubelet's time.Now().Format.
const START = new Date(2024, 0, 1, 12, 0, 0).getTime();

function setup(maxFiles = 3, maxSizeBytes = 100) {
  const clock = new FakeClock(START);
  const rt = new FakeLogRuntime();
  const logs = join(root, `logs-${++seq}`);
  const dir = join(logs, "default_web_uid-1", "app");
  mkdirSync(dir, { recursive: true });
  const live = join(dir, "0.log");
  rt.containers.push({ id: "c1", state: "CONTAINER_RUNNING", logPath: live });
  const { log, lines } = linesLog(ALL_LEVELS);
  const m = new ContainerLogManager({ runtime: rt, policy: { maxSizeBytes, maxFiles }, podLogsRoot: logs, clock, log });
  const files = () => readdirSync(dir).sort();
  return { clock, rt, m, dir, live, files, lines, logs };
}

describe("container log rotation", () => {
  test("a log below containerLogMaxSize is left alone; at it, it is renamed <log>.<YYYYMMDD-hhmmss> and the runtime reopens a new one", async () => {
    const { rt, m, live, files, lines } = setup();
    writeFileSync(live, "x".repeat(99));
    await m.rotateLogs();
    expect(files()).toEqual(["0.log"]);
    expect(rt.reopened).toEqual([]);
    writeFileSync(live, "x".repeat(100));
    await m.rotateLogs();
    expect(files()).toEqual(["0.log", "0.log.20240101-120000"]);
    expect(rt.reopened).toEqual(["c1"]);
    expect(readFileSync(live, "utf8")).toBe("");
    expect(lines).toEqual([`debug container log rotation: rotated path=${live} rotated=0.log.20240101-120000`]);
  });

  test("the file set: leftovers removed, the oldest beyond MaxFiles − 2 removed, the rest gzipped, so at most MaxFiles remain", async () => {
    const { m, live, dir, files } = setup(3);
    const w = (name: string, text = name) => writeFileSync(join(dir, name), text);
    w("0.log.20240101-110001"); // compressed already: its .gz twin exists
    w("0.log.20240101-110001.gz");
    w("0.log.20240101-110005.tmp"); // a compression cut short
    w("0.log.20240101-110010.gz");
    w("0.log.20240101-110020", "the newest rotated, not yet compressed\n");
    w("1.log.20240101-110000"); // another instance's file: not this log's
    writeFileSync(live, "y".repeat(200));
    await m.rotateLogs();
    // 3 files for 0.log: the live one, the one just rotated, and the one before it compressed.
    expect(files()).toEqual(["0.log", "0.log.20240101-110020.gz", "0.log.20240101-120000", "1.log.20240101-110000"]);
    expect(gunzipSync(readFileSync(join(dir, "0.log.20240101-110020.gz"))).toString()).toBe("the newest rotated, not yet compressed\n");
    expect(readFileSync(join(dir, "0.log.20240101-120000"), "utf8")).toBe("y".repeat(200));
  });

  test("rotating again and again keeps MaxFiles files, the newest rotated one uncompressed", async () => {
    const { m, live, files, clock } = setup(4);
    for (let i = 0; i < 6; i++) {
      writeFileSync(live, `round ${i} `.repeat(20));
      await m.rotateLogs();
      await clock.advance(LOG_MONITOR_PERIOD_MS);
    }
    expect(files()).toEqual(["0.log", "0.log.20240101-120030.gz", "0.log.20240101-120040.gz", "0.log.20240101-120050"]);
  });

  test("a missing live log is reopened (a rotation cut short), and not rotated", async () => {
    const { rt, m, files } = setup();
    await m.rotateLogs();
    expect(rt.reopened).toEqual(["c1"]);
    expect(files()).toEqual(["0.log"]);
  });

  test("a failed ReopenContainerLog renames the log back, so that the next round tries again", async () => {
    const { rt, m, live, files, lines } = setup();
    writeFileSync(live, "z".repeat(150));
    rt.failReopen = true;
    await m.rotateLogs();
    expect(files()).toEqual(["0.log"]);
    expect(readFileSync(live, "utf8")).toBe("z".repeat(150));
    expect(lines).toEqual([
      'warn container log rotation: rotating a container\'s log failed container=app id=c1 err="failed to reopen container log c1: CRI ReopenContainerLog: UNKNOWN: containerd says no"',
    ]);
    rt.failReopen = false;
    await m.rotateLogs();
    expect(files()).toEqual(["0.log", "0.log.20240101-120000"]);
  });

  test("only running containers, and only logs inside --pod-logs-dir", async () => {
    const { rt, m, live, files, lines } = setup();
    writeFileSync(live, "x".repeat(500));
    rt.containers[0]!.state = "CONTAINER_EXITED";
    const outside = join(root, `outside-${seq}.log`);
    writeFileSync(outside, "x".repeat(500));
    rt.containers.push({ id: "c2", state: "CONTAINER_RUNNING", logPath: outside });
    await m.rotateLogs();
    expect(files()).toEqual(["0.log"]);
    expect(existsSync(outside)).toBe(true);
    expect(rt.reopened).toEqual([]);
    expect(
      lines.some((l) => l.startsWith("warn container log rotation: rotating a container's log failed container=app id=c2 err=") && l.includes("is not inside")),
    ).toBe(true);
  });

  test("the loop: at once, then every 10 s", async () => {
    const { m, live, files, clock } = setup();
    expect(m.periodMs).toBe(LOG_MONITOR_PERIOD_MS);
    writeFileSync(live, "x".repeat(100));
    const ac = new AbortController();
    const done = m.run(ac.signal);
    await clock.advance(0);
    expect(files()).toHaveLength(2);
    writeFileSync(live, "x".repeat(100));
    await clock.advance(LOG_MONITOR_PERIOD_MS - 1);
    expect(files()).toHaveLength(2);
    await clock.advance(1);
    // The gzip of the earlier file is real I/O, not on the fake clock: wait for the round to finish.
    await eventually("the second rotation", async () => files().length === 3 && !files().includes("0.log.20240101-120000"), 5000, 5);
    expect(files()).toEqual(["0.log", "0.log.20240101-120000.gz", "0.log.20240101-120010"]);
    ac.abort();
    await done;
  });
});

test("the rotation timestamp is Go's 20060102-150405 in local time", () => {
  expect(rotationTimestamp(new Date(2023, 11, 31, 23, 59, 58).getTime())).toBe("20231231-235958");
  expect(rotationTimestamp(new Date(2024, 1, 3, 4, 5, 6).getTime())).toBe("20240203-040506");
});
