// The pod lifecycle in the agent (issue 18) on the fake runtime with a fake clock:
// activeDeadlineSeconds (the sync loop wakes at the deadline; phase Failed, DeadlineExceeded, for
// good), a postStart hook keeping a container unstarted, readiness gates in the Ready condition and
// termination messages in the terminated state.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod, PodStatus as ApiPodStatus } from "kubernetes-types/core/v1";
import { ActiveDeadline, DEADLINE_EXCEEDED_MESSAGE } from "../../src/agent/active-deadline";
import { Agent } from "../../src/agent/agent";
import { containerLogDir, terminationLogDir, type RuntimeConfigOptions } from "../../src/agent/runtime-config";
import { computeApiPodStatus, readinessGateMessage } from "../../src/status/api-status";
import { lastLogLines, TerminationMessages } from "../../src/agent/termination-message";
import * as ann from "../../src/agent/labels";
import { PodConfig } from "../../src/config";
import type { ContainerStatus } from "../../src/cri/types";
import { Pleg } from "../../src/pleg/pleg";
import { FakeClock, flushMicrotasks } from "../../src/util/clock";
import { apiTime } from "../../src/util/time";
import { createLogger } from "../../src/util/log";
import { FakeRuntime } from "../fakes/runtime";
import { FakeSource } from "../fakes/seams";
import { pod, podStatus, runAgent } from "./fixtures";

