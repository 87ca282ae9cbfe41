// MemoryRuntime: a CRI runtime that runs nothing, in memory: what `nodeagent hollow` puts where
// containerd is, and the base of the unit tests' FakeRuntime. It answers every CriClient call as
// containerd 1.7 does — the same answer shapes, the same error kinds (NotFoundError for an unknown ID
// where containerd says not found, idempotent removals) — so the node above it cannot tell.
//
// A sandbox's life: RunPodSandbox takes the start latency, then the sandbox is SANDBOX_READY with the
// next free IP of the pod CIDR (none in the host's network); StopPodSandbox kills what runs in it
// (137) and frees the IP; RemovePodSandbox stops it if needed and removes it with its containers.
// A container's: CreateContainer → CONTAINER_CREATED; StartContainer takes the start latency, then
// CONTAINER_RUNNING, running until stopped, or until its pod's (or the runtime's) exit-after passes,
// when it exits with the exit code; StopContainer ends a running one with 0 (the process honours
// SIGTERM), or 137 when the grace period is 0, or 137 after the grace period when the pod ignores
// SIGTERM; a container not running is left as it is. The pod's behaviour comes from its annotations
// (hollow.nodeagent.io/…, memory-behaviour.ts lists them). ExecSync answers at once (exit 0, no
// output: exec probes pass); Exec, Attach and PortForward have no streaming server here and fail
// UNIMPLEMENTED. GetContainerEvents streams what containerd 1.7 sends: CREATED, STARTED, STOPPED and
// DELETED, for each container and (with the sandbox's ID as container ID) for each sandbox, with the
// pod's sandbox status and its containers' statuses.
//
// Memory: `nodeagent hollow` runs a thousand of these in one process, so a record keeps references to
// the config's labels, annotations and resources and a few scalars, answers are built per call, and
// every timed thing (start latencies, exits, SIGTERM grace periods) is an entry of one MemorySchedule
// (one clock timer, which several runtimes may share) rather than a timer of its own.
import { randomBytes } from "node:crypto";
import type { Clock } from "../util";
import type { ContainerEventStream } from "./client";
import { CriError, GrpcStatus, NotFoundError, UnimplementedError } from "./errors";
import { PodAddresses } from "./memory-addresses";
import { execAnswerFor, exitPlanFor, type ExitPlan, KILLED_EXIT_CODE, podBehaviour, type PodBehaviour, stopPlanFor } from "./memory-behaviour";
import type { MemoryRuntimeOptions } from "./memory-options";
import { MemoryEventHub } from "./memory-events";
import { MemoryImages } from "./memory-images";
import type { MemoryContainer, MemorySandbox } from "./memory-records";
import { containerMatches, containerOut, containerStatusOut, sandboxMatches, sandboxOut, sandboxStatusOut } from "./memory-records";
import { MemorySchedule } from "./memory-schedule";
import type { CriRuntime } from "./runtime-service";
import { containerStatsOut, DEFAULT_MEMORY_STATS, listContainerStatsOut, podSandboxStatsOut, type MemoryStatsOptions } from "./memory-stats";
import type { AuthConfigInput, Container, ContainerConfigInput, ContainerEvent, ContainerEventType, ContainerFilterInput, ContainerStats } from "./types";
import type { ContainerStatsFilterInput, ContainerStatus, ExecSyncResponse, Image, ImageFsInfoResponse, ImageSpecInput } from "./types";
import type { ImageStatusResponse, LinuxContainerResourcesInput, PodSandbox, PodSandboxConfigInput, PodSandboxFilterInput } from "./types";
import type { PodSandboxStats, PodSandboxStatsFilterInput, PodSandboxStatus, StatusResponse, VersionResponse } from "./types";

const notFound = (method: string, details: string) => new NotFoundError(method, GrpcStatus.NOT_FOUND, details);
const unknown = (method: string, details: string) => new CriError(method, GrpcStatus.UNKNOWN, details);

export class MemoryRuntime implements CriRuntime {
  readonly endpoint: string;
  readonly sandboxes = new Map<string, MemorySandbox>();
  readonly containers = new Map<string, MemoryContainer>();
  protected readonly clock: Clock;
  protected readonly schedule: MemorySchedule;
  protected readonly imageStore: MemoryImages;
  protected readonly addresses: PodAddresses;
  private readonly o: MemoryRuntimeOptions;
  private readonly statsOptions: MemoryStatsOptions;
  private readonly events = new MemoryEventHub();
  private lastCreatedNs = 0;

