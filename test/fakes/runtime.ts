// FakeRuntime: an in-memory CRI runtime for unit tests of the PLEG and the agent. It keeps sandboxes,
// containers and images, answers the list, status and sync calls as containerd does (the labels and
// annotations a config carries come back from the list and status calls, so a relist sees what the
// agent created), and offers a controllable GetContainerEvents stream. A test can inject failures per
// method, hold a method's calls open, and make a container exit as soon as it starts.
import { createHash } from "node:crypto";
import { grpcStatusError } from "./grpc";
import type { ContainerEventStream } from "../../src/cri/client";
import type { Container, ContainerConfigInput, ContainerEvent, ContainerEventType, ContainerFilterInput, ContainerState } from "../../src/cri/types";
import type { ContainerStatus, ExecSyncResponse, Image, ImageSpecInput, ImageStatusResponse } from "../../src/cri/types";
import type { LinuxContainerResourcesInput, PodSandbox, PodSandboxConfigInput, PodSandboxFilterInput, PodSandboxState } from "../../src/cri/types";
import type { PodSandboxStatus, StatusResponse } from "../../src/cri/types";
import { containerLabels, sandboxLabels } from "../../src/cri/labels";
import type { Clock } from "../../src/util/clock";
import { FakeEventStream } from "./event-stream";

export { FakeEventStream };

interface FakeSandbox {
  id: string;
  uid: string;
  name: string;
  namespace: string;
  attempt: number;
  state: PodSandboxState;
  createdAt: number;
  ip: string;
  /** The sandbox's network namespace mode; undefined for sandboxes a test added by hand. */
  network?: "POD" | "NODE";
  labels: Record<string, string>;
  annotations: Record<string, string>;
}
interface FakeContainer {
  id: string;
  sandboxId: string;
  name: string;
  attempt: number;
  state: ContainerState;
  createdAt: number;
  startedAt: number;
  finishedAt: number;
  exitCode: number;
  reason: string;
  message?: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  /** The container's cgroup values: the config's, then UpdateContainerResources'. */
  resources?: LinuxContainerResourcesInput;
  /** The image as the config named it (the agent passes the pulled image's id). */
  image: string;
  command: string[];
}

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

/** containerd's exit code for a container stopped by its kill signal after the grace period (128 + SIGKILL). */
const KILLED_EXIT_CODE = 137;

export class FakeRuntime {
  sandboxes = new Map<string, FakeSandbox>();
  containers = new Map<string, FakeContainer>();
  /** Images by name (what a pod spec says). */
  images = new Map<string, Image>();
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
  openStreams: FakeEventStream[] = [];
  /** The log path ContainerStatus reports per container ID ("" when not set). */
  logPaths = new Map<string, string>();
  /** What Status reports: NetworkReady=false with this reason and message when set (no CNI configuration yet); ready otherwise. */
  networkNotReady: { reason: string; message: string } | undefined;
  private holds = new Map<FakeRuntimeMethod, Promise<void>>();
  private seq = 0;
  private t = 1_000_000_000;
  private lastCreatedNs = 0;

  /**
   * With a clock, start and finish times are the clock's (the crash-loop backoff is measured from a
   * container's finishedAt); without one, every timestamp is a step of a counter of its own.
   */
  constructor(private readonly clock?: Clock) {}

  private tick(): number {
    return (this.t += 1000) * 1e6;
  }
  /** A creation time: strictly increasing, so that "newest first" never sees a tie. */
  private created(): number {
    if (!this.clock) return this.tick();
    return (this.lastCreatedNs = Math.max(this.lastCreatedNs + 1000, this.clock.now() * 1e6));
  }
  /** A start or finish time: exactly the clock's time when there is a clock. */
  private nowNs(): number {
    return this.clock ? this.clock.now() * 1e6 : this.tick();
  }

