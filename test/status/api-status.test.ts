import { describe, expect, test } from "bun:test";
import { computeApiPodStatus, qosClass, type StatusInputs } from "../../src/status/api-status";
import { pod, podStatus, type CSpec } from "../agent/fixtures";

const now = "2026-01-01T00:00:00Z";
function status(p: ReturnType<typeof pod>, containers: CSpec[], extra: Partial<StatusInputs> = {}) {
  return computeApiPodStatus({
    pod: p,
    runtimeName: "containerd",
    runtime: podStatus(p, { containers }),
    waiting: new Map(),
    hostIP: "192.0.2.1",
    startTime: now,
    now,
    ...extra,
  });
}
const cond = (s: ReturnType<typeof status>, t: string) => s.conditions!.find((c) => c.type === t)!;

describe("container IDs", () => {
  test("are <runtimeName>://<id>, in the state, the last state and the status, as the kubelet's ContainerID prints them", () => {
    const waiting = new Map([["app", { reason: "CrashLoopBackOff", message: "back-off" }]]);
    const crio = status(
      pod(),
      [
        { name: "app", state: "exited", exitCode: 3, id: "new" },
        { name: "app", state: "exited", exitCode: 1, id: "old" },
      ],
      { runtimeName: "cri-o", waiting },
    );
    const cs = crio.containerStatuses![0]!;
    expect(cs.containerID).toBe("cri-o://new");
    expect(cs.lastState?.terminated?.containerID).toBe("cri-o://new");
    const stopped = status(pod({ restartPolicy: "Never" }), [{ name: "app", state: "exited", exitCode: 0, id: "c1" }]);
    expect(stopped.containerStatuses![0]!.containerID).toBe("containerd://c1");
    expect(stopped.containerStatuses![0]!.state?.terminated?.containerID).toBe("containerd://c1");
  });
});

describe("phase", () => {
  test("nothing created yet: Pending, ContainerCreating", () => {
    const s = status(pod(), []);
    expect(s.phase).toBe("Pending");
    expect(s.containerStatuses![0]!.state).toEqual({ waiting: { reason: "ContainerCreating" } });
  });
  test("running: Running, Ready and ContainersReady", () => {
    const s = status(pod(), [{ name: "app", state: "running" }]);
    expect(s.phase).toBe("Running");
    expect(cond(s, "Ready").status).toBe("True");
    expect(cond(s, "ContainersReady").status).toBe("True");
    expect(s.podIP).toBe("10.88.0.5");
    expect(s.containerStatuses![0]!.started).toBe(true);
  });
  test("crash looping under Always: Running, waiting CrashLoopBackOff with the exit as last state", () => {
    const waiting = new Map([["app", { reason: "CrashLoopBackOff", message: "back-off 20s restarting failed container=app pod=web_default(uid-1)" }]]);
    const s = status(pod(), [{ name: "app", state: "exited", exitCode: 3, restartCount: 2 }], { waiting });
    expect(s.phase).toBe("Running");
    const cs = s.containerStatuses![0]!;
    expect(cs.state?.waiting?.reason).toBe("CrashLoopBackOff");
    expect(cs.lastState?.terminated).toMatchObject({ exitCode: 3, reason: "Error" });
    expect(cs.restartCount).toBe(2);
    expect(cond(s, "Ready")).toMatchObject({ status: "False", reason: "ContainersNotReady", message: "containers with unready status: [app]" });
  });
  test("Never: Succeeded when every container exited 0, Failed when one did not", () => {
    const p = pod({ restartPolicy: "Never", containers: ["a", "b"] });
    expect(
      status(p, [
        { name: "a", state: "exited", exitCode: 0 },
        { name: "b", state: "exited", exitCode: 0 },
      ]).phase,
    ).toBe("Succeeded");
    const f = status(p, [
      { name: "a", state: "exited", exitCode: 0 },
      { name: "b", state: "exited", exitCode: 1 },
    ]);
    expect(f.phase).toBe("Failed");
    expect(cond(f, "Ready").reason).toBe("PodCompleted");
  });
  test("OnFailure: Running while a failed container will restart, Succeeded when all exited 0", () => {
    const p = pod({ restartPolicy: "OnFailure" });
    expect(status(p, [{ name: "app", state: "exited", exitCode: 1 }]).phase).toBe("Running");
    expect(status(p, [{ name: "app", state: "exited", exitCode: 0 }]).phase).toBe("Succeeded");
  });
  test("init containers not done: Pending and not Initialized; done: Initialized", () => {
    const p = pod({ inits: ["i1", "i2"] });
    const s = status(p, [
      { name: "i1", state: "exited", exitCode: 0, init: true },
      { name: "i2", state: "running", init: true },
    ]);
    expect(s.phase).toBe("Pending");
    expect(cond(s, "Initialized")).toMatchObject({ status: "False", reason: "ContainersNotInitialized", message: "containers with incomplete status: [i2]" });
    expect(s.initContainerStatuses!.map((c) => Object.keys(c.state!)[0])).toEqual(["terminated", "running"]);
    // A pod with init containers: its app containers wait PodInitializing (the kubelet's defaultWaitingState).
    expect(s.containerStatuses![0]!.state).toEqual({ waiting: { reason: "PodInitializing" } });
    // Also while an init container fails and is backed off.
    const failing = status(p, [{ name: "i1", state: "exited", exitCode: 1, init: true }], {
      waiting: new Map([["i1", { reason: "CrashLoopBackOff", message: "back-off" }]]),
    });
    expect(failing.initContainerStatuses![0]!.state?.waiting?.reason).toBe("CrashLoopBackOff");
    expect(failing.containerStatuses![0]!.state).toEqual({ waiting: { reason: "PodInitializing" } });
    const done = status(p, [
      { name: "i1", state: "exited", exitCode: 0, init: true },
      { name: "i2", state: "exited", exitCode: 0, init: true },
      { name: "app", state: "running" },
    ]);
    expect(done.phase).toBe("Running");
    expect(cond(done, "Initialized").status).toBe("True");
  });
  test("a failed pod says why", () => {
    const s = status(pod({ inits: ["i1"], restartPolicy: "Never" }), [{ name: "i1", state: "exited", exitCode: 1, init: true }], {
      failed: { reason: "Failed", message: "init container i1 failed with exit code 1" },
    });
    expect(s).toMatchObject({ phase: "Failed", reason: "Failed", message: "init container i1 failed with exit code 1" });
  });
  test("image pull errors show as the waiting reason of a container not created yet", () => {
    const s = status(pod(), [], { waiting: new Map([["app", { reason: "ImagePullBackOff", message: 'Back-off pulling image "x"' }]]) });
    expect(s.containerStatuses![0]!.state).toEqual({ waiting: { reason: "ImagePullBackOff", message: 'Back-off pulling image "x"' } });
  });
});

