// FakeRuntime: the in-memory CRI runtime (src/cri MemoryRuntime, which answers as containerd does)
// with the hooks unit tests of the PLEG and the agent need: every call recorded, failures injected per
// method, a method's calls held open, objects added and changed by hand (a sandbox, a container that
// exits or never started), events sent by hand, and a GetContainerEvents that can fail. Where a test
// wants a runtime to act otherwise than containerd, the difference is here, not in MemoryRuntime:
// StopContainer kills with 137 (a process that ignores SIGTERM) after `stopTakesMs`, a created
// container too; `exitOnStart` exits a container by name as it starts; ExecSync answers `execResult`;
// IDs are readable (`sb-<pod>-<n>`, `c-<name>-<n>`); Status can say the network is not ready.
import { MemoryRuntime } from "../../src/cri/memory-runtime";
import { type ExitPlan, KILLED_EXIT_CODE } from "../../src/cri/memory-behaviour";
import type { MemoryContainer, MemorySandbox } from "../../src/cri/memory-records";
import type { ContainerEventStream } from "../../src/cri/client";
import type { Container, ContainerConfigInput, ContainerEvent, ContainerEventType, ContainerFilterInput, ContainerState } from "../../src/cri/types";
import type { AuthConfigInput, ContainerStatus, ExecSyncResponse, Image, ImageSpecInput, ImageStatusResponse } from "../../src/cri/types";
import type { LinuxContainerResourcesInput, PodSandbox, PodSandboxConfigInput, PodSandboxFilterInput } from "../../src/cri/types";
import type { PodSandboxStatus, StatusResponse } from "../../src/cri/types";
import { containerLabels, sandboxLabels } from "../../src/cri/labels";
import type { Clock, Timer } from "../../src/util/clock";
import { FakeEventStream } from "./event-stream";

export { FakeEventStream };

/** A container as the fake keeps it: the runtime's record and the command it was created with. */
export type FakeContainer = MemoryContainer & { command: string[] };

type ReadMethod = "listPodSandbox" | "listContainers" | "podSandboxStatus" | "containerStatus";
/** The RuntimeService and ImageService calls the agent's PodSyncer makes (SyncRuntime). */
type SyncMethod =
  | "runPodSandbox"
  | "stopPodSandbox"
  | "removePodSandbox"
  | "createContainer"
  | "startContainer"
  | "stopContainer"
  | "removeContainer"
  | "updateContainerResources"
  | "execSync"
  | "pullImage"
  | "imageStatus";
export type FakeRuntimeMethod = ReadMethod | SyncMethod;

/**
 * Time for a fake without a clock: every reading is a second after the previous, so each timestamp
 * is a step of its own and "newest first" is the order of creation.
 */
class SteppingClock implements Clock {
  private t = 1_000_000_000;
  now(): number {
    return (this.t += 1000);
  }
  setTimer(ms: number, fn: () => void): Timer {
    const t = setTimeout(fn, ms);
    return { cancel: () => clearTimeout(t) };
  }
  sleep(ms: number): Promise<void> {
    return new Promise((r) => setTimeout(r, ms));
  }
}

export class FakeRuntime extends MemoryRuntime {
  declare readonly containers: Map<string, FakeContainer>;
  calls: { method: string; arg?: unknown }[] = [];
  /** Errors to throw from the next calls of a method, consumed in order. */
  failNext = new Map<FakeRuntimeMethod, Error[]>();
  /** A container with this name exits with this code as soon as it starts (a crash loop, a job, an init container). */
  exitOnStart = new Map<string, number>();
  /**
   * How long (on the clock) StopContainer takes, given its timeout: a container that ignores SIGTERM
   * keeps its pod terminating for the whole grace period. Immediate by default.
   */
  stopTakesMs: ((timeoutSeconds: number) => number) | undefined;
  /** What ExecSync answers (preStop hooks). */
  execResult: { exitCode: number; stdout: string; stderr: string } = { exitCode: 0, stdout: "", stderr: "" };
  /** What GetContainerEvents does when opened: stream, or fail with a gRPC code. */
  eventsBehaviour: "stream" | { code: number; details: string } = "stream";
  /** Every event stream opened, in order (failed and closed ones too). */
  openStreams: FakeEventStream[] = [];
  /** The log path ContainerStatus reports per container ID ("" when not set). */
  logPaths = new Map<string, string>();
  /** What Status reports: NetworkReady=false with this reason and message when set (no CNI configuration yet); ready otherwise. */
  networkNotReady: { reason: string; message: string } | undefined;
  private holds = new Map<FakeRuntimeMethod, Promise<void>>();
  private seq = 0;
  private readonly hasClock: boolean;

  /**
   * With a clock, start and finish times are the clock's (the crash-loop backoff is measured from a
   * container's finishedAt); without one, every timestamp is a step of a counter of its own.
   */
  constructor(clock?: Clock) {
    super({ clock: clock ?? new SteppingClock(), imageSizeBytes: 1000 });
    this.hasClock = clock !== undefined;
  }