  addSandbox(pod: { uid: string; name: string; namespace?: string }, ready = true): string {
    const id = `sb-${pod.name}-${++this.seq}`;
    const namespace = pod.namespace ?? "default";
    this.sandboxes.set(id, {
      id,
      uid: pod.uid,
      name: pod.name,
      namespace,
      attempt: 0,
      state: ready ? "SANDBOX_READY" : "SANDBOX_NOTREADY",
      createdAt: this.created(),
      ip: `10.88.0.${this.seq}`,
      labels: sandboxLabels({ uid: pod.uid, name: pod.name, namespace }),
      annotations: {},
    });
    return id;
  }
  addContainer(sandboxId: string, name: string, state: ContainerState = "CONTAINER_RUNNING"): string {
    const sb = this.sandboxes.get(sandboxId)!;
    const id = `c-${name}-${++this.seq}`;
    const createdAt = this.created();
    this.containers.set(id, {
      id,
      sandboxId,
      name,
      attempt: 0,
      state,
      createdAt,
      startedAt: state === "CONTAINER_CREATED" ? 0 : this.clock ? this.nowNs() : createdAt,
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
  addImage(name: string): Image {
    const image: Image = {
      id: `sha256:${createHash("sha256").update(name).digest("hex")}`,
      repoTags: [name],
      repoDigests: [],
      size: 1000,
      uid: null,
      username: "",
      spec: null,
      pinned: false,
    };
    this.images.set(name, image);
    return image;
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
    const c = this.containers.get(id)!;
    Object.assign(c, { state: "CONTAINER_RUNNING", startedAt: this.nowNs() });
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
  /** Records a sync call, waits while the method is held, then throws an injected failure if any. */
  private async enter(method: SyncMethod, arg: unknown): Promise<void> {
    this.calls.push({ method, arg });
    const held = this.holds.get(method);
    if (held) await held;
    this.maybeFail(method);
  }

  // ---- reads (the relist)

  async listPodSandbox(filter?: PodSandboxFilterInput): Promise<PodSandbox[]> {
    this.calls.push({ method: "listPodSandbox", arg: filter });
    this.maybeFail("listPodSandbox");
    return [...this.sandboxes.values()]
      .map((s) => this.sandboxOut(s))
      .filter((s) => (!filter?.id || s.id === filter.id) && (!filter?.state || s.state === filter.state.state) && matches(s.labels, filter?.labelSelector));
  }
  async listContainers(filter?: ContainerFilterInput): Promise<Container[]> {
    this.calls.push({ method: "listContainers", arg: filter });
    this.maybeFail("listContainers");
    return [...this.containers.values()]
      .filter(
        (c) =>
          (!filter?.id || c.id === filter.id) &&
          (!filter?.podSandboxId || c.sandboxId === filter.podSandboxId) &&
          (!filter?.state || c.state === filter.state.state) &&
          matches(c.labels, filter?.labelSelector),
      )
      .map(
        (c) =>
          ({
            id: c.id,
            podSandboxId: c.sandboxId,
            metadata: { name: c.name, attempt: c.attempt },
            image: { image: c.image },
            imageRef: c.image,
            state: c.state,
            createdAt: c.createdAt,
            labels: c.labels,
            annotations: c.annotations,
            imageId: c.image,
          }) as unknown as Container,
      );
  }
  /** CRI Status: the runtime is ready; its network as networkNotReady says. */
  async status(): Promise<StatusResponse> {
    const net = this.networkNotReady;
    return {
      status: {
        conditions: [
          { type: "RuntimeReady", status: true, reason: "", message: "" },
          { type: "NetworkReady", status: !net, reason: net?.reason ?? "", message: net?.message ?? "" },
        ],
      },
      info: {},
      runtimeHandlers: [],
      features: null,
    };
  }
  async podSandboxStatus(
    id: string,
  ): Promise<{ status: PodSandboxStatus; info: Record<string, string>; containersStatuses: ContainerStatus[]; timestamp: number }> {
    this.calls.push({ method: "podSandboxStatus", arg: id });
    this.maybeFail("podSandboxStatus");
    const s = this.sandboxes.get(id);
    if (!s) throw grpcStatusError("PodSandboxStatus", 5, `an error occurred when try to find sandbox ${id}: not found`);
    return { status: this.sandboxStatusOut(s), info: {}, containersStatuses: [], timestamp: 0 };
  }
  async containerStatus(id: string): Promise<ContainerStatus> {
    this.calls.push({ method: "containerStatus", arg: id });
    this.maybeFail("containerStatus");
    const c = this.containers.get(id);
    if (!c) throw grpcStatusError("ContainerStatus", 5, `an error occurred when try to find container ${id}: not found`);
    return this.containerStatusOut(c);
  }

  // ---- the sync calls (PodSyncer), with containerd's answers to the awkward cases

  async runPodSandbox(config: PodSandboxConfigInput, _runtimeHandler = ""): Promise<string> {
    await this.enter("runPodSandbox", config);
    const md = config.metadata!;
    const id = `sb-${md.name}-${++this.seq}`;
    const network = config.linux?.securityContext?.namespaceOptions?.network === "NODE" ? "NODE" : "POD";
    this.sandboxes.set(id, {
      id,
      uid: md.uid ?? "",
      name: md.name ?? "",
      namespace: md.namespace ?? "",
      attempt: md.attempt ?? 0,
      state: "SANDBOX_READY",
      createdAt: this.created(),
      ip: network === "NODE" ? "" : `10.88.0.${this.seq}`,
      network,
      labels: { ...config.labels },
      annotations: { ...config.annotations },
    });
    return id;
  }
  /** Stops the sandbox and every container in it; idempotent, as the CRI asks. */
  async stopPodSandbox(id: string): Promise<void> {
    await this.enter("stopPodSandbox", id);
    const s = this.sandboxes.get(id);
    if (!s) return;
    for (const c of this.containers.values()) if (c.sandboxId === id && c.state === "CONTAINER_RUNNING") this.exit(c.id, KILLED_EXIT_CODE);
    s.state = "SANDBOX_NOTREADY";
  }
  /** Removes the sandbox and its containers; idempotent, as the CRI asks. */
  async removePodSandbox(id: string): Promise<void> {
    await this.enter("removePodSandbox", id);
    for (const c of [...this.containers.values()]) if (c.sandboxId === id) this.containers.delete(c.id);
    this.sandboxes.delete(id);
  }
  async createContainer(podSandboxId: string, config: ContainerConfigInput, _sandboxConfig: PodSandboxConfigInput): Promise<string> {
    await this.enter("createContainer", { podSandboxId, config });
    const sb = this.sandboxes.get(podSandboxId);
    if (!sb) throw grpcStatusError("CreateContainer", 5, `failed to find sandbox id ${podSandboxId}: not found`);
    if (sb.state !== "SANDBOX_READY")
      throw grpcStatusError("CreateContainer", 2, `failed to create containerd container: sandbox ${podSandboxId} is not running`);
    const name = config.metadata?.name ?? "";
    const id = `c-${name}-${++this.seq}`;
    this.containers.set(id, {
      id,
      sandboxId: podSandboxId,
      name,
      attempt: config.metadata?.attempt ?? 0,
      state: "CONTAINER_CREATED",
      createdAt: this.created(),
      startedAt: 0,
      finishedAt: 0,
      exitCode: 0,
      reason: "",
      labels: { ...config.labels },
      annotations: { ...config.annotations },
      image: config.image?.image ?? "",
      command: [...(config.command ?? []), ...(config.args ?? [])],
      ...(config.linux?.resources ? { resources: { ...config.linux.resources } } : {}),
    });
    return id;
  }
  async startContainer(id: string): Promise<void> {
    await this.enter("startContainer", id);
    const c = this.containers.get(id);
    if (!c) throw grpcStatusError("StartContainer", 5, `an error occurred when try to find container ${id}: not found`);
    if (c.state !== "CONTAINER_CREATED") throw grpcStatusError("StartContainer", 2, `container is in ${c.state} state`);
    this.start(id);
    const code = this.exitOnStart.get(c.name);
    if (code !== undefined) this.exit(id, code);
  }
  async stopContainer(id: string, timeoutSeconds: number): Promise<void> {
    await this.enter("stopContainer", { id, timeoutSeconds });
    const takes = this.stopTakesMs?.(timeoutSeconds) ?? 0;
    if (takes > 0 && this.clock) await new Promise<void>((r) => this.clock!.setTimer(takes, r));
    const c = this.containers.get(id);
    if (!c) throw grpcStatusError("StopContainer", 5, `an error occurred when try to find container ${id}: not found`);
    if (c.state === "CONTAINER_RUNNING" || c.state === "CONTAINER_CREATED") this.exit(id, KILLED_EXIT_CODE);
  }
  /** UpdateContainerResources: the values are kept, and ContainerStatus reports them (as containerd 1.7 does). */
  async updateContainerResources(id: string, linux: LinuxContainerResourcesInput): Promise<void> {
    await this.enter("updateContainerResources", { id, linux });
    const c = this.containers.get(id);
    if (c?.state !== "CONTAINER_RUNNING") throw grpcStatusError("UpdateContainerResources", c ? 2 : 5, `container ${id} is not running`);
    c.resources = { ...linux };
  }
  /** Idempotent as containerd's; a running container is refused, as containerd does. */
  async removeContainer(id: string): Promise<void> {
    await this.enter("removeContainer", id);
    const c = this.containers.get(id);
    if (c?.state === "CONTAINER_RUNNING")
      throw grpcStatusError("RemoveContainer", 2, `failed to set removing state for container ${id}: container is still running, to stop first`);
    this.containers.delete(id);
  }
  async execSync(containerId: string, cmd: string[], timeoutSeconds: number): Promise<ExecSyncResponse> {
    await this.enter("execSync", { containerId, cmd, timeoutSeconds });
    if (this.containers.get(containerId)?.state !== "CONTAINER_RUNNING") throw grpcStatusError("ExecSync", 2, `container ${containerId} is not running`);
    const r = this.execResult;
    return { exitCode: r.exitCode, stdout: Buffer.from(r.stdout), stderr: Buffer.from(r.stderr) };
  }
  async pullImage(image: ImageSpecInput, _auth?: unknown, _sandboxConfig?: PodSandboxConfigInput): Promise<string> {
    await this.enter("pullImage", image.image);
    const name = image.image ?? "";
    return (this.images.get(name) ?? this.addImage(name)).id;
  }
  async imageStatus(image: ImageSpecInput, _verbose = false): Promise<ImageStatusResponse> {
    await this.enter("imageStatus", image.image);
    return { image: this.images.get(image.image ?? "") ?? null, info: {} };
  }

  // ---- events

  containerEvents(): ContainerEventStream {
    const s = new FakeEventStream();
    this.openStreams.push(s);
    const b = this.eventsBehaviour;
    if (b !== "stream") queueMicrotask(() => s.fail(b.code, b.details));
    return s;
  }
  /** Sends an event on every open stream, built from the runtime's current state. */
  emitEvent(containerId: string, type: ContainerEventType, override?: Partial<ContainerEvent>): void {
    const c = this.containers.get(containerId);
    const sb = this.sandboxes.get(c?.sandboxId ?? containerId);
    const ev: ContainerEvent = {
      containerId,
      containerEventType: type,
      createdAt: this.tick(),
      podSandboxStatus: sb ? this.sandboxStatusOut(sb) : null,
      containersStatuses: c ? [this.containerStatusOut(c)] : [],
      ...override,
    };
    for (const s of this.openStreams) if (!s.done) s.push(ev);
  }

  private sandboxOut(s: FakeSandbox): PodSandbox {
    return {
      id: s.id,
      metadata: { name: s.name, uid: s.uid, namespace: s.namespace, attempt: s.attempt },
      state: s.state,
      createdAt: s.createdAt,
      labels: s.labels,
      annotations: s.annotations,
      runtimeHandler: "",
    };
  }
  private sandboxStatusOut(s: FakeSandbox): PodSandboxStatus {
    return {
      id: s.id,
      metadata: { name: s.name, uid: s.uid, namespace: s.namespace, attempt: s.attempt },
      state: s.state,
      createdAt: s.createdAt,
      network: { ip: s.ip, additionalIps: [] },
      linux: s.network ? { namespaces: { options: { network: s.network, pid: "CONTAINER", ipc: "POD", targetId: "", usernsOptions: null } } } : null,
      labels: s.labels,
      annotations: s.annotations,
      runtimeHandler: "",
    } as PodSandboxStatus;
  }
  private containerStatusOut(c: FakeContainer): ContainerStatus {
    return {
      id: c.id,
      metadata: { name: c.name, attempt: c.attempt },
      state: c.state,
      createdAt: c.createdAt,
      startedAt: c.startedAt,
      finishedAt: c.finishedAt,
      exitCode: c.exitCode,
      reason: c.reason,
      message: c.message ?? "",
      labels: c.labels,
      annotations: c.annotations,
      image: { image: c.image },
      imageRef: c.image,
      mounts: [],
      logPath: this.logPaths.get(c.id) ?? "",
      resources: c.resources ? { linux: c.resources, windows: null } : null,
      imageId: c.image,
      user: null,
      stopSignal: "",
    } as unknown as ContainerStatus;
  }
}

/** CRI label selectors: every key must be present with that value. */
function matches(labels: Record<string, string>, selector: Record<string, string> | undefined): boolean {
  return Object.entries(selector ?? {}).every(([k, v]) => labels[k] === v);
}
