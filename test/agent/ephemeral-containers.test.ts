// Ephemeral containers in the sync and the status (the kubelet's computePodActions
// EphemeralContainersToStart, SyncPod's step 6, getTargetID, and ephemeralContainerStatuses): started
// once each in the running sandbox, never again, never killed for not being an app container, sharing a
// target container's PID namespace; their status beside the others, never ready and without `started`.
import { volumesFor } from "../fakes/volumes";
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { EphemeralContainer, Pod } from "kubernetes-types/core/v1";
import { Backoff } from "../../src/agent/backoff";
import * as ann from "../../src/agent/labels";
import { computePodActions } from "../../src/agent/pod-actions";
import { PodSyncer } from "../../src/agent/pod-sync";
import type { RuntimeConfigOptions } from "../../src/agent/runtime-config";
import type { ContainerConfigInput } from "../../src/cri/types";
import type { PodStatus } from "../../src/pleg/types";
import { computeApiPodStatus } from "../../src/status/api-status";
import { FakeClock } from "../../src/util/clock";
import { createLogger } from "../../src/util/log";
import { FakeRecorder } from "../fakes/events";
import { FakeRuntime } from "../fakes/runtime";
import { pod as basePod, podStatus, relistFake, type CSpec } from "./fixtures";

const debugger_ = (name = "debugger", target?: string): EphemeralContainer => ({
  name,
  image: "localhost/nodeagent/busybox:1.35",
  command: ["sh", "-c", "sleep 1000"],
  ...(target ? { targetContainerName: target } : {}),
});

function withEphemeral(p: Pod, ...ecs: EphemeralContainer[]): Pod {
  return { ...p, spec: { ...p.spec!, ephemeralContainers: ecs } };
}

/** A runtime status whose listed ephemeral containers carry the agent's "ephemeral" type annotation. */
function statusWith(p: Pod, containers: CSpec[], ephemeral: string[] = [], sandbox?: "ready" | "notready"): PodStatus {
  const st = podStatus(p, { containers, sandbox });
  for (const c of st.containerStatuses) if (ephemeral.includes(c.metadata?.name ?? "")) c.annotations[ann.CONTAINER_TYPE] = "ephemeral";
  return st;
}

describe("computePodActions: ephemeral containers", () => {
  test("one the runtime has no instance of is started in the running sandbox", () => {
    const p = withEphemeral(basePod(), debugger_());
    const a = computePodActions(p, statusWith(p, [{ name: "app", state: "running" }]));
    expect(a.ephemeralContainersToStart).toEqual([0]);
    expect(a.containersToStart).toEqual([]);
    expect(a.containersToKill).toEqual([]);
    expect(a.killPod).toBe(false);
  });

  test("one that ran is never started again, whatever its exit and the pod's restartPolicy", () => {
    for (const exitCode of [0, 1]) {
      const p = withEphemeral(basePod({ restartPolicy: "Always" }), debugger_());
      const st = statusWith(
        p,
        [
          { name: "app", state: "running" },
          { name: "debugger", state: "exited", exitCode },
        ],
        ["debugger"],
      );
      expect(computePodActions(p, st).ephemeralContainersToStart).toEqual([]);
    }
  });

  test("a running one is neither killed as not in the spec nor started again", () => {
    const p = withEphemeral(basePod(), debugger_("a"), debugger_("b"));
    const st = statusWith(
      p,
      [
        { name: "app", state: "running" },
        { name: "a", state: "running" },
      ],
      ["a"],
    );
    const a = computePodActions(p, st);
    expect(a.containersToKill).toEqual([]);
    expect(a.ephemeralContainersToStart).toEqual([1]);
  });

  test("an instance the agent's own start cut short is replaced", () => {
    const p = withEphemeral(basePod(), debugger_());
    const st = statusWith(
      p,
      [
        { name: "app", state: "running" },
        { name: "debugger", state: "created" },
      ],
      ["debugger"],
    );
    st.containerStatuses.find((c) => c.metadata?.name === "debugger")!.startedAt = 0;
    expect(computePodActions(p, st).ephemeralContainersToStart).toEqual([0]);
  });

  test("started while an init container still runs (initialisation need not be done)", () => {
    const p = withEphemeral(basePod({ inits: ["setup"] }), debugger_());
    const a = computePodActions(p, statusWith(p, [{ name: "setup", state: "running", init: true }]));
    expect(a.ephemeralContainersToStart).toEqual([0]);
    expect(a.initContainersToStart).toEqual([]);
    expect(a.containersToStart).toEqual([]);
  });

  test("a new sandbox starts none of them", () => {
    const p = withEphemeral(basePod(), debugger_());
    const a = computePodActions(p, statusWith(p, [{ name: "app", state: "exited", exitCode: 1 }], [], "notready"));
    expect(a.createSandbox).toBe(true);
    expect(a.ephemeralContainersToStart).toEqual([]);
  });

  test("a running ephemeral container does not keep a finished pod alive", () => {
    const p = withEphemeral(basePod({ restartPolicy: "Never" }), debugger_());
    const st = statusWith(
      p,
      [
        { name: "app", state: "exited", exitCode: 0 },
        { name: "debugger", state: "running" },
      ],
      ["debugger"],
    );
    expect(computePodActions(p, st).killPod).toBe(true);
  });
});

