import { describe, expect, test } from "bun:test";
import { computePodActions, neverRan, shouldRestart } from "../../src/agent/pod-actions";
import { pod, podStatus, type CSpec } from "./fixtures";

const summary = (a: ReturnType<typeof computePodActions>) => ({
  killPod: a.killPod,
  createSandbox: a.createSandbox,
  init: a.initContainersToStart,
  start: a.containersToStart,
  kill: a.containersToKill.map((k) => `${k.name}: ${k.reason}`),
  ...(a.podFailed ? { failed: a.podFailed } : {}),
});

describe("sandbox", () => {
  test("a new pod: create the sandbox (attempt 0) and start every container", () => {
    const p = pod({ containers: ["a", "b"] });
    const a = computePodActions(p, undefined);
    expect(summary(a)).toEqual({ killPod: false, createSandbox: true, init: [], start: [0, 1], kill: [] });
    expect(a.attempt).toBe(0);
  });
  test("a dead sandbox: kill what is left and create attempt n+1", () => {
    const p = pod();
    const a = computePodActions(p, podStatus(p, { sandbox: "notready", attempt: 2, containers: [{ name: "app", state: "exited", exitCode: 137 }] }));
    expect(summary(a)).toEqual({ killPod: true, createSandbox: true, init: [], start: [0], kill: [] });
    expect(a.attempt).toBe(3);
  });
  test("two ready sandboxes are reconciled into a new one", () => {
    const p = pod();
    const a = computePodActions(p, podStatus(p, { extraReadySandbox: true, containers: [{ name: "app", state: "running" }] }));
    expect(a.killPod && a.createSandbox).toBe(true);
  });
  test("hostNetwork changed: a new sandbox", () => {
    const before = pod();
    const st = podStatus(before, { containers: [{ name: "app", state: "running" }] });
    expect(computePodActions(pod({ hostNetwork: true }), st).createSandbox).toBe(true);
  });
  test("restartPolicy Never: a dead sandbox of a pod that ran is not recreated", () => {
    const p = pod({ restartPolicy: "Never" });
    const a = computePodActions(p, podStatus(p, { sandbox: "notready", containers: [{ name: "app", state: "exited", exitCode: 1 }] }));
    expect(summary(a)).toEqual({ killPod: true, createSandbox: false, init: [], start: [], kill: [] });
  });
  test("restartPolicy OnFailure: a dead sandbox is recreated only for the containers that failed", () => {
    const p = pod({ restartPolicy: "OnFailure", containers: ["ok", "bad"] });
    const st = podStatus(p, { sandbox: "notready", containers: [{ name: "ok", state: "exited", exitCode: 0 }, { name: "bad", state: "exited", exitCode: 2 }] });
    expect(summary(computePodActions(p, st))).toEqual({ killPod: true, createSandbox: true, init: [], start: [1], kill: [] });
    const done = podStatus(p, { sandbox: "notready", containers: [{ name: "ok", state: "exited", exitCode: 0 }, { name: "bad", state: "exited", exitCode: 0 }] });
    expect(computePodActions(p, done).createSandbox).toBe(false);
  });
});

describe("app containers: restartPolicy × state", () => {
  const cases: [string, "Always" | "OnFailure" | "Never", CSpec | undefined, boolean][] = [
    ["never started", "Always", undefined, true],
    ["never started", "Never", undefined, true],
    ["running", "Always", { name: "app", state: "running" }, false],
    ["exited 0", "Always", { name: "app", state: "exited", exitCode: 0 }, true],
    ["exited 1", "Always", { name: "app", state: "exited", exitCode: 1 }, true],
    ["exited 0", "OnFailure", { name: "app", state: "exited", exitCode: 0 }, false],
    ["exited 1", "OnFailure", { name: "app", state: "exited", exitCode: 1 }, true],
    ["exited 0", "Never", { name: "app", state: "exited", exitCode: 0 }, false],
    ["exited 1", "Never", { name: "app", state: "exited", exitCode: 1 }, false],
    ["created, never started", "Never", { name: "app", state: "created" }, true],
  ];
  for (const [what, policy, c, start] of cases) {
    test(`${policy}, ${what}: ${start ? "start" : "leave"}`, () => {
      const p = pod({ restartPolicy: policy, containers: ["app", "side"] });
      const a = computePodActions(p, podStatus(p, { containers: [...(c ? [c] : []), { name: "side", state: "running" }] }));
      expect(a.createSandbox).toBe(false);
      expect(a.containersToStart).toEqual(start ? [0] : []);
      expect(a.killPod).toBe(false);
    });
  }
  test("every container finished and none to restart: the sandbox is killed", () => {
    const p = pod({ restartPolicy: "Never", containers: ["a", "b"] });
    const a = computePodActions(p, podStatus(p, { containers: [{ name: "a", state: "exited", exitCode: 0 }, { name: "b", state: "exited", exitCode: 3 }] }));
    expect(summary(a)).toEqual({ killPod: true, createSandbox: false, init: [], start: [], kill: [] });
  });
  test("a running container made from an older spec is replaced", () => {
    const p = pod();
    const a = computePodActions(p, podStatus(p, { containers: [{ name: "app", state: "running", staleHash: true }] }));
    expect(summary(a)).toEqual({ killPod: false, createSandbox: false, init: [], start: [0], kill: ["app: Container spec hash changed"] });
  });
  test("a running container the spec does not name is killed", () => {
    const p = pod();
    const a = computePodActions(p, podStatus(p, { containers: [{ name: "app", state: "running" }, { name: "ghost", state: "running" }] }));
    expect(a.containersToKill.map((k) => k.name)).toEqual(["ghost"]);
    expect(a.killPod).toBe(false);
  });
  test("the newest status of a name decides (a restarted container's old instance is ignored)", () => {
    const p = pod();
    const st = podStatus(p, { containers: [{ name: "app", state: "running" }, { name: "app", state: "exited", exitCode: 1 }] });
    expect(computePodActions(p, st).containersToStart).toEqual([]);
  });
});

