// MemoryRuntime, the in-memory CRI runtime of `nodeagent hollow`, on a fake clock: start latency,
// exits by annotation, stops, the event stream containerd 1.7 sends, stats, images, pod IPs, and the
// errors containerd answers with.
import { describe, expect, test } from "bun:test";
import { MemoryRuntime } from "../../src/cri/memory-runtime";
import type { MemoryRuntimeOptions } from "../../src/cri/memory-options";
import { MemorySchedule } from "../../src/cri/memory-schedule";
import { NotFoundError, UnimplementedError } from "../../src/cri/errors";
import type { ContainerConfigInput, ContainerEvent, PodSandboxConfigInput } from "../../src/cri/types";
import { FakeClock, flushMicrotasks } from "../../src/util/clock";

function runtime(o: Partial<MemoryRuntimeOptions> = {}) {
  const clock = new FakeClock();
  return { clock, rt: new MemoryRuntime({ clock, ...o }) };
}

const sandboxConfig = (name = "web", annotations: Record<string, string> = {}, hostNetwork = false): PodSandboxConfigInput => ({
  metadata: { name, uid: `uid-${name}`, namespace: "default", attempt: 0 },
  labels: { "io.kubernetes.pod.uid": `uid-${name}` },
  annotations,
  ...(hostNetwork ? { linux: { securityContext: { namespaceOptions: { network: "NODE" } } } } : {}),
});
const containerConfig = (name = "app"): ContainerConfigInput => ({
  metadata: { name, attempt: 0 },
  image: { image: "registry.k8s.io/pause:3.10" },
  labels: { "io.kubernetes.container.name": name },
  annotations: {},
  linux: { resources: { memoryLimitInBytes: 64 * 1024 * 1024 } },
});

/** A sandbox with one running container. */
async function running(rt: MemoryRuntime, annotations: Record<string, string> = {}) {
  const sb = await rt.runPodSandbox(sandboxConfig("web", annotations));
  const c = await rt.createContainer(sb, containerConfig(), sandboxConfig());
  await rt.startContainer(c);
  return { sb, c };
}

/** Settles whether the promise has resolved after the microtasks run. */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(() => (done = true));
  await flushMicrotasks();
  return done;
}