const base = mkdtempSync(join(tmpdir(), "nodeagent-ephemeral-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));
let n = 0;

function setup() {
  const root = join(base, String(++n));
  const opts: RuntimeConfigOptions = {
    podLogsRoot: join(root, "logs"),
    podsDir: join(root, "pods"),
    cgroupRoot: "nodeagent-unit-test",
    nodeName: "node-a",
    hostIP: "192.0.2.10",
  };
  const clock = new FakeClock();
  const rt = new FakeRuntime(clock);
  const log = createLogger("text", -999);
  const events = new FakeRecorder();
  const syncer = new PodSyncer({
    runtime: rt,
    clock,
    crashBackoff: new Backoff(clock),
    imageBackoff: new Backoff(clock),
    config: opts,
    log,
    volumes: volumesFor(opts, clock, log),
    events,
  });
  rt.addImage("localhost/nodeagent/busybox:1.35");
  return { rt, syncer, events };
}

const created = (rt: FakeRuntime, name: string) =>
  (rt.callsOf("createContainer") as { config: ContainerConfigInput }[]).map((c) => c.config).find((c) => c.metadata?.name === name);

describe("PodSyncer: ephemeral containers", () => {
  test("added to a running pod: created and started once, typed ephemeral, with a PID namespace of its own", async () => {
    const { rt, syncer } = setup();
    const p = basePod();
    await syncer.syncPod(p, undefined);
    const withDebug = withEphemeral(p, debugger_());
    const r = await syncer.syncPod(withDebug, await relistFake(rt, withDebug));
    expect(r.errors).toEqual([]);
    expect(rt.containersNamed("debugger").map((c) => c.state)).toEqual(["CONTAINER_RUNNING"]);
    const config = created(rt, "debugger")!;
    expect(config.annotations?.[ann.CONTAINER_TYPE]).toBe("ephemeral");
    expect(config.linux?.securityContext?.namespaceOptions?.pid).toBe("CONTAINER");
    expect(config.linux?.securityContext?.namespaceOptions?.targetId).toBeUndefined();
    // It exits: the next sync does not start it again.
    rt.exit(rt.containersNamed("debugger")[0]!.id, 0);
    await syncer.syncPod(withDebug, await relistFake(rt, withDebug));
    expect(rt.containersNamed("debugger")).toHaveLength(1);
    expect(rt.containersNamed("app")).toHaveLength(1);
  });

  test("targetContainerName: the target's PID namespace (TARGET with its container ID)", async () => {
    const { rt, syncer } = setup();
    const p = basePod();
    await syncer.syncPod(p, undefined);
    const withDebug = withEphemeral(p, debugger_("debugger", "app"));
    await syncer.syncPod(withDebug, await relistFake(rt, withDebug));
    const ns = created(rt, "debugger")!.linux?.securityContext?.namespaceOptions;
    expect(ns?.pid).toBe("TARGET");
    expect(ns?.targetId).toBe(rt.containersNamed("app")[0]!.id);
  });

  test("shareProcessNamespace: the pod's PID namespace, no target", async () => {
    const { rt, syncer } = setup();
    const p: Pod = { ...basePod(), spec: { ...basePod().spec!, shareProcessNamespace: true } };
    await syncer.syncPod(p, undefined);
    const withDebug = withEphemeral(p, debugger_("debugger", "app"));
    await syncer.syncPod(withDebug, await relistFake(rt, withDebug));
    const ns = created(rt, "debugger")!.linux?.securityContext?.namespaceOptions;
    expect(ns?.pid).toBe("POD");
    expect(ns?.targetId).toBeUndefined();
  });

  test("a target with no instance: CreateContainerConfigError and the kubelet's Failed event", async () => {
    const { rt, syncer, events } = setup();
    const p = basePod({ inits: ["setup"] });
    rt.exitOnStart.set("setup", 1);
    await syncer.syncPod(p, undefined);
    const withDebug = withEphemeral(p, debugger_("debugger", "app"));
    const r = await syncer.syncPod(withDebug, await relistFake(rt, withDebug));
    expect(r.waiting.get("debugger")).toEqual({ reason: "CreateContainerConfigError", message: "unable to find target container app" });
    expect(rt.containersNamed("debugger")).toHaveLength(0);
    expect(events.lines()).toContain("Warning Failed: Error: unable to find target container app");
  });
});

describe("computeApiPodStatus: ephemeralContainerStatuses", () => {
  const inputs = (p: Pod, runtime: PodStatus) => ({
    pod: p,
    runtimeName: "containerd",
    runtime,
    waiting: new Map(),
    hostIP: "192.0.2.10",
    startTime: "2026-01-01T00:00:00Z",
    now: "2026-01-01T00:00:01Z",
  });

  test("one per spec entry: running, never ready, no started; the pod's phase and readiness are the app's", () => {
    const p = withEphemeral(basePod(), debugger_(), debugger_("later"));
    const st = statusWith(
      p,
      [
        { name: "app", state: "running" },
        { name: "debugger", state: "running", id: "c-debug" },
      ],
      ["debugger"],
    );
    const s = computeApiPodStatus(inputs(p, st));
    expect(s.phase).toBe("Running");
    expect(s.conditions?.find((c) => c.type === "Ready")?.status).toBe("True");
    expect(s.containerStatuses?.map((c) => c.name)).toEqual(["app"]);
    const [running, waiting] = s.ephemeralContainerStatuses!;
    expect(running).toMatchObject({ name: "debugger", ready: false, restartCount: 0, containerID: "containerd://c-debug" });
    expect(running!.state?.running).toBeDefined();
    expect("started" in running!).toBe(false);
    expect(waiting).toMatchObject({ name: "later", ready: false, state: { waiting: { reason: "ContainerCreating" } } });
    expect("started" in waiting!).toBe(false);
  });

  test("an exited one is terminated and does not end a restartPolicy Never pod", () => {
    const p = withEphemeral(basePod({ restartPolicy: "Never" }), debugger_());
    const st = statusWith(
      p,
      [
        { name: "app", state: "running" },
        { name: "debugger", state: "exited", exitCode: 3 },
      ],
      ["debugger"],
    );
    const s = computeApiPodStatus(inputs(p, st));
    expect(s.phase).toBe("Running");
    expect(s.ephemeralContainerStatuses![0]!.state?.terminated?.exitCode).toBe(3);
  });

  test("a pod without ephemeral containers has no such list", () => {
    const p = basePod();
    expect(computeApiPodStatus(inputs(p, statusWith(p, [{ name: "app", state: "running" }]))).ephemeralContainerStatuses).toBeUndefined();
  });
});