  protected override newId(kind: "sandbox" | "container", name: string): string {
    return `${kind === "sandbox" ? "sb" : "c"}-${name}-${++this.seq}`;
  }
  protected override logPathOf(c: MemoryContainer): string {
    return this.logPaths.get(c.id) ?? "";
  }
  protected override exitPlan(c: MemoryContainer, sb: MemorySandbox | undefined): ExitPlan | undefined {
    const code = this.exitOnStart.get(c.name);
    return code !== undefined ? { afterMs: 0, exitCode: code } : super.exitPlan(c, sb);
  }
  protected override stopPlan(c: MemoryContainer): ExitPlan | undefined {
    if (c.state !== "CONTAINER_RUNNING" && c.state !== "CONTAINER_CREATED") return undefined;
    return { afterMs: 0, exitCode: KILLED_EXIT_CODE };
  }
  /** The runtime's exits go through exit(), which a test may wrap to see when each container ends. */
  protected override exitNow(c: MemoryContainer, exitCode: number, reason?: string): void {
    this.exit(c.id, exitCode, reason);
    this.emit(c.id, this.sandboxes.get(c.sandboxId), "CONTAINER_STOPPED_EVENT");
  }
  protected override execAnswer(): ExecSyncResponse {
    const r = this.execResult;
    return { exitCode: r.exitCode, stdout: Buffer.from(r.stdout), stderr: Buffer.from(r.stderr) };
  }

  // ---- objects added and changed by hand

  addSandbox(pod: { uid: string; name: string; namespace?: string }, ready = true): string {
    const id = this.newId("sandbox", pod.name);
    const namespace = pod.namespace ?? "default";
    this.sandboxes.set(id, {
      id,
      uid: pod.uid,
      name: pod.name,
      namespace,
      attempt: 0,
      state: ready ? "SANDBOX_READY" : "SANDBOX_NOTREADY",
      createdAt: this.createdNs(),
      ip: `10.88.0.${this.seq}`,
      labels: sandboxLabels({ uid: pod.uid, name: pod.name, namespace }),
      annotations: {},
    });
    return id;
  }
  addContainer(sandboxId: string, name: string, state: ContainerState = "CONTAINER_RUNNING"): string {
    const sb = this.sandboxes.get(sandboxId)!;
    const id = this.newId("container", name);
    const createdAt = this.createdNs();
    this.containers.set(id, {
      id,
      sandboxId,
      name,
      attempt: 0,
      state,
      createdAt,
      startedAt: state === "CONTAINER_CREATED" ? 0 : this.hasClock ? this.nowNs() : createdAt,
      finishedAt: 0,
      exitCode: 0,
      reason: "",
      labels: containerLabels({ uid: sb.uid, name: sb.name, namespace: sb.namespace }, name),
      annotations: {},
      image: "",
      command: [],
    });
    return id;
  }
  /** The image, as if pulled; the record is the one ImageStatus answers with (a test may change it). */
  addImage(name: string): Image {
    return this.imageStore.add(name);
  }
  exit(id: string, exitCode: number, reason = exitCode === 0 ? "Completed" : "Error"): void {
    const c = this.containers.get(id)!;
    Object.assign(c, { state: "CONTAINER_EXITED", finishedAt: this.nowNs(), exitCode, reason });
  }
  /**
   * What containerd does to a container whose StartContainer call was cancelled (the caller died):
   * exited with exit code 128, reason StartError and the cancelled context as message, never started.
   */
  abortStart(id: string): void {
    const c = this.containers.get(id)!;
    Object.assign(c, {
      state: "CONTAINER_EXITED",
      startedAt: 0,
      finishedAt: this.nowNs(),
      exitCode: 128,
      reason: "StartError",
      message: "failed to start containerd task: context canceled",
    });
  }
  start(id: string): void {
    this.markStarted(this.containers.get(id)!);
  }
  stopSandbox(id: string): void {
    this.sandboxes.get(id)!.state = "SANDBOX_NOTREADY";
  }
  remove(id: string): void {
    this.containers.delete(id);
    this.sandboxes.delete(id);
  }

  /** Containers (every instance, oldest first) with this name. */
  containersNamed(name: string): FakeContainer[] {
    return [...this.containers.values()].filter((c) => c.name === name);
  }
  /** The calls made of one method, in order. */
  callsOf(method: FakeRuntimeMethod): unknown[] {
    return this.calls.filter((c) => c.method === method).map((c) => c.arg);
  }
  /** Holds every call of a method open (after recording it) until the returned function is called. */
  hold(method: FakeRuntimeMethod): () => void {
    let release!: () => void;
    this.holds.set(method, new Promise<void>((r) => (release = r)));
    return () => {
      this.holds.delete(method);
      release();
    };
  }