  constructor(o: MemoryRuntimeOptions) {
    this.o = o;
    this.clock = o.clock;
    this.endpoint = o.endpoint ?? "memory://";
    this.schedule = o.schedule ?? new MemorySchedule(o.clock);
    this.imageStore = new MemoryImages(o.imageSizeBytes ?? 5_000_000, o.imageFsMountpoint ?? "/", () => this.nowNs());
    this.addresses = new PodAddresses(o.podCidr ?? "10.88.0.0/16");
    this.statsOptions = { ...DEFAULT_MEMORY_STATS, ...o.stats, mountpoint: this.imageStore.mountpoint };
  }

  /** Ends every event stream; the runtime's objects stay (containerd's do when the agent goes). */
  close(): void {
    this.events.closeAll();
  }

  // ---- time and identity (the fake overrides the IDs)

  /** A start or finish time in nanoseconds: the clock's. */
  protected nowNs(): number {
    return this.clock.now() * 1e6;
  }
  /** A creation time: strictly increasing, so that "newest first" never sees a tie. */
  protected createdNs(): number {
    return (this.lastCreatedNs = Math.max(this.lastCreatedNs + 1000, this.nowNs()));
  }
  /** A new sandbox's or container's ID: 64 hex digits, as containerd's. */
  protected newId(_kind: "sandbox" | "container", _name: string): string {
    return randomBytes(32).toString("hex");
  }
  /** The log path ContainerStatus reports: none, the memory runtime writes no logs. */
  protected logPathOf(_c: MemoryContainer): string {
    return "";
  }

  // ---- runtime

  async version(_timeoutMs?: number): Promise<VersionResponse> {
    return {
      version: "0.1.0",
      runtimeName: this.o.runtimeName ?? "nodeagent-memory",
      runtimeVersion: this.o.runtimeVersion ?? "1.7.0-memory",
      runtimeApiVersion: "v1",
    };
  }
  /** Runtime and network ready, always. */
  async status(_verbose = false): Promise<StatusResponse> {
    return {
      status: {
        conditions: [
          { type: "RuntimeReady", status: true, reason: "", message: "" },
          { type: "NetworkReady", status: true, reason: "", message: "" },
        ],
      },
      info: {},
      runtimeHandlers: [],
      features: null,
    };
  }
  /** The node's pod CIDR, as containerd hands it to its CNI config template: new sandboxes take IPs from it. */
  async updateRuntimeConfig(podCidr: string): Promise<void> {
    if (!podCidr) return;
    try {
      this.addresses.setRange(podCidr.split(",")[0]!);
    } catch (err) {
      throw new CriError("UpdateRuntimeConfig", GrpcStatus.INVALID_ARGUMENT, (err as Error).message);
    }
  }

  // ---- sandboxes

  async runPodSandbox(config: PodSandboxConfigInput, _runtimeHandler = ""): Promise<string> {
    const md = config.metadata ?? {};
    const behaviour = podBehaviour(config.annotations);
    await this.startLatency(behaviour);
    const network = config.linux?.securityContext?.namespaceOptions?.network === "NODE" ? "NODE" : "POD";
    let ip = "";
    if (network === "POD") {
      try {
        ip = this.addresses.allocate();
      } catch (err) {
        throw unknown("RunPodSandbox", `failed to setup network for sandbox: ${(err as Error).message}`);
      }
    }
    const id = this.newId("sandbox", md.name ?? "");
    const sb: MemorySandbox = {
      id,
      uid: md.uid ?? "",
      name: md.name ?? "",
      namespace: md.namespace ?? "",
      attempt: md.attempt ?? 0,
      state: "SANDBOX_READY",
      createdAt: this.createdNs(),
      ip,
      network,
      labels: config.labels ?? {},
      annotations: config.annotations ?? {},
    };
    if (behaviour) sb.behaviour = behaviour;
    this.sandboxes.set(id, sb);
    // containerd 1.7 sends both for a new sandbox, with the sandbox's ID as the container's.
    this.emit(id, sb, "CONTAINER_CREATED_EVENT");
    this.emit(id, sb, "CONTAINER_STARTED_EVENT");
    return id;
  }
  /** Kills what runs in the sandbox and frees its IP; NotFound for an unknown ID, as containerd. */
  async stopPodSandbox(id: string): Promise<void> {
    const sb = this.sandboxes.get(id);
    if (!sb) throw notFound("StopPodSandbox", `an error occurred when try to find sandbox "${id}": not found`);
    this.stopSandboxNow(sb);
  }
  /** Stops the sandbox if it is ready, then removes it and its containers; idempotent, as containerd. */
  async removePodSandbox(id: string): Promise<void> {
    const sb = this.sandboxes.get(id);
    if (!sb) return;
    this.stopSandboxNow(sb);
    for (const c of [...this.containers.values()]) {
      if (c.sandboxId !== id) continue;
      this.containers.delete(c.id);
      this.emit(c.id, sb, "CONTAINER_DELETED_EVENT");
    }
    this.sandboxes.delete(id);
    this.emit(id, undefined, "CONTAINER_DELETED_EVENT");
  }
  async podSandboxStatus(
    id: string,
    _verbose = false,
  ): Promise<{ status: PodSandboxStatus; info: Record<string, string>; containersStatuses: ContainerStatus[]; timestamp: number }> {
    const sb = this.sandboxes.get(id);
    if (!sb) throw notFound("PodSandboxStatus", `an error occurred when try to find sandbox "${id}": not found`);
    return { status: sandboxStatusOut(sb), info: {}, containersStatuses: [], timestamp: this.nowNs() };
  }
  async listPodSandbox(filter?: PodSandboxFilterInput): Promise<PodSandbox[]> {
    const out: PodSandbox[] = [];
    for (const sb of this.sandboxes.values()) if (sandboxMatches(sb, filter)) out.push(sandboxOut(sb));
    return out;
  }

