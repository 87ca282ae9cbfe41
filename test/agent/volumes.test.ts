// The Agent with its VolumeManager on the fake runtime: a pod whose volume cannot be made waits
// (Pending, FailedMount) with no sandbox, starts when its object appears (onChange → the sync loop),
// keeps a subPath bound to the content it had at container creation, and leaves no volume behind
// when removed; after a restart the folders of gone pods are cleaned up and live ones kept.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Node, Pod, PodStatus as ApiPodStatus } from "kubernetes-types/core/v1";
import { Agent } from "../../src/agent/agent";
import { PodConfig, type SourceReport } from "../../src/config";
import type { ContainerConfigInput } from "../../src/cri/types";
import { Pleg } from "../../src/pleg/pleg";
import { FakeClock } from "../../src/util/clock";
import { createLogger } from "../../src/util/log";
import { NoObjectSource } from "../../src/objects/no-object-source";
import type { ObjectSource } from "../../src/objects/types";
import { MOUNT_RETRY_INITIAL_MS } from "../../src/volume/volume-manager";
import { FakeRuntime } from "../fakes/runtime";
import { FakeSource } from "../fakes/seams";
import { FakeObjectSource } from "../fakes/object-source";
import { FakeConfigMapPlugin, FakeMountTable } from "../fakes/volumes";
import { pod, runAgent } from "./fixtures";