  private maybeFail(method: FakeRuntimeMethod): void {
    const errs = this.failNext.get(method);
    const e = errs?.shift();
    if (e) throw e;
  }
  /** Records a read call and throws an injected failure if any. */
  private read(method: ReadMethod, arg: unknown): void {
    this.calls.push({ method, arg });
    this.maybeFail(method);
  }
  /** Records a sync call, waits while the method is held, then throws an injected failure if any. */
  private async enter(method: SyncMethod, arg: unknown): Promise<void> {
    this.calls.push({ method, arg });
    const held = this.holds.get(method);
    if (held) await held;
    this.maybeFail(method);
  }

  // ---- the recorded calls: the record and the hooks, then the runtime's answer

  override async listPodSandbox(filter?: PodSandboxFilterInput): Promise<PodSandbox[]> {
    this.read("listPodSandbox", filter);
    return super.listPodSandbox(filter);
  }
  override async listContainers(filter?: ContainerFilterInput): Promise<Container[]> {
    this.read("listContainers", filter);
    return super.listContainers(filter);
  }
  override async podSandboxStatus(id: string) {
    this.read("podSandboxStatus", id);
    return super.podSandboxStatus(id);
  }
  override async containerStatus(id: string): Promise<ContainerStatus> {
    this.read("containerStatus", id);
    return super.containerStatus(id);
  }
  /** CRI Status: the runtime is ready; its network as networkNotReady says. */
  override async status(): Promise<StatusResponse> {
    const s = await super.status();
    const net = this.networkNotReady;
    if (net) s.status!.conditions[1] = { type: "NetworkReady", status: false, reason: net.reason, message: net.message };
    return s;
  }
  override async runPodSandbox(config: PodSandboxConfigInput, runtimeHandler = ""): Promise<string> {
    await this.enter("runPodSandbox", config);
    return super.runPodSandbox(config, runtimeHandler);
  }
  /** Stops the sandbox and every container in it; an unknown ID is fine here (containerd says NotFound). */
  override async stopPodSandbox(id: string): Promise<void> {
    await this.enter("stopPodSandbox", id);
    if (this.sandboxes.has(id)) await super.stopPodSandbox(id);
  }
  override async removePodSandbox(id: string): Promise<void> {
    await this.enter("removePodSandbox", id);
    await super.removePodSandbox(id);
  }
  override async createContainer(podSandboxId: string, config: ContainerConfigInput, sandboxConfig: PodSandboxConfigInput): Promise<string> {
    await this.enter("createContainer", { podSandboxId, config });
    const id = await super.createContainer(podSandboxId, config, sandboxConfig);
    this.containers.get(id)!.command = [...(config.command ?? []), ...(config.args ?? [])];
    return id;
  }
  override async startContainer(id: string): Promise<void> {
    await this.enter("startContainer", id);
    await super.startContainer(id);
  }
  override async stopContainer(id: string, timeoutSeconds: number): Promise<void> {
    await this.enter("stopContainer", { id, timeoutSeconds });
    const takes = this.stopTakesMs?.(timeoutSeconds) ?? 0;
    if (takes > 0 && this.hasClock) await this.schedule.wait(takes);
    await super.stopContainer(id, timeoutSeconds);
  }
  override async updateContainerResources(id: string, linux: LinuxContainerResourcesInput): Promise<void> {
    await this.enter("updateContainerResources", { id, linux });
    await super.updateContainerResources(id, linux);
  }
  override async removeContainer(id: string): Promise<void> {
    await this.enter("removeContainer", id);
    await super.removeContainer(id);
  }
  override async execSync(containerId: string, cmd: string[], timeoutSeconds: number): Promise<ExecSyncResponse> {
    await this.enter("execSync", { containerId, cmd, timeoutSeconds });
    return super.execSync(containerId, cmd, timeoutSeconds);
  }
  override async pullImage(image: ImageSpecInput, auth?: unknown, sandboxConfig?: PodSandboxConfigInput): Promise<string> {
    await this.enter("pullImage", image.image);
    return super.pullImage(image, auth as AuthConfigInput | undefined, sandboxConfig);
  }
  override async imageStatus(image: ImageSpecInput, verbose = false): Promise<ImageStatusResponse> {
    await this.enter("imageStatus", image.image);
    return super.imageStatus(image, verbose);
  }

  // ---- events

  override containerEvents(): ContainerEventStream {
    const b = this.eventsBehaviour;
    if (b === "stream") {
      const s = super.containerEvents() as FakeEventStream;
      this.openStreams.push(s);
      return s;
    }
    const s = new FakeEventStream();
    this.openStreams.push(s);
    queueMicrotask(() => s.fail(b.code, b.details));
    return s;
  }
  /** Sends an event on every open stream, built from the runtime's current state (the one container's status). */
  emitEvent(containerId: string, type: ContainerEventType, override?: Partial<ContainerEvent>): void {
    const c = this.containers.get(containerId);
    const sb = this.sandboxes.get(c?.sandboxId ?? containerId);
    const status: PodSandboxStatus | null = sb ? this.sandboxStatusOf(sb) : null;
    this.send({
      containerId,
      containerEventType: type,
      createdAt: this.nowNs(),
      podSandboxStatus: status,
      containersStatuses: c ? [this.statusOf(c)] : [],
      ...override,
    });
  }
}