  // ---- containers

  async createContainer(podSandboxId: string, config: ContainerConfigInput, _sandboxConfig: PodSandboxConfigInput): Promise<string> {
    const sb = this.sandboxes.get(podSandboxId);
    if (!sb) throw notFound("CreateContainer", `failed to find sandbox id "${podSandboxId}": not found`);
    if (sb.state !== "SANDBOX_READY") throw unknown("CreateContainer", `failed to create containerd container: sandbox ${podSandboxId} is not running`);
    const name = config.metadata?.name ?? "";
    const id = this.newId("container", name);
    const c: MemoryContainer = {
      id,
      sandboxId: podSandboxId,
      name,
      attempt: config.metadata?.attempt ?? 0,
      state: "CONTAINER_CREATED",
      createdAt: this.createdNs(),
      startedAt: 0,
      finishedAt: 0,
      exitCode: 0,
      reason: "",
      labels: config.labels ?? {},
      annotations: config.annotations ?? {},
      image: config.image?.image ?? "",
    };
    if (config.linux?.resources) c.resources = config.linux.resources;
    this.containers.set(id, c);
    this.emit(id, sb, "CONTAINER_CREATED_EVENT");
    return id;
  }
  async startContainer(id: string): Promise<void> {
    const c = this.containerFor("StartContainer", id);
    if (c.state !== "CONTAINER_CREATED")
      throw unknown("StartContainer", `failed to set starting state for container "${id}": container is in ${c.state} state`);
    const sb = this.sandboxes.get(c.sandboxId);
    await this.startLatency(sb?.behaviour);
    if (this.containers.get(id) !== c || c.state !== "CONTAINER_CREATED") throw unknown("StartContainer", `container "${id}" changed while it started`);
    this.markStarted(c);
    this.emit(id, sb, "CONTAINER_STARTED_EVENT");
    const plan = this.exitPlan(c, sb);
    if (!plan) return;
    if (plan.afterMs <= 0) return this.exitNow(c, plan.exitCode);
    const startedAt = c.startedAt;
    this.schedule.after(plan.afterMs, () => {
      if (this.containers.get(c.id) === c && c.state === "CONTAINER_RUNNING" && c.startedAt === startedAt) this.exitNow(c, plan.exitCode);
    });
  }
  async stopContainer(id: string, timeoutSeconds: number): Promise<void> {
    const c = this.containerFor("StopContainer", id);
    const plan = this.stopPlan(c, this.sandboxes.get(c.sandboxId), timeoutSeconds);
    if (!plan) return;
    if (plan.afterMs > 0) await this.schedule.wait(plan.afterMs);
    if (this.containers.get(id) === c && (c.state === "CONTAINER_RUNNING" || c.state === "CONTAINER_CREATED")) this.exitNow(c, plan.exitCode);
  }
  /** The new cgroup values, kept and reported by ContainerStatus (as containerd 1.7 does). */
  async updateContainerResources(id: string, linux: LinuxContainerResourcesInput): Promise<void> {
    const c = this.containerFor("UpdateContainerResources", id);
    if (c.state !== "CONTAINER_RUNNING" && c.state !== "CONTAINER_CREATED") throw unknown("UpdateContainerResources", `container ${id} is not running`);
    c.resources = linux;
  }
  /** Idempotent as containerd's; a running container is refused, as containerd does. */
  async removeContainer(id: string): Promise<void> {
    const c = this.containers.get(id);
    if (!c) return;
    if (c.state === "CONTAINER_RUNNING")
      throw unknown("RemoveContainer", `failed to set removing state for container "${id}": container is still running, to stop first`);
    this.containers.delete(id);
    this.emit(id, this.sandboxes.get(c.sandboxId), "CONTAINER_DELETED_EVENT");
  }
  async listContainers(filter?: ContainerFilterInput): Promise<Container[]> {
    const out: Container[] = [];
    for (const c of this.containers.values()) if (containerMatches(c, filter)) out.push(containerOut(c, this.imageStore.view(c.image)));
    return out;
  }
  async containerStatus(id: string, _verbose = false): Promise<ContainerStatus> {
    const c = this.containers.get(id);
    if (!c) throw notFound("ContainerStatus", `an error occurred when try to find container "${id}": not found`);
    return this.statusOf(c);
  }
  /** Answers at once in a running container: exit 0 and no output, or the pod's exec-exit-code. */
  async execSync(containerId: string, cmd: string[], _timeoutSeconds: number): Promise<ExecSyncResponse> {
    const c = this.containerFor("ExecSync", containerId);
    if (c.state !== "CONTAINER_RUNNING") throw unknown("ExecSync", `container is in ${c.state} state`);
    return this.execAnswer(c, this.sandboxes.get(c.sandboxId), cmd);
  }
  async exec(req: { containerId: string }): Promise<string> {
    this.containerFor("Exec", req.containerId);
    throw noStreaming("Exec");
  }
  async attach(req: { containerId: string }): Promise<string> {
    this.containerFor("Attach", req.containerId);
    throw noStreaming("Attach");
  }
  async portForward(podSandboxId: string, _ports: number[] = []): Promise<string> {
    if (!this.sandboxes.has(podSandboxId)) throw notFound("PortForward", `failed to find sandbox "${podSandboxId}" in store: not found`);
    throw noStreaming("PortForward");
  }
  /** There is no log file to reopen; a container that is not running is refused, as containerd does. */
  async reopenContainerLog(containerId: string): Promise<void> {
    const c = this.containerFor("ReopenContainerLog", containerId);
    if (c.state !== "CONTAINER_RUNNING") throw new CriError("ReopenContainerLog", GrpcStatus.FAILED_PRECONDITION, "container is not running");
  }

