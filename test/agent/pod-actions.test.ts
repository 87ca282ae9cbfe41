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
    const st = podStatus(p, {
      sandbox: "notready",
      containers: [
        { name: "ok", state: "exited", exitCode: 0 },
        { name: "bad", state: "exited", exitCode: 2 },
      ],
    });
    expect(summary(computePodActions(p, st))).toEqual({ killPod: true, createSandbox: true, init: [], start: [1], kill: [] });
    const done = podStatus(p, {
      sandbox: "notready",
      containers: [
        { name: "ok", state: "exited", exitCode: 0 },
        { name: "bad", state: "exited", exitCode: 0 },
      ],
    });
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
    const a = computePodActions(
      p,
      podStatus(p, {
        containers: [
          { name: "a", state: "exited", exitCode: 0 },
          { name: "b", state: "exited", exitCode: 3 },
        ],
      }),
    );
    expect(summary(a)).toEqual({ killPod: true, createSandbox: false, init: [], start: [], kill: [] });
  });
  test("a running container made from an older spec is replaced", () => {
    const p = pod();
    const a = computePodActions(p, podStatus(p, { containers: [{ name: "app", state: "running", staleHash: true }] }));
    expect(summary(a)).toEqual({ killPod: false, createSandbox: false, init: [], start: [0], kill: ["app: Container spec hash changed"] });
  });
  test("a running container the spec does not name is killed", () => {
    const p = pod();
    const a = computePodActions(
      p,
      podStatus(p, {
        containers: [
          { name: "app", state: "running" },
          { name: "ghost", state: "running" },
        ],
      }),
    );
    expect(a.containersToKill.map((k) => k.name)).toEqual(["ghost"]);
    expect(a.killPod).toBe(false);
  });
  test("the newest status of a name decides (a restarted container's old instance is ignored)", () => {
    const p = pod();
    const st = podStatus(p, {
      containers: [
        { name: "app", state: "running" },
        { name: "app", state: "exited", exitCode: 1 },
      ],
    });
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
    const done = computePodActions(
      p,
      podStatus(p, {
        containers: [
          { name: "i1", state: "exited", exitCode: 0, init: true },
          { name: "i2", state: "exited", exitCode: 0, init: true },
        ],
      }),
    );
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
    const st = podStatus(p, {
      containers: [
        { name: "setup", state: "exited", exitCode: 0, init: true },
        { name: "app", state: "running" },
      ],
    });
    expect(summary(computePodActions(p, st))).toEqual({ killPod: false, createSandbox: false, init: [], start: [], kill: [] });
  });
});

test("shouldRestart: no status means never started", () => {
  expect(shouldRestart(pod({ restartPolicy: "Never" }), undefined)).toBe(true);
});