describe("MemoryRuntime lifecycle", () => {
  test("RunPodSandbox and StartContainer complete after the start latency, on the clock", async () => {
    const { clock, rt } = runtime({ startLatencyMs: 2000 });
    const run = rt.runPodSandbox(sandboxConfig());
    await clock.advance(1999);
    expect(await settled(run)).toBe(false);
    expect(await rt.listPodSandbox()).toEqual([]);
    await clock.advance(1);
    const sb = await run;
    expect((await rt.podSandboxStatus(sb)).status.state).toBe("SANDBOX_READY");
    const c = await rt.createContainer(sb, containerConfig(), sandboxConfig());
    expect((await rt.containerStatus(c)).state).toBe("CONTAINER_CREATED");
    const start = rt.startContainer(c);
    await clock.advance(1999);
    expect(await settled(start)).toBe(false);
    expect((await rt.containerStatus(c)).state).toBe("CONTAINER_CREATED");
    await clock.advance(1);
    await start;
    const s = await rt.containerStatus(c);
    expect(s.state).toBe("CONTAINER_RUNNING");
    expect(s.startedAt).toBe(clock.now() * 1e6);
  });

  test("the pod's start-latency annotation replaces the runtime's", async () => {
    const { clock, rt } = runtime({ startLatencyMs: 10_000 });
    const run = rt.runPodSandbox(sandboxConfig("fast", { "hollow.nodeagent.io/start-latency": "100ms" }));
    await clock.advance(100);
    expect(await settled(run)).toBe(true);
  });

  test("containers run until stopped; a stop ends them with 0 (SIGTERM honoured), a grace period of 0 with 137", async () => {
    const { clock, rt } = runtime();
    const { sb, c } = await running(rt);
    await clock.advance(3_600_000);
    expect((await rt.containerStatus(c)).state).toBe("CONTAINER_RUNNING");
    await rt.stopContainer(c, 30);
    expect(await rt.containerStatus(c)).toMatchObject({ state: "CONTAINER_EXITED", exitCode: 0, reason: "Completed", finishedAt: clock.now() * 1e6 });
    const c2 = await rt.createContainer(sb, containerConfig("side"), sandboxConfig());
    await rt.startContainer(c2);
    await rt.stopContainer(c2, 0);
    expect(await rt.containerStatus(c2)).toMatchObject({ state: "CONTAINER_EXITED", exitCode: 137, reason: "Error" });
    // A created container that never started is left as it is, as containerd does.
    const c3 = await rt.createContainer(sb, containerConfig("later"), sandboxConfig());
    await rt.stopContainer(c3, 30);
    expect((await rt.containerStatus(c3)).state).toBe("CONTAINER_CREATED");
  });

  test("a pod that ignores SIGTERM keeps running through the grace period, then is killed with 137", async () => {
    const { clock, rt } = runtime();
    const { c } = await running(rt, { "hollow.nodeagent.io/ignore-sigterm": "true" });
    const stop = rt.stopContainer(c, 5);
    await clock.advance(4999);
    expect(await settled(stop)).toBe(false);
    expect((await rt.containerStatus(c)).state).toBe("CONTAINER_RUNNING");
    await clock.advance(1);
    await stop;
    expect(await rt.containerStatus(c)).toMatchObject({ state: "CONTAINER_EXITED", exitCode: 137 });
  });

  test("exit-after and exit-code annotations make the pod's containers exit on their own (a Job)", async () => {
    const { clock, rt } = runtime();
    const { c } = await running(rt, { "hollow.nodeagent.io/exit-after": "5s", "hollow.nodeagent.io/exit-code": "3" });
    const { c: other } = await running(rt);
    await clock.advance(4999);
    expect((await rt.containerStatus(c)).state).toBe("CONTAINER_RUNNING");
    await clock.advance(1);
    expect(await rt.containerStatus(c)).toMatchObject({ state: "CONTAINER_EXITED", exitCode: 3, reason: "Error", finishedAt: clock.now() * 1e6 });
    expect((await rt.containerStatus(other)).state).toBe("CONTAINER_RUNNING");
    const { c: done } = await running(rt, { "hollow.nodeagent.io/exit-after": "0s" });
    expect(await rt.containerStatus(done)).toMatchObject({ state: "CONTAINER_EXITED", exitCode: 0, reason: "Completed" });
  });

  test("the runtime's exitAfterMs and exitCode apply to pods without the annotation; one clock timer serves every exit", async () => {
    const { clock, rt } = runtime({ exitAfterMs: 1000, exitCode: 1 });
    const ids = [];
    for (let i = 0; i < 20; i++) ids.push((await running(rt)).c);
    expect(clock.pending()).toBe(1);
    await clock.advance(1000);
    for (const id of ids) expect((await rt.containerStatus(id)).exitCode).toBe(1);
  });

  test("a stopped container's scheduled exit does not fire on it later", async () => {
    const { clock, rt } = runtime();
    const { c } = await running(rt, { "hollow.nodeagent.io/exit-after": "10s", "hollow.nodeagent.io/exit-code": "2" });
    await rt.stopContainer(c, 30);
    await clock.advance(10_000);
    expect(await rt.containerStatus(c)).toMatchObject({ exitCode: 0, reason: "Completed" });
  });

  test("StopPodSandbox kills what runs with 137; RemovePodSandbox removes the sandbox and its containers, and is idempotent", async () => {
    const { rt } = runtime();
    const { sb, c } = await running(rt);
    await rt.stopPodSandbox(sb);
    expect((await rt.podSandboxStatus(sb)).status.state).toBe("SANDBOX_NOTREADY");
    expect(await rt.containerStatus(c)).toMatchObject({ state: "CONTAINER_EXITED", exitCode: 137 });
    await rt.removePodSandbox(sb);
    expect(await rt.listPodSandbox()).toEqual([]);
    expect(await rt.listContainers()).toEqual([]);
    await rt.removePodSandbox(sb);
  });

  test("RemoveContainer refuses a running container and is idempotent; CreateContainer refuses a stopped sandbox", async () => {
    const { rt } = runtime();
    const { sb, c } = await running(rt);
    await expect(rt.removeContainer(c)).rejects.toThrow("container is still running, to stop first");
    await rt.stopContainer(c, 1);
    await rt.removeContainer(c);
    await rt.removeContainer(c);
    await rt.stopPodSandbox(sb);
    await expect(rt.createContainer(sb, containerConfig(), sandboxConfig())).rejects.toThrow("is not running");
  });

  test("lists and statuses answer with the configs' labels and annotations, filtered as the CRI asks", async () => {
    const { rt } = runtime();
    const { sb, c } = await running(rt, { note: "x" });
    const other = await rt.runPodSandbox(sandboxConfig("db"));
    expect((await rt.listPodSandbox({ labelSelector: { "io.kubernetes.pod.uid": "uid-web" } })).map((s) => s.id)).toEqual([sb]);
    expect((await rt.listPodSandbox({ state: { state: "SANDBOX_READY" } })).map((s) => s.id)).toEqual([sb, other]);
    expect((await rt.listPodSandbox())[0]).toMatchObject({ metadata: { name: "web", uid: "uid-web", namespace: "default" }, annotations: { note: "x" } });
    expect((await rt.listContainers({ podSandboxId: other })).length).toBe(0);
    expect((await rt.listContainers({ state: { state: "CONTAINER_RUNNING" } })).map((x) => x.id)).toEqual([c]);
    const s = await rt.containerStatus(c);
    expect(s).toMatchObject({ metadata: { name: "app" }, labels: { "io.kubernetes.container.name": "app" }, logPath: "" });
    expect(s.resources?.linux?.memoryLimitInBytes).toBe(64 * 1024 * 1024);
    expect(sb).toMatch(/^[0-9a-f]{64}$/);
  });

  test("ExecSync answers exit 0 with no output (probes pass), or the pod's exec-exit-code; streaming calls are unimplemented", async () => {
    const { rt } = runtime();
    const { sb, c } = await running(rt);
    const r = await rt.execSync(c, ["cat", "/tmp/healthy"], 1);
    expect([r.exitCode, r.stdout.length, r.stderr.length]).toEqual([0, 0, 0]);
    const { c: failing } = await running(rt, { "hollow.nodeagent.io/exec-exit-code": "1" });
    expect((await rt.execSync(failing, ["true"], 1)).exitCode).toBe(1);
    const stream = { containerId: c, cmd: ["sh"], tty: true, stdin: true, stdout: true, stderr: false };
    await expect(rt.exec(stream)).rejects.toBeInstanceOf(UnimplementedError);
    await expect(rt.attach(stream)).rejects.toBeInstanceOf(UnimplementedError);
    await expect(rt.portForward(sb, [80])).rejects.toThrow("no streaming server");
  });

  test("an unknown ID is NotFound where containerd says not found", async () => {
    const { rt } = runtime();
    const calls: [string, () => Promise<unknown>][] = [
      ["PodSandboxStatus", () => rt.podSandboxStatus("nope")],
      ["StopPodSandbox", () => rt.stopPodSandbox("nope")],
      ["CreateContainer", () => rt.createContainer("nope", containerConfig(), sandboxConfig())],
      ["StartContainer", () => rt.startContainer("nope")],
      ["StopContainer", () => rt.stopContainer("nope", 1)],
      ["ContainerStatus", () => rt.containerStatus("nope")],
      ["ExecSync", () => rt.execSync("nope", ["true"], 1)],
      ["UpdateContainerResources", () => rt.updateContainerResources("nope", {})],
      ["ContainerStats", () => rt.containerStats("nope")],
      ["PodSandboxStats", () => rt.podSandboxStats("nope")],
      ["ReopenContainerLog", () => rt.reopenContainerLog("nope")],
    ];
    for (const [method, call] of calls) {
      const err = await call().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(NotFoundError);
      expect((err as NotFoundError).method).toBe(method);
    }
  });
});

