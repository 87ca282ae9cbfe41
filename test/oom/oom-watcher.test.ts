import { describe, expect, test } from "bun:test";
import { createLogger } from "../../src/util/log";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { KmsgReader, parseKmsgRecord } from "../../src/oom/kmsg";
import { OomParser } from "../../src/oom/oom-parser";
import { OomWatcher } from "../../src/oom/oom-watcher";
import { FakeClock } from "../../src/util/clock";
import { FakeKernelLog } from "../fakes/kernel-log";

// As a 6.1 kernel logs a container over its memory limit, and the node running out of memory.
const memcgKill = (pid: number, name: string, memcg: string, task: string) => [
  `${name} invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=1000`,
  `CPU: 1 PID: ${pid} Comm: ${name} Not tainted 6.1.0-18-amd64 #1  Debian 6.1.76-1`,
  `memory: usage 20480kB, limit 20480kB, failcnt 87`,
  `oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=${task.split("/").pop()},mems_allowed=0,oom_memcg=${memcg},task_memcg=${task},task=${name},pid=${pid},uid=0`,
  `Memory cgroup out of memory: Killed process ${pid} (${name}) total-vm:22256kB, anon-rss:19988kB, file-rss:4kB, shmem-rss:0kB, UID:0 pgtables:84kB oom_score_adj:1000`,
];
const systemKill = (pid: number, name: string, task: string) => [
  `kworker/0:1 invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0`,
  `oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0,global_oom,task_memcg=${task},task=${name},pid=${pid},uid=0`,
  `Out of memory: Killed process ${pid} (${name}) total-vm:9999kB, anon-rss:9000kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:84kB oom_score_adj:0`,
];

function watcher(kernel: FakeKernelLog, startUsec = 1_000) {
  const clock = new FakeClock(0);
  const seen: { pid: number; system: boolean }[] = [];
  const w = new OomWatcher({
    openKernelLog: () => kernel,
    clock,
    log: createLogger("text", -999),
    startUsecSinceBoot: startUsec,
    onOom: (k, system) => seen.push({ pid: k.pid, system }),
  });
  return { w, clock, seen };
}

describe("kmsg records", () => {
  test("a record's sequence, time and message; continuation lines dropped; junk refused", () => {
    expect(parseKmsgRecord("6,1234,5678901,-;Killed process 7 (sh)\n SUBSYSTEM=memory\n")).toEqual({
      seq: 1234,
      usecSinceBoot: 5678901,
      message: "Killed process 7 (sh)",
    });
    expect(parseKmsgRecord("4,12,99,c,caller=T1;text")).toEqual({ seq: 12, usecSinceBoot: 99, message: "text" });
    expect(parseKmsgRecord("no semicolon")).toBeUndefined();
    expect(parseKmsgRecord("6,x,1,-;m")).toBeUndefined();
  });

  test("the reader drains a file of records without blocking (a FIFO-less stand-in: a regular file read once)", () => {
    const dir = mkdtempSync(join(tmpdir(), "kmsg-"));
    // A regular file gives all its bytes in one read; /dev/kmsg gives one record per read. Both end.
    writeFileSync(join(dir, "kmsg"), "6,1,10,-;hello\n");
    const r = new KmsgReader(join(dir, "kmsg"));
    expect(r.drain().map((x) => x.message)).toEqual(["hello"]);
    expect(r.drain()).toEqual([]);
    r.close();
  });
});