describe("neverRan: a start the agent itself cut short", () => {
  const instance = (over: Record<string, unknown>) => ({
    ...podStatus(pod(), { containers: [{ name: "app", state: "exited", exitCode: 128 }] }).containerStatuses[0]!,
    startedAt: 0,
    ...over,
  });
  test.each([
    ["created, never started (the agent stopped between CreateContainer and StartContainer)", { state: "CONTAINER_CREATED", reason: "", message: "" }, true],
    ["StartError, context canceled (containerd 1.6)", { reason: "StartError", message: "failed to start containerd task: context canceled: unknown" }, true],
    [
      "StartError, the shim's start killed by the cancellation (containerd 1.7)",
      {
        reason: "StartError",
        message: "failed to create containerd task: failed to start shim: start failed: unix:///run/containerd/s/3a38: signal: killed: unknown",
      },
      true,
    ],
    [
      "StartError of the container's own (no such executable)",
      { reason: "StartError", message: 'exec: "nope": executable file not found in $PATH: unknown' },
      false,
    ],
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

describe("native sidecars (init containers with restartPolicy Always, KEP-753)", () => {
  const sidecarPod = (o: { restartPolicy?: "Always" | "OnFailure" | "Never"; startupProbe?: boolean } = {}) => {
    const p = pod({ inits: ["setup", "proxy", "migrate"], sidecars: ["proxy"], containers: ["app"], restartPolicy: o.restartPolicy });
    if (o.startupProbe) p.spec!.initContainers![1]!.startupProbe = { exec: { command: ["true"] } };
    return p;
  };
  const init = (name: string, state: "running" | "exited", exitCode = 0, over: Partial<CSpec> = {}): CSpec => ({ name, state, exitCode, init: true, ...over });

  test("a sidecar that runs counts as done: the next init container starts while it keeps running", () => {
    const p = sidecarPod();
    expect(computePodActions(p, podStatus(p, { containers: [init("setup", "exited")] })).initContainersToStart).toEqual([1]);
    const a = computePodActions(p, podStatus(p, { containers: [init("setup", "exited"), init("proxy", "running")] }));
    expect(summary(a)).toEqual({ killPod: false, createSandbox: false, init: [2], start: [], kill: [] });
  });

  test("with a startupProbe it counts as done only once the probe succeeded", () => {
    const p = sidecarPod({ startupProbe: true });
    const st = podStatus(p, { containers: [init("setup", "exited"), init("proxy", "running", 0, { id: "proxy-1" })] });
    expect(computePodActions(p, st).initContainersToStart).toEqual([]);
    expect(computePodActions(p, st, undefined, () => undefined).initContainersToStart).toEqual([]);
    expect(computePodActions(p, st, undefined, (name, id) => name === "proxy" && id === "proxy-1").initContainersToStart).toEqual([2]);
  });

  test("the app containers start once every regular init container succeeded and every sidecar started", () => {
    const p = sidecarPod();
    const running = computePodActions(p, podStatus(p, { containers: [init("setup", "exited"), init("proxy", "running"), init("migrate", "running")] }));
    expect(summary(running)).toEqual({ killPod: false, createSandbox: false, init: [], start: [], kill: [] });
    const done = computePodActions(p, podStatus(p, { containers: [init("setup", "exited"), init("proxy", "running"), init("migrate", "exited")] }));
    expect(summary(done)).toEqual({ killPod: false, createSandbox: false, init: [], start: [0], kill: [] });
  });

  test("a sidecar that exits is started again whatever the pod's restartPolicy, and the app goes on", () => {
    for (const restartPolicy of ["Always", "OnFailure", "Never"] as const) {
      const p = sidecarPod({ restartPolicy });
      for (const exitCode of [0, 1]) {
        const a = computePodActions(
          p,
          podStatus(p, {
            containers: [init("setup", "exited"), init("proxy", "exited", exitCode), init("migrate", "exited"), { name: "app", state: "running" }],
          }),
        );
        expect(summary(a)).toEqual({ killPod: false, createSandbox: false, init: [1], start: [], kill: [] });
      }
    }
  });

  test("a sidecar that exits during initialisation is started again and the next init container still starts", () => {
    const p = sidecarPod({ restartPolicy: "Never" });
    const a = computePodActions(p, podStatus(p, { containers: [init("setup", "exited"), init("proxy", "exited", 137), init("migrate", "exited")] }));
    expect(summary(a)).toEqual({ killPod: false, createSandbox: false, init: [1], start: [0], kill: [] });
  });

  test("a sidecar's failed liveness or startup probe kills it and starts it again, even with restartPolicy Never", () => {
    const p = sidecarPod({ restartPolicy: "Never" });
    p.spec!.initContainers![1]!.livenessProbe = { exec: { command: ["true"] }, terminationGracePeriodSeconds: 3 };
    const st = podStatus(p, {
      containers: [init("setup", "exited"), init("proxy", "running", 0, { id: "proxy-1" }), init("migrate", "exited"), { name: "app", state: "running" }],
    });
    const a = computePodActions(p, st, (name) => (name === "proxy" ? "liveness" : undefined));
    expect(summary(a)).toEqual({ killPod: false, createSandbox: false, init: [1], start: [], kill: ["proxy: Init container proxy failed liveness probe"] });
    expect(a.containersToKill[0]).toMatchObject({ id: "proxy-1", gracePeriodSeconds: 3 });
  });

  test("a sidecar made from an older spec is replaced", () => {
    const p = sidecarPod();
    const a = computePodActions(
      p,
      podStatus(p, {
        containers: [init("setup", "exited"), init("proxy", "running", 0, { staleHash: true }), init("migrate", "exited"), { name: "app", state: "running" }],
      }),
    );
    expect(summary(a)).toEqual({ killPod: false, createSandbox: false, init: [1], start: [], kill: ["proxy: Init container spec hash changed"] });
  });

  test("once an app container exists, a regular init container is never run again, a missing sidecar is started", () => {
    const p = sidecarPod();
    const a = computePodActions(p, podStatus(p, { containers: [{ name: "app", state: "running" }] }));
    expect(summary(a)).toEqual({ killPod: false, createSandbox: false, init: [1], start: [], kill: [] });
  });

  test("a Job's pod: once its app containers are done the pod is killed with its sidecars, and none is started again", () => {
    for (const restartPolicy of ["Never", "OnFailure"] as const) {
      const p = sidecarPod({ restartPolicy });
      const running = computePodActions(
        p,
        podStatus(p, {
          containers: [init("setup", "exited"), init("proxy", "running"), init("migrate", "exited"), { name: "app", state: "exited", exitCode: 0 }],
        }),
      );
      expect(summary(running)).toEqual({ killPod: true, createSandbox: false, init: [], start: [], kill: [] });
      const exited = computePodActions(
        p,
        podStatus(p, {
          containers: [init("setup", "exited"), init("proxy", "exited", 143), init("migrate", "exited"), { name: "app", state: "exited", exitCode: 0 }],
        }),
      );
      expect(summary(exited)).toEqual({ killPod: true, createSandbox: false, init: [], start: [], kill: [] });
    }
  });

  test("a regular init container failing after a sidecar started fails a Never pod", () => {
    const p = sidecarPod({ restartPolicy: "Never" });
    const a = computePodActions(p, podStatus(p, { containers: [init("setup", "exited"), init("proxy", "running"), init("migrate", "exited", 2)] }));
    expect(summary(a)).toEqual({
      killPod: true,
      createSandbox: false,
      init: [],
      start: [],
      kill: [],
      failed: "init container migrate failed with exit code 2",
    });
  });
});