  // ---- stats

  async containerStats(containerId: string): Promise<ContainerStats | null> {
    return containerStatsOut(this.containerFor("ContainerStats", containerId), this.nowNs(), this.statsOptions);
  }
  /** The running containers' stats (containerd asks its tasks, which only running containers have). */
  async listContainerStats(filter?: ContainerStatsFilterInput): Promise<ContainerStats[]> {
    return listContainerStatsOut(this.containers.values(), filter, this.nowNs(), this.statsOptions);
  }
  async podSandboxStats(podSandboxId: string): Promise<PodSandboxStats | null> {
    const sb = this.sandboxes.get(podSandboxId);
    if (!sb) throw notFound("PodSandboxStats", `an error occurred when trying to find sandbox "${podSandboxId}": not found`);
    return podSandboxStatsOut(sb, this.containers.values(), this.nowNs(), this.statsOptions);
  }
  /** The ready sandboxes' stats. */
  async listPodSandboxStats(filter?: PodSandboxStatsFilterInput): Promise<PodSandboxStats[]> {
    const now = this.nowNs();
    const out: PodSandboxStats[] = [];
    for (const sb of this.sandboxes.values())
      if (sb.state === "SANDBOX_READY" && sandboxMatches(sb, filter && { id: filter.id, labelSelector: filter.labelSelector }))
        out.push(podSandboxStatsOut(sb, this.containers.values(), now, this.statsOptions));
    return out;
  }

  // ---- events

  /** A GetContainerEvents stream: every event from now on, until closed. */
  containerEvents(): ContainerEventStream {
    return this.events.open();
  }
  /** Event streams open now. */
  get eventStreams(): number {
    return this.events.openStreams;
  }

  // ---- images