describe("OOM parser", () => {
  test("a memory-cgroup kill names the cgroup that hit its limit and the victim's cgroup", () => {
    const p = new OomParser();
    const kills = memcgKill(42, "hog", "/nodeagent/kubepods/burstable/podabc", "/nodeagent/kubepods/burstable/podabc/c1")
      .map((message, i) => p.feed({ seq: i, usecSinceBoot: 5_000 + i, message }))
      .filter((k) => k !== undefined);
    expect(kills).toEqual([
      {
        pid: 42,
        processName: "hog",
        usecSinceBoot: 5_004,
        oomCgroup: "/nodeagent/kubepods/burstable/podabc",
        taskCgroup: "/nodeagent/kubepods/burstable/podabc/c1",
        constraint: "CONSTRAINT_MEMCG",
      },
    ]);
  });

  test("a node-wide kill has no oom_memcg: its cgroup is the root", () => {
    const p = new OomParser();
    const kills = systemKill(7, "java", "/system.slice/app")
      .map((message) => p.feed({ seq: 0, usecSinceBoot: 1, message }))
      .filter(Boolean);
    expect(kills).toMatchObject([{ pid: 7, processName: "java", oomCgroup: "/", taskCgroup: "/system.slice/app", constraint: "CONSTRAINT_NONE" }]);
  });

  test("kernels before 4.19: the 'Task in … killed as a result of limit of …' line", () => {
    const p = new OomParser();
    const lines = [
      "sh invoked oom-killer: gfp_mask=0x24000c0, order=0, oom_score_adj=0",
      "Task in /a/b killed as a result of limit of /a",
      "Memory cgroup out of memory: Kill process 9 (sh) score 1000 or sacrifice child",
      "Killed process 9 (sh) total-vm:1kB",
    ];
    const kills = lines.map((message) => p.feed({ seq: 0, usecSinceBoot: 1, message })).filter(Boolean);
    expect(kills).toMatchObject([{ pid: 9, oomCgroup: "/a", taskCgroup: "/a/b" }]);
  });

  test("a 'Killed process' line without a kill begun is not a kill", () => {
    expect(new OomParser().feed({ seq: 0, usecSinceBoot: 1, message: "Killed process 1 (init)" })).toBeUndefined();
  });
});

describe("OOM watcher", () => {
  test("counts container and system kills once each, skips kills from before the start", () => {
    const kernel = new FakeKernelLog();
    const { w, seen } = watcher(kernel, 1_000);
    kernel.log(500, ...memcgKill(1, "old", "/x", "/x/y")); // before the agent started
    kernel.log(2_000, ...memcgKill(2, "hog", "/x", "/x/y"));
    kernel.log(3_000, ...systemKill(3, "java", "/s"));
    (w as unknown as { kernelLog: FakeKernelLog }).kernelLog = kernel;
    expect(w.poll().map((k) => k.pid)).toEqual([2, 3]);
    expect(w.poll()).toEqual([]);
    expect(seen).toEqual([
      { pid: 2, system: false },
      { pid: 3, system: true },
    ]);
    expect(w.counts).toEqual({ container: 1, system: 1 });
  });

  test("run polls every period until aborted, then closes the log; a kill split across two polls is still one kill", async () => {
    const kernel = new FakeKernelLog();
    const { w, clock, seen } = watcher(kernel);
    const ac = new AbortController();
    const lines = memcgKill(5, "hog", "/x", "/x/y");
    kernel.log(2_000, ...lines.slice(0, 3));
    const done = w.run(ac.signal);
    await clock.advance(0);
    expect(seen).toEqual([]);
    kernel.log(2_001, ...lines.slice(3));
    await clock.advance(1_000);
    expect(seen).toEqual([{ pid: 5, system: false }]);
    ac.abort();
    await done;
    expect(kernel.closed).toBe(true);
  });

  test("a kernel log that cannot be opened turns the watcher off; a read error is survived", async () => {
    const clock = new FakeClock(0);
    const off = new OomWatcher({
      openKernelLog: () => {
        throw new Error("EACCES");
      },
      clock,
      log: createLogger("text", -999),
      startUsecSinceBoot: 0,
    });
    await off.run(new AbortController().signal); // returns at once
    const kernel = new FakeKernelLog();
    const { w } = watcher(kernel);
    (w as unknown as { kernelLog: FakeKernelLog }).kernelLog = kernel;
    kernel.failNext = new Error("EIO");
    expect(w.poll()).toEqual([]);
    kernel.log(5_000, ...systemKill(8, "x", "/"));
    expect(w.poll().map((k) => k.pid)).toEqual([8]);
  });
});