const root = mkdtempSync(join(tmpdir(), "nodeagent-lifecycle-test-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

async function startAgent(rt: FakeRuntime, clock: FakeClock) {
  const dir = join(root, String(++n));
  const log = createLogger("text", -999);
  const pleg = new Pleg(rt, clock, { mode: "generic" });
  const config = new PodConfig({ clock, log });
  const agent = new Agent({
    runtime: rt,
    pleg,
    config,
    sources: [new FakeSource("file")],
    random: () => 0,
    clock,
    log,
    runtimeConfig: { podLogsRoot: join(dir, "logs"), podsDir: join(dir, "pods"), cgroupRoot: "nodeagent-unit-test", nodeName: "node-a", hostIP: "192.0.2.10" },
    node: async () => ({}),
    stateDir: dir,
  });
  const { settle, stop } = runAgent(agent, clock);
  await settle();
  return { agent, config, settle, stop };
}

function statusOf(agent: Agent): ApiPodStatus {
  const p = agent.pods().find((x) => x.metadata?.name === "web");
  if (!p?.status) throw new Error("no pod web");
  return p.status;
}

describe("activeDeadlineSeconds", () => {
  test("the pod's worker wakes at the deadline, not at its next resync: phase Failed, DeadlineExceeded, containers stopped", async () => {
    const clock = new FakeClock();
    const rt = new FakeRuntime(clock);
    const a = await startAgent(rt, clock);
    const p = pod();
    p.spec!.activeDeadlineSeconds = 30;
    p.spec!.terminationGracePeriodSeconds = 5;
    a.config.apply({ source: "file", pods: [p], errors: [] });
    await a.settle();
    expect(statusOf(a.agent).phase).toBe("Running");
    // Just before the deadline nothing happens (the resync is 60 s away).
    await clock.advance(28_000);
    await a.settle();
    expect(statusOf(a.agent).phase).toBe("Running");
    expect(rt.callsOf("stopContainer")).toEqual([]);
    // At the deadline (within the 1 s sync tick) the pod is stopped with the spec's grace period.
    await clock.advance(3_000);
    await a.settle();
    const s = statusOf(a.agent);
    expect({ phase: s.phase, reason: s.reason, message: s.message }).toEqual({
      phase: "Failed",
      reason: "DeadlineExceeded",
      message: DEADLINE_EXCEEDED_MESSAGE,
    });
    expect(rt.callsOf("stopContainer")).toEqual([{ id: rt.containersNamed("app")[0]!.id, timeoutSeconds: 5 }]);
    // It sticks: no container starts again.
    await clock.advance(120_000);
    await a.settle();
    expect(rt.containersNamed("app")).toHaveLength(1);
    expect(statusOf(a.agent).reason).toBe("DeadlineExceeded");
    await a.stop();
  });

  test("the deadline counts from the API's startTime when the pod has one (an agent restarted later)", () => {
    const clock = new FakeClock(Date.parse("2026-01-01T00:10:00Z"));
    const d = new ActiveDeadline(clock);
    const p = pod();
    p.spec!.activeDeadlineSeconds = 300;
    expect(d.shouldEvict(p, apiTime(clock.now()))).toBeUndefined();
    Object.assign(p, { status: { startTime: "2026-01-01T00:04:00Z" } });
    expect(d.deadline(p, apiTime(clock.now()))).toBe(Date.parse("2026-01-01T00:09:00Z"));
    expect(d.shouldEvict(p, apiTime(clock.now()))?.reason).toBe("DeadlineExceeded");
    delete p.spec!.activeDeadlineSeconds;
    expect(d.shouldEvict(p, "2020-01-01T00:00:00Z")).toBeUndefined();
  });
});

describe("postStart in the agent", () => {
  test("while the hook runs the container is running but neither started nor ready; after it, both", async () => {
    const clock = new FakeClock();
    const rt = new FakeRuntime(clock);
    const a = await startAgent(rt, clock);
    const p = pod();
    p.spec!.containers[0]!.lifecycle = { postStart: { exec: { command: ["touch", "/started"] } } };
    const release = rt.hold("execSync");
    a.config.apply({ source: "file", pods: [p], errors: [] });
    await clock.advance(0);
    for (let i = 0; i < 5 && rt.callsOf("execSync").length === 0; i++) await clock.advance(1000);
    await clock.advance(2000); // relists see the container running
    await flushMicrotasks();
    const during = statusOf(a.agent).containerStatuses?.[0];
    expect(rt.callsOf("execSync")).toHaveLength(1);
    expect({ running: !!during?.state?.running, started: during?.started, ready: during?.ready }).toEqual({ running: true, started: false, ready: false });
    release();
    await a.settle();
    await clock.advance(1000);
    await a.settle();
    const after = statusOf(a.agent).containerStatuses?.[0];
    expect({ started: after?.started, ready: after?.ready }).toEqual({ started: true, ready: true });
    await a.stop();
  });
});

describe("readinessGates", () => {
  const gated = (): Pod => {
    const p = pod();
    p.spec!.readinessGates = [{ conditionType: "example.com/lb" }, { conditionType: "example.com/dns" }];
    return p;
  };

  test("the kubelet's messages: a missing condition, a condition not True", () => {
    const p = gated();
    expect(readinessGateMessage(p, [{ type: "example.com/lb", status: "False" }])).toBe(
      'the status of pod readiness gate "example.com/lb" is not "True", but False, corresponding condition of pod readiness gate "example.com/dns" does not exist.',
    );
    expect(
      readinessGateMessage(p, [
        { type: "example.com/lb", status: "True" },
        { type: "example.com/dns", status: "True" },
      ]),
    ).toBeUndefined();
  });

  test("Ready follows the gates once the containers are ready; ContainersReady does not; the gate conditions are kept in the status", () => {
    const p = gated();
    const runtime = podStatus(p, { containers: [{ name: "app", state: "running" }] });
    const inputs = {
      pod: p,
      runtimeName: "containerd",
      runtime,
      waiting: new Map(),
      hostIP: "192.0.2.10",
      startTime: "2026-01-01T00:00:00Z",
      now: "2026-01-01T00:00:01Z",
    };
    const cond = (s: ApiPodStatus, t: string) => s.conditions?.find((c) => c.type === t);
    Object.assign(p, { status: { conditions: [{ type: "example.com/lb", status: "True" }] } });
    let s = computeApiPodStatus(inputs);
    expect(cond(s, "ContainersReady")?.status).toBe("True");
    expect(cond(s, "Ready")).toMatchObject({
      status: "False",
      reason: "ReadinessGatesNotReady",
      message: 'corresponding condition of pod readiness gate "example.com/dns" does not exist.',
    });
    expect(cond(s, "example.com/lb")?.status).toBe("True");
    Object.assign(p, {
      status: {
        conditions: [
          { type: "example.com/lb", status: "True" },
          { type: "example.com/dns", status: "True" },
        ],
      },
    });
    s = computeApiPodStatus(inputs);
    expect(cond(s, "Ready")?.status).toBe("True");
    // Unready containers: Ready says so, whatever the gates.
    s = computeApiPodStatus({ ...inputs, ready: () => false });
    expect(cond(s, "Ready")).toMatchObject({ status: "False", reason: "ContainersNotReady" });
  });
});

describe("termination messages", () => {
  const opts = (): RuntimeConfigOptions => {
    const dir = join(root, String(++n));
    return { podLogsRoot: join(dir, "logs"), podsDir: join(dir, "pods"), cgroupRoot: "x", nodeName: "node-a", hostIP: "192.0.2.10" };
  };
  const exited = (policy: string, exitCode: number, message = ""): ContainerStatus =>
    ({
      id: `c${++n}`,
      metadata: { name: "app", attempt: 2 },
      state: "CONTAINER_EXITED",
      exitCode,
      reason: exitCode ? "Error" : "Completed",
      message,
      annotations: {
        [ann.CONTAINER_RESTART_COUNT]: "2",
        [ann.CONTAINER_TERMINATION_MESSAGE_PATH]: "/dev/termination-log",
        [ann.CONTAINER_TERMINATION_MESSAGE_POLICY]: policy,
      },
    }) as unknown as ContainerStatus;
  const writeLog = (o: RuntimeConfigOptions, p: Pod, lines: string[]) => {
    mkdirSync(containerLogDir(p, "app", o), { recursive: true });
    writeFileSync(join(containerLogDir(p, "app", o), "2.log"), lines.map((l) => `2026-01-01T00:00:00.000000000Z stdout F ${l}\n`).join(""));
  };

  test("the file's last 4096 bytes, after the runtime's own message", () => {
    const o = opts();
    const p = pod();
    mkdirSync(terminationLogDir(p, "app", o), { recursive: true });
    writeFileSync(join(terminationLogDir(p, "app", o), "2-termination-log"), "x".repeat(5000) + "the end");
    const m = new TerminationMessages(o);
    const msg = m.get(p, exited("File", 1, "OOMKilled by the runtime"));
    expect(msg).toStartWith("OOMKilled by the runtime: xxx");
    expect(msg.length).toBe("OOMKilled by the runtime: ".length + 4096);
    expect(msg).toEndWith("the end");
  });

  test("FallbackToLogsOnError: the log's last 80 lines (at most 2048 bytes) when the file is empty and the container failed", () => {
    const o = opts();
    const p = pod();
    mkdirSync(terminationLogDir(p, "app", o), { recursive: true });
    writeFileSync(join(terminationLogDir(p, "app", o), "2-termination-log"), "");
    writeLog(
      o,
      p,
      Array.from({ length: 100 }, (_, i) => `line ${i}`),
    );
    const m = new TerminationMessages(o);
    const msg = m.get(p, exited("FallbackToLogsOnError", 1));
    expect(msg.split("\n").slice(0, 2)).toEqual(["line 20", "line 21"]);
    expect(msg).toEndWith("line 99\n");
    // A success, or the File policy, never reads the log.
    expect(m.get(p, exited("FallbackToLogsOnError", 0))).toBe("");
    expect(m.get(p, exited("File", 1))).toBe("");
    // Long lines: only the last 2048 bytes.
    writeLog(
      o,
      p,
      Array.from({ length: 10 }, () => "y".repeat(500)),
    );
    expect(lastLogLines(join(containerLogDir(p, "app", o), "2.log"), 80, 2048)).toHaveLength(2048);
  });

  test("the agent's status shows the message of an exited container", async () => {
    const clock = new FakeClock();
    // A container that writes its message where the agent mounted the file, then exits 2.
    class WritingRuntime extends FakeRuntime {
      override async createContainer(...args: Parameters<FakeRuntime["createContainer"]>): Promise<string> {
        const source = args[1].mounts?.find((m) => m.containerPath === "/dev/termination-log")?.hostPath;
        // The agent made the file, empty, before the container (containerd would make a directory).
        expect(source && readFileSync(source, "utf8")).toBe("");
        // Writable by any user the container runs as, whatever the agent's umask (the kubelet's 0666).
        expect(statSync(source!).mode & 0o777).toBe(0o666);
        writeFileSync(source!, "config missing");
        return super.createContainer(...args);
      }
    }
    const rt = new WritingRuntime(clock);
    const a = await startAgent(rt, clock);
    const p = pod({ restartPolicy: "Never" });
    p.spec!.containers[0]!.terminationMessagePath = "/dev/termination-log";
    rt.exitOnStart.set("app", 2);
    a.config.apply({ source: "file", pods: [p], errors: [] });
    await a.settle();
    await clock.advance(2000);
    await a.settle();
    const c = statusOf(a.agent).containerStatuses?.[0];
    expect(c?.state?.terminated?.exitCode).toBe(2);
    expect(c?.state?.terminated?.message).toBe("config missing");
    await a.stop();
  });
});