test("readiness comes from the prober when given", () => {
  const s = status(pod(), [{ name: "app", state: "running" }], { ready: () => false });
  expect(s.containerStatuses![0]!.ready).toBe(false);
  expect(cond(s, "Ready").status).toBe("False");
});

test("a condition keeps its transition time while its status holds", () => {
  const first = status(pod(), [{ name: "app", state: "running" }]);
  const later = status(pod(), [{ name: "app", state: "running" }], { now: "2026-01-01T01:00:00Z", previous: first });
  expect(cond(later, "Ready").lastTransitionTime).toBe(now);
  const down = status(pod(), [{ name: "app", state: "exited", exitCode: 1 }], { now: "2026-01-01T02:00:00Z", previous: later });
  expect(cond(down, "Ready").lastTransitionTime).toBe("2026-01-01T02:00:00Z");
});

test("qosClass", () => {
  const p = pod();
  expect(qosClass(p)).toBe("BestEffort");
  p.spec!.containers[0]!.resources = { limits: { cpu: "1", memory: "1Gi" } };
  expect(qosClass(p)).toBe("Guaranteed");
  p.spec!.containers[0]!.resources = { requests: { cpu: "100m" } };
  expect(qosClass(p)).toBe("Burstable");
});

describe("host IPs: the Node's InternalIPs", () => {
  test("hostIP is the first, hostIPs every one (a dual-stack --node-ip), and a host-network pod's IPs are the node's", () => {
    const single = status(pod(), [{ name: "app", state: "running" }]);
    expect(single.hostIP).toBe("192.0.2.1");
    expect(single.hostIPs).toEqual([{ ip: "192.0.2.1" }]);
    const dual = status(pod({ hostNetwork: true }), [{ name: "app", state: "running" }], { hostIP: "2001:db8::10", hostIPs: ["2001:db8::10", "192.0.2.10"] });
    expect(dual.hostIP).toBe("2001:db8::10");
    expect(dual.hostIPs).toEqual([{ ip: "2001:db8::10" }, { ip: "192.0.2.10" }]);
    expect(dual.podIP).toBe("2001:db8::10");
    expect(dual.podIPs).toEqual([{ ip: "2001:db8::10" }, { ip: "192.0.2.10" }]);
  });
});

describe("native sidecars in the status (the kubelet's getPhase and conditions, 1.29+)", () => {
  const p = (restartPolicy: "Always" | "Never" = "Never") => pod({ inits: ["proxy"], sidecars: ["proxy"], restartPolicy });
  const proxy = (state: "running" | "exited", exitCode = 0): CSpec => ({ name: "proxy", state, exitCode, init: true });

  test("listed in initContainerStatuses with started and ready; Initialized once started, Ready counts its readiness", () => {
    const s = status(p(), [proxy("running"), { name: "app", state: "running" }], { ready: (name) => name !== "proxy", started: () => true });
    expect(s.initContainerStatuses![0]).toMatchObject({ name: "proxy", started: true, ready: false, state: { running: {} } });
    expect(cond(s, "Initialized").status).toBe("True");
    expect(cond(s, "Ready")).toMatchObject({ status: "False", message: "containers with unready status: [proxy]" });
    expect(s.phase).toBe("Running");
  });
  test("not started yet (startup probe): Pending and not Initialized", () => {
    const s = status(p(), [proxy("running")], { started: () => false });
    expect(s.phase).toBe("Pending");
    expect(cond(s, "Initialized")).toMatchObject({ status: "False", message: "containers with incomplete status: [proxy]" });
  });
  test("a Job's pod: Running while the sidecar still runs, Succeeded or Failed once it has stopped", () => {
    expect(status(p(), [proxy("running"), { name: "app", state: "exited", exitCode: 0 }]).phase).toBe("Running");
    expect(status(p(), [proxy("exited", 143), { name: "app", state: "exited", exitCode: 0 }]).phase).toBe("Succeeded");
    expect(status(p(), [proxy("exited", 0), { name: "app", state: "exited", exitCode: 2 }]).phase).toBe("Failed");
  });
  test("a sidecar restarting after the app ran does not take the pod back to Pending", () => {
    const waiting = new Map([["proxy", { reason: "CrashLoopBackOff", message: "back-off" }]]);
    expect(status(p("Always"), [proxy("exited", 1), { name: "app", state: "running" }], { waiting }).phase).toBe("Running");
  });
});