describe("MemoryRuntime pod IPs", () => {
  test("each sandbox gets the next free IP of the pod CIDR, freed when it stops; host-network sandboxes get none", async () => {
    const { rt } = runtime({ podCidr: "10.7.0.0/29" });
    const ip = async (id: string) => (await rt.podSandboxStatus(id)).status.network?.ip;
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push(await rt.runPodSandbox(sandboxConfig(`p${i}`)));
    expect(await Promise.all(ids.map(ip))).toEqual(["10.7.0.2", "10.7.0.3", "10.7.0.4", "10.7.0.5", "10.7.0.6"]);
    await expect(rt.runPodSandbox(sandboxConfig("full"))).rejects.toThrow("no IP addresses available");
    expect(await ip(await rt.runPodSandbox(sandboxConfig("host", {}, true)))).toBe("");
    await rt.stopPodSandbox(ids[1]!);
    expect(await ip(await rt.runPodSandbox(sandboxConfig("again")))).toBe("10.7.0.3");
  });

  test("UpdateRuntimeConfig's pod CIDR is the range of the sandboxes that follow; the same CIDR again changes nothing", async () => {
    const { rt } = runtime();
    await rt.updateRuntimeConfig("10.244.3.0/24");
    const a = await rt.runPodSandbox(sandboxConfig("a"));
    await rt.updateRuntimeConfig("10.244.3.0/24");
    const b = await rt.runPodSandbox(sandboxConfig("b"));
    expect([(await rt.podSandboxStatus(a)).status.network?.ip, (await rt.podSandboxStatus(b)).status.network?.ip]).toEqual(["10.244.3.2", "10.244.3.3"]);
    await expect(rt.updateRuntimeConfig("fd00::/64")).rejects.toThrow("IPv4 CIDR");
  });
});