  async listImages(filter?: ImageSpecInput): Promise<Image[]> {
    return this.imageStore.list(filter);
  }
  async imageStatus(image: ImageSpecInput, _verbose = false): Promise<ImageStatusResponse> {
    return { image: this.imageStore.find(image.image ?? "") ?? null, info: {} };
  }
  async pullImage(image: ImageSpecInput, _auth?: AuthConfigInput, _sandboxConfig?: PodSandboxConfigInput): Promise<string> {
    if (!image.image) throw new CriError("PullImage", GrpcStatus.INVALID_ARGUMENT, "image reference is empty");
    return this.imageStore.add(image.image).id;
  }
  async removeImage(image: ImageSpecInput): Promise<void> {
    this.imageStore.remove(image);
  }
  async imageFsInfo(): Promise<ImageFsInfoResponse> {
    return this.imageStore.fsInfo();
  }

  // ---- the policies a test's fake changes

  /** How a started container ends by itself; undefined: it runs until stopped. */
  protected exitPlan(_c: MemoryContainer, sb: MemorySandbox | undefined): ExitPlan | undefined {
    return exitPlanFor(sb?.behaviour, this.o);
  }
  /** How StopContainer ends the container; undefined: nothing to do. */
  protected stopPlan(c: MemoryContainer, sb: MemorySandbox | undefined, timeoutSeconds: number): ExitPlan | undefined {
    return stopPlanFor(c.state, sb?.behaviour, timeoutSeconds);
  }
  /** What ExecSync answers. */
  protected execAnswer(_c: MemoryContainer, sb: MemorySandbox | undefined, _cmd: string[]): ExecSyncResponse {
    return execAnswerFor(sb?.behaviour);
  }

  // ---- state changes the calls (and a test's fake) share

  protected markStarted(c: MemoryContainer): void {
    c.state = "CONTAINER_RUNNING";
    c.startedAt = this.nowNs();
  }
  /** The container exits now with the code (reason Completed for 0, else Error, as containerd says). */
  protected exitNow(c: MemoryContainer, exitCode: number, reason = exitCode === 0 ? "Completed" : "Error"): void {
    c.state = "CONTAINER_EXITED";
    c.finishedAt = this.nowNs();
    c.exitCode = exitCode;
    c.reason = reason;
    this.emit(c.id, this.sandboxes.get(c.sandboxId), "CONTAINER_STOPPED_EVENT");
  }
  private stopSandboxNow(sb: MemorySandbox): void {
    for (const c of this.containers.values()) if (c.sandboxId === sb.id && c.state === "CONTAINER_RUNNING") this.exitNow(c, KILLED_EXIT_CODE);
    if (sb.state !== "SANDBOX_READY") return;
    sb.state = "SANDBOX_NOTREADY";
    if (sb.ip) this.addresses.release(sb.ip);
    this.emit(sb.id, sb, "CONTAINER_STOPPED_EVENT");
  }

  // ---- answers

  protected statusOf(c: MemoryContainer): ContainerStatus {
    return containerStatusOut(c, this.imageStore.view(c.image), this.logPathOf(c));
  }
  protected sandboxStatusOf(sb: MemorySandbox): PodSandboxStatus {
    return sandboxStatusOut(sb);
  }
  private containerFor(method: string, id: string): MemoryContainer {
    const c = this.containers.get(id);
    if (!c) throw notFound(method, `an error occurred when try to find container "${id}": not found`);
    return c;
  }
  private async startLatency(b: PodBehaviour | undefined): Promise<void> {
    const ms = b?.startLatencyMs ?? this.o.startLatencyMs ?? 0;
    if (ms > 0) await this.schedule.wait(ms);
  }

  /**
   * Sends an event to every open stream, as containerd 1.7's generateAndSendContainerEvent: the
   * sandbox's status (none once it is removed) and the statuses of every container in it.
   */
  protected emit(containerId: string, sb: MemorySandbox | undefined, type: ContainerEventType): void {
    if (!this.events.listening) return;
    const statuses: ContainerStatus[] = [];
    if (sb) for (const c of this.containers.values()) if (c.sandboxId === sb.id) statuses.push(this.statusOf(c));
    this.send({
      containerId,
      containerEventType: type,
      createdAt: this.nowNs(),
      podSandboxStatus: sb ? sandboxStatusOut(sb) : null,
      containersStatuses: statuses,
    });
  }
  protected send(ev: ContainerEvent): void {
    this.events.send(ev);
  }
}

function noStreaming(method: string): UnimplementedError {
  return new UnimplementedError(
    method,
    GrpcStatus.UNIMPLEMENTED,
    "the in-memory runtime (nodeagent hollow) has no streaming server: exec, attach and port-forward are not available",
  );
}