describe("init containers", () => {
  test("new pod with init containers: the sandbox and the first init container only", () => {
    const p = pod({ inits: ["i1", "i2"] });
    expect(summary(computePodActions(p, undefined))).toEqual({ killPod: false, createSandbox: true, init: [0], start: [], kill: [] });
  });
  test("run in order: the next starts only after the previous succeeded", () => {
    const p = pod({ inits: ["i1", "i2"], containers: ["app"] });
    expect(computePodActions(p, podStatus(p, { containers: [{ name: "i1", state: "running", init: true }] })).initContainersToStart).toEqual([]);
    expect(computePodActions(p, podStatus(p, { containers: [{ name: "i1", state: "exited", exitCode: 0, init: true }] })).initContainersToStart).toEqual([1]);
    const done = computePodActions(p, podStatus(p, { containers: [{ name: "i1", state: "exited", exitCode: 0, init: true }, { name: "i2", state: "exited", exitCode: 0, init: true }] }));
    expect(summary(done)).toEqual({ killPod: false, createSandbox: false, init: [], start: [0], kill: [] });
  });
  test("a failed init container is retried unless restartPolicy is Never, which fails the pod", () => {
    const st = (p: ReturnType<typeof pod>) => podStatus(p, { containers: [{ name: "i1", state: "exited", exitCode: 1, init: true }] });
    const always = pod({ inits: ["i1"] });
    expect(computePodActions(always, st(always)).initContainersToStart).toEqual([0]);
    const onFailure = pod({ inits: ["i1"], restartPolicy: "OnFailure" });
    expect(computePodActions(onFailure, st(onFailure)).initContainersToStart).toEqual([0]);
    const never = pod({ inits: ["i1"], restartPolicy: "Never" });
    const a = computePodActions(never, st(never));
    expect(summary(a)).toEqual({ killPod: true, createSandbox: false, init: [], start: [], kill: [], failed: "init container i1 failed with exit code 1" });
  });
  test("an app container with an init container's name is not mistaken for it", () => {
    const p = pod({ inits: ["setup"], containers: ["app"] });
    const st = podStatus(p, { containers: [{ name: "setup", state: "exited", exitCode: 0, init: true }, { name: "app", state: "running" }] });
    expect(summary(computePodActions(p, st))).toEqual({ killPod: false, createSandbox: false, init: [], start: [], kill: [] });
  });
});

test("shouldRestart: no status means never started", () => {
  expect(shouldRestart(pod({ restartPolicy: "Never" }), undefined)).toBe(true);
});

describe("neverRan: a start the agent itself cut short", () => {
  const instance = (over: Record<string, unknown>) => ({ ...podStatus(pod(), { containers: [{ name: "app", state: "exited", exitCode: 128 }] }).containerStatuses[0]!, startedAt: 0, ...over });
  test.each([
    ["created, never started (the agent stopped between CreateContainer and StartContainer)", { state: "CONTAINER_CREATED", reason: "", message: "" }, true],
    ["StartError, context canceled (containerd 1.6)", { reason: "StartError", message: "failed to start containerd task: context canceled: unknown" }, true],
    ["StartError, the shim's start killed by the cancellation (containerd 1.7)", { reason: "StartError", message: "failed to create containerd task: failed to start shim: start failed: unix:///run/containerd/s/3a38: signal: killed: unknown" }, true],
    ["StartError of the container's own (no such executable)", { reason: "StartError", message: 'exec: "nope": executable file not found in $PATH: unknown' }, false],
    ["an ordinary exit", { reason: "Error", message: "" }, false],
    ["a StartError after the container had started", { reason: "StartError", message: "context canceled", startedAt: 5 }, false],
  ])("%s → %p", (_what, over, expected) => {
    expect(neverRan(instance(over) as never)).toBe(expected as boolean);
  });

  test("restartPolicy Never: an instance that never ran is started again, one that failed is not", () => {
    const p = pod({ restartPolicy: "Never" });
    expect(shouldRestart(p, instance({ reason: "StartError", message: "context canceled" }) as never)).toBe(true);
    expect(shouldRestart(p, instance({ reason: "StartError", message: 'exec: "nope": executable file not found in $PATH' }) as never)).toBe(false);
  });
});