describe("MemoryRuntime events", () => {
  test("GetContainerEvents streams what containerd 1.7 sends, in order, with the pod's sandbox and container statuses", async () => {
    const { rt } = runtime();
    const stream = rt.containerEvents();
    const events: ContainerEvent[] = [];
    const reading = (async () => {
      for await (const ev of stream) events.push(ev);
    })();
    const { sb, c } = await running(rt);
    await rt.stopContainer(c, 10);
    await rt.removeContainer(c);
    await rt.stopPodSandbox(sb);
    await rt.removePodSandbox(sb);
    await flushMicrotasks();
    expect(events.map((e) => [e.containerId === sb ? "sandbox" : e.containerId === c ? "app" : e.containerId, e.containerEventType])).toEqual([
      ["sandbox", "CONTAINER_CREATED_EVENT"],
      ["sandbox", "CONTAINER_STARTED_EVENT"],
      ["app", "CONTAINER_CREATED_EVENT"],
      ["app", "CONTAINER_STARTED_EVENT"],
      ["app", "CONTAINER_STOPPED_EVENT"],
      ["app", "CONTAINER_DELETED_EVENT"],
      ["sandbox", "CONTAINER_STOPPED_EVENT"],
      ["sandbox", "CONTAINER_DELETED_EVENT"],
    ]);
    expect(events[3]!.podSandboxStatus?.metadata?.uid).toBe("uid-web");
    expect(events[4]!.containersStatuses.map((s) => [s.id, s.state, s.exitCode])).toEqual([[c, "CONTAINER_EXITED", 0]]);
    expect(events[5]!.containersStatuses).toEqual([]);
    expect(events[7]!.podSandboxStatus).toBeNull();
    expect(rt.eventStreams).toBe(1);
    stream.close();
    await reading;
    expect(rt.eventStreams).toBe(0);
  });

  test("an exit by annotation is a STOPPED event when its time comes", async () => {
    const { clock, rt } = runtime();
    const { c } = await running(rt, { "hollow.nodeagent.io/exit-after": "2s" });
    const stream = rt.containerEvents();
    const events: ContainerEvent[] = [];
    void (async () => {
      for await (const ev of stream) events.push(ev);
    })();
    await clock.advance(2000);
    expect(events.map((e) => [e.containerId, e.containerEventType])).toEqual([[c, "CONTAINER_STOPPED_EVENT"]]);
    rt.close();
  });
});