const base = mkdtempSync(join(tmpdir(), "nodeagent-agent-volumes-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));
let n = 0;

async function start(opts: { objects?: ObjectSource; before?: SourceReport; podsDir?: string; mounts?: FakeMountTable; node?: () => Promise<Node> } = {}) {
  const clock = new FakeClock();
  const rt = new FakeRuntime(clock);
  const log = createLogger("text", -999);
  const pleg = new Pleg(rt, clock, { mode: "generic" });
  const config = new PodConfig({ clock, log });
  if (opts.before) config.apply(opts.before);
  const objects = opts.objects ?? new FakeObjectSource();
  const plugin = new FakeConfigMapPlugin(objects);
  const mounts = opts.mounts ?? new FakeMountTable();
  const podsDir = opts.podsDir ?? join(base, `pods-${++n}`);
  const agent = new Agent({
    runtime: rt,
    pleg,
    config,
    sources: [new FakeSource("file")],
    random: () => 0,
    clock,
    log,
    runtimeConfig: { podLogsRoot: join(base, "logs"), podsDir, cgroupRoot: "nodeagent-unit-test", nodeName: "node-a", hostIP: "192.0.2.10" },
    node: opts.node ?? (async () => ({})),
    objects,
    volumePlugins: [plugin],
    mountTable: mounts,
  });
  const { settle, stop } = runAgent(agent, clock);
  await settle();
  return { clock, rt, agent, config, objects, plugin, mounts, podsDir, settle, stop };
}

const fromFile = (...pods: Pod[]): SourceReport => ({ source: "file", pods, errors: [] });

function withConfigMap(subPath?: string): Pod {
  const p = pod();
  p.spec!.volumes = [{ name: "cfg", configMap: { name: "y" } }];
  p.spec!.containers[0]!.volumeMounts = [
    { name: "cfg", mountPath: "/etc/app", readOnly: true },
    ...(subPath ? [{ name: "cfg", mountPath: "/etc/one", subPath }] : []),
  ];
  return p;
}

function statusOf(agent: Agent): ApiPodStatus {
  return agent.pods().find((x) => x.metadata?.name === "web")!.status!;
}

function mountsOf(rt: FakeRuntime, i: number) {
  return (rt.callsOf("createContainer") as { config: ContainerConfigInput }[])[i]!.config.mounts!;
}

describe("Agent: a pod waiting on its volumes", () => {
  test("a missing configMap: Pending, ContainerCreating with the FailedMount message, no sandbox; it starts once the object appears", async () => {
    const a = await start();
    a.config.apply(fromFile(withConfigMap()));
    await a.settle();
    // Several attempts, so that the backoff is long: what starts the pod below is the change, not the timer.
    for (let i = 0; i < 4; i++) {
      await a.clock.advance(MOUNT_RETRY_INITIAL_MS * 2 ** i);
      await a.settle();
    }
    expect(a.rt.callsOf("runPodSandbox")).toHaveLength(0);
    const s = statusOf(a.agent);
    expect(s.phase).toBe("Pending");
    const message = `Unable to attach or mount volumes: unmounted volumes=[cfg], unattached volumes=[cfg]: MountVolume.SetUp failed for volume "cfg" : configmap "y" not found`;
    expect(s.containerStatuses?.[0]?.state?.waiting).toEqual({ reason: "ContainerCreating", message });
    expect(s.conditions?.find((c) => c.type === "PodReadyToStartContainers")).toMatchObject({ status: "False", reason: "FailedMount", message });

    (a.objects as FakeObjectSource).putConfigMap("default", "y", { key: "v1" });
    await a.settle(); // no time passes: the change itself resyncs the pod
    expect(a.rt.callsOf("runPodSandbox")).toHaveLength(1);
    const mounts = mountsOf(a.rt, 0);
    expect(mounts[0]).toMatchObject({
      containerPath: "/etc/app",
      hostPath: join(a.podsDir, "uid-1", "volumes", "kubernetes.io~configmap", "cfg"),
      readonly: true,
    });
    expect(statusOf(a.agent).conditions?.find((c) => c.type === "PodReadyToStartContainers")?.reason).toBeUndefined();
    await a.stop();
  });

  test("standalone without --local-objects: the pod waits and the message says why", async () => {
    const a = await start({ objects: new NoObjectSource() });
    a.config.apply(fromFile(withConfigMap()));
    await a.settle();
    expect(a.rt.callsOf("runPodSandbox")).toHaveLength(0);
    expect(statusOf(a.agent).containerStatuses?.[0]?.state?.waiting?.message).toContain(
      `MountVolume.SetUp failed for volume "cfg" : the pod names configmap "y" (namespace default), an API object, and this agent runs without an API server: run it with --kubeconfig, or with --local-objects DIR`,
    );
    await a.stop();
  });
});

describe("Agent: refresh and subPath", () => {
  test("a configMap update reaches the volume on the pod's next sync; the subPath mount stays bound to the content at creation", async () => {
    const objects = new FakeObjectSource();
    objects.putConfigMap("default", "y", { key: "v1" });
    const a = await start({ objects });
    a.config.apply(fromFile(withConfigMap("key")));
    await a.settle();
    const [whole, one] = mountsOf(a.rt, 0);
    const root = join(a.podsDir, "uid-1", "volumes", "kubernetes.io~configmap", "cfg");
    expect(whole!.hostPath).toBe(root);
    // The subPath is bound through `..data` resolved: the timestamped folder of that moment.
    expect(one!.hostPath).toBe(join(root, "..ts_1", "key"));

    // Every sync of the pod refreshes it (the PLEG's ContainerStarted synced it once more already).
    const before = a.plugin.setUps;
    objects.putConfigMap("default", "y", { key: "v2" });
    await a.settle();
    expect(readFileSync(join(root, "key"), "utf8")).toBe("v2");
    expect(a.plugin.setUps).toBe(before + 1);
    // The running container is not re-created: its subPath mount is what it was.
    expect(a.rt.callsOf("createContainer")).toHaveLength(1);
    await a.stop();
  });
});

describe("Agent: what the status says", () => {
  test("with init containers every container waits PodInitializing, with the message", async () => {
    const a = await start();
    const p = withConfigMap();
    p.spec!.initContainers = [{ name: "init", image: "busybox" }];
    a.config.apply(fromFile(p));
    await a.settle();
    const s = statusOf(a.agent);
    expect(s.initContainerStatuses?.[0]?.state?.waiting?.reason).toBe("PodInitializing");
    expect(s.containerStatuses?.[0]?.state?.waiting?.reason).toBe("PodInitializing");
    expect(s.containerStatuses?.[0]?.state?.waiting?.message).toStartWith("Unable to attach or mount volumes: ");
    await a.stop();
  });

  test("a subPath that a link leads out of its volume: CreateContainerConfigError, the container is not created", async () => {
    const podsDir = join(base, `pods-subpath-${++n}`);
    const work = join(podsDir, "uid-1", "volumes", "kubernetes.io~empty-dir", "work");
    mkdirSync(work, { recursive: true });
    symlinkSync("/etc", join(work, "evil"));
    const a = await start({ podsDir });
    const p = pod();
    p.spec!.volumes = [{ name: "work", emptyDir: {} }];
    p.spec!.containers[0]!.volumeMounts = [{ name: "work", mountPath: "/x", subPath: "evil" }];
    a.config.apply(fromFile(p));
    await a.settle();
    expect(a.rt.callsOf("runPodSandbox")).toHaveLength(1);
    expect(a.rt.callsOf("createContainer")).toHaveLength(0);
    const w = statusOf(a.agent).containerStatuses?.[0]?.state?.waiting;
    expect(w?.reason).toBe("CreateContainerConfigError");
    expect(w?.message).toContain("resolves to /etc, which is not inside");
    await a.stop();
  });
});

describe("Agent: subPathExpr", () => {
  function withSubPathExpr(host: string, expr: string, env: NonNullable<Pod["spec"]>["containers"][number]["env"]): Pod {
    const p = pod();
    p.spec!.volumes = [{ name: "logs", hostPath: { path: host, type: "Directory" } }];
    p.spec!.containers[0]!.env = env;
    p.spec!.containers[0]!.volumeMounts = [{ name: "logs", mountPath: "/logs", subPathExpr: expr }];
    return p;
  }

  test("$(POD_NAME) from the downward API: the mount is the pod's sub-folder of the volume, not the volume", async () => {
    const host = join(base, `host-${++n}`);
    mkdirSync(join(host, "web"), { recursive: true });
    mkdirSync(join(host, "other"), { recursive: true });
    const a = await start();
    a.config.apply(fromFile(withSubPathExpr(host, "$(POD_NAME)", [{ name: "POD_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } }])));
    await a.settle();
    expect(mountsOf(a.rt, 0).find((m) => m.containerPath === "/logs")?.hostPath).toBe(join(host, "web"));
    await a.stop();
  });

  test("$(UP) = ../..: CreateContainerConfigError with the kubelet's message, the container is not created", async () => {
    const host = join(base, `host-${++n}`);
    mkdirSync(host, { recursive: true });
    const a = await start();
    a.config.apply(fromFile(withSubPathExpr(host, "$(UP)", [{ name: "UP", value: "../.." }])));
    await a.settle();
    expect(a.rt.callsOf("createContainer")).toHaveLength(0);
    const w = statusOf(a.agent).containerStatuses?.[0]?.state?.waiting;
    expect(w).toEqual({ reason: "CreateContainerConfigError", message: "unable to provision SubPath `../..`: must not contain '..'" });
    await a.stop();
  });
});

describe("Agent: removal and restart", () => {
  test("REMOVE: the pod's volumes are torn down and unmounted, its folder removed", async () => {
    const objects = new FakeObjectSource();
    objects.putConfigMap("default", "y", { key: "v1" });
    const a = await start({ objects });
    a.config.apply(fromFile(withConfigMap()));
    await a.settle();
    const tmpfs = join(a.podsDir, "uid-1", "volumes", "kubernetes.io~configmap", "cfg");
    a.mounts.mounted.add(tmpfs);
    a.config.apply(fromFile());
    await a.clock.advance(35_000);
    await a.settle();
    expect(a.rt.sandboxes.size).toBe(0);
    expect(a.mounts.unmounted).toEqual([tmpfs]);
    expect(a.plugin.tearDowns).toEqual([tmpfs]);
    expect(existsSync(join(a.podsDir, "uid-1"))).toBe(false);
    expect(objects.registered.has("uid-1")).toBe(false);
    await a.stop();
  });

  test("after kill -9: once every source has been seen, folders of gone pods are unmounted and removed; a live pod's are kept", async () => {
    const podsDir = join(base, `pods-restart-${++n}`);
    const goneVolume = join(podsDir, "uid-gone", "volumes", "kubernetes.io~configmap", "cfg");
    mkdirSync(join(goneVolume, "..ts_1"), { recursive: true });
    const liveVolume = join(podsDir, "uid-1", "volumes", "kubernetes.io~configmap", "cfg");
    mkdirSync(liveVolume, { recursive: true });
    const mounts = new FakeMountTable();
    mounts.mounted.add(goneVolume);
    mounts.mounted.add(liveVolume);
    const objects = new FakeObjectSource();
    objects.putConfigMap("default", "y", { key: "v1" });
    const a = await start({ objects, podsDir, mounts });
    // Before the source has sent its pods nothing is removed.
    await a.clock.advance(2000);
    await a.settle();
    expect(existsSync(goneVolume)).toBe(true);
    a.config.apply(fromFile(withConfigMap()));
    await a.clock.advance(2000);
    await a.settle();
    expect(existsSync(join(podsDir, "uid-gone"))).toBe(false);
    expect(mounts.unmounted).toEqual([goneVolume]);
    expect(readFileSync(join(liveVolume, "key"), "utf8")).toBe("v1");
    expect(a.rt.callsOf("runPodSandbox")).toHaveLength(1);
    await a.stop();
  });
});

describe("Agent: the node's allocatable stands in for unset limits", () => {
  test("a resourceFieldRef env of a limit the container does not set reads the node's allocatable; a set one its own", async () => {
    let builds = 0;
    const a = await start({ node: async () => (builds++, { status: { allocatable: { cpu: "3", memory: "2Gi" } } }) });
    const p = pod();
    p.spec!.containers[0]!.resources = { limits: { memory: "64Mi" } };
    p.spec!.containers[0]!.env = [
      { name: "CPU_LIMIT", valueFrom: { resourceFieldRef: { resource: "limits.cpu" } } },
      { name: "MEM_LIMIT", valueFrom: { resourceFieldRef: { resource: "limits.memory", divisor: "1Mi" } } },
    ];
    a.config.apply(fromFile(p));
    await a.settle();
    const env = (a.rt.callsOf("createContainer") as { config: ContainerConfigInput }[])[0]!.config.envs!;
    expect(env).toContainEqual({ key: "CPU_LIMIT", value: "3" });
    expect(env).toContainEqual({ key: "MEM_LIMIT", value: "64" });
    // Built once, then kept: a pod start does not rebuild the Node.
    expect(builds).toBe(1);
    await a.stop();
  });
});