describe("MemoryRuntime stats and images", () => {
  test("running containers report constant cpu and memory in containerd's shape; stopped ones are not listed", async () => {
    const { clock, rt } = runtime({ stats: { cpuNanoCores: 2_000_000, memoryBytes: 8_000_000 } });
    const { sb, c } = await running(rt);
    const { sb: stoppedSb } = await running(rt);
    await rt.stopPodSandbox(stoppedSb);
    await clock.advance(10_000);
    const s = (await rt.containerStats(c))!;
    expect(s.attributes).toMatchObject({ id: c, metadata: { name: "app" } });
    expect(s.cpu).toMatchObject({ timestamp: clock.now() * 1e6, usageNanoCores: { value: 2_000_000 }, usageCoreNanoSeconds: { value: 20_000_000 } });
    expect(s.memory).toMatchObject({
      workingSetBytes: { value: 8_000_000 },
      usageBytes: { value: 8_000_000 },
      availableBytes: { value: 64 * 1024 * 1024 - 8_000_000 },
    });
    expect(s.writableLayer?.usedBytes?.value).toBeGreaterThan(0);
    expect((await rt.listContainerStats()).map((x) => x.attributes?.id)).toEqual([c]);
    const list = await rt.listPodSandboxStats();
    expect(list.map((x) => x.attributes?.id)).toEqual([sb]);
    expect(list[0]!.linux).toMatchObject({
      cpu: { usageNanoCores: { value: 2_000_000 } },
      memory: { workingSetBytes: { value: 8_000_000 } },
      network: { defaultInterface: { name: "eth0" } },
      process: { processCount: { value: 1 } },
    });
    expect(list[0]!.linux?.containers.map((x) => x.attributes?.id)).toEqual([c]);
    expect((await rt.podSandboxStats(stoppedSb))?.linux?.containers).toEqual([]);
  });

  test("PullImage records the image; ImageStatus, ListImages, RemoveImage and ImageFsInfo agree; statuses name it as containerd does", async () => {
    const { rt } = runtime({ imageSizeBytes: 1234 });
    const id = await rt.pullImage({ image: "registry.k8s.io/pause:3.10" });
    expect(id).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(await rt.pullImage({ image: "registry.k8s.io/pause:3.10" })).toBe(id);
    expect((await rt.imageStatus({ image: id })).image?.repoTags).toEqual(["registry.k8s.io/pause:3.10"]);
    expect((await rt.imageStatus({ image: "registry.k8s.io/pause:3.10" })).image?.id).toBe(id);
    expect((await rt.imageStatus({ image: "busybox" })).image).toBeNull();
    expect((await rt.listImages()).map((i) => [i.id, i.size])).toEqual([[id, 1234]]);
    expect((await rt.imageFsInfo()).imageFilesystems[0]).toMatchObject({ fsId: { mountpoint: "/" }, usedBytes: { value: 1234 } });
    const sb = await rt.runPodSandbox(sandboxConfig());
    const c = await rt.createContainer(sb, { ...containerConfig(), image: { image: id } }, sandboxConfig());
    expect(await rt.containerStatus(c)).toMatchObject({ image: { image: "registry.k8s.io/pause:3.10" }, imageRef: id, imageId: id });
    await rt.removeImage({ image: id });
    await rt.removeImage({ image: id });
    expect(await rt.listImages()).toEqual([]);
    expect((await rt.imageFsInfo()).imageFilesystems[0]?.usedBytes?.value).toBe(0);
  });

  test("Version and Status: the runtime's name, and runtime and network ready", async () => {
    const { rt } = runtime({ runtimeName: "hollow" });
    expect((await rt.version()).runtimeName).toBe("hollow");
    expect((await rt.status()).status?.conditions.map((c) => [c.type, c.status])).toEqual([
      ["RuntimeReady", true],
      ["NetworkReady", true],
    ]);
  });
});

describe("MemorySchedule", () => {
  test("many due times, one clock timer, fired in time order; runtimes may share it", async () => {
    const clock = new FakeClock();
    const schedule = new MemorySchedule(clock);
    const fired: number[] = [];
    for (const ms of [300, 100, 200, 100, 50]) schedule.after(ms, () => fired.push(ms));
    expect(clock.pending()).toBe(1);
    await clock.advance(100);
    expect(fired).toEqual([50, 100, 100]);
    await clock.advance(200);
    expect(fired).toEqual([50, 100, 100, 200, 300]);
    expect(schedule.size).toBe(0);
    const a = new MemoryRuntime({ clock, schedule, exitAfterMs: 500 });
    const b = new MemoryRuntime({ clock, schedule, exitAfterMs: 700 });
    await running(a);
    await running(b);
    expect(clock.pending()).toBe(1);
  });
});
