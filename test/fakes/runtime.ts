// FakeRuntime: an in-memory CRI runtime for unit tests of the PLEG (and later the agent). It keeps
// sandboxes and containers, answers the list and status calls as containerd does, and offers a
// controllable GetContainerEvents stream. Failures can be injected per method.
import { grpcStatusError } from "./grpc";
import type { ContainerEventStream } from "../../src/cri/client";
import type {
  Container, ContainerEvent, ContainerEventType, ContainerFilterInput, ContainerState, ContainerStatus,
  PodSandbox, PodSandboxFilterInput, PodSandboxState, PodSandboxStatus,
} from "../../src/cri/types";
import { containerLabels, sandboxLabels } from "../../src/cri/labels";

interface FakeSandbox {
  id: string;
  uid: string;
  name: string;
  namespace: string;
  state: PodSandboxState;
  createdAt: number;
  ip: string;
}
interface FakeContainer {
  id: string;
  sandboxId: string;
  name: string;
  state: ContainerState;
  createdAt: number;
  startedAt: number;
  finishedAt: number;
  exitCode: number;
  reason: string;
  labels: Record<string, string>;
}

type Method = "listPodSandbox" | "listContainers" | "podSandboxStatus" | "containerStatus";

export class FakeRuntime {
  sandboxes = new Map<string, FakeSandbox>();
  containers = new Map<string, FakeContainer>();
  calls: { method: string; arg?: unknown }[] = [];
  /** Errors to throw from the next calls of a method, consumed in order. */
  failNext = new Map<Method, Error[]>();
  /** What GetContainerEvents does when opened: stream, or fail with a gRPC code. */
  eventsBehaviour: "stream" | { code: number; details: string } = "stream";
  openStreams: FakeEventStream[] = [];
  private seq = 0;
  private t = 1_000_000_000;

  private tick(): number {
    return (this.t += 1000) * 1e6;
  }

  addSandbox(pod: { uid: string; name: string; namespace?: string }, ready = true): string {
    const id = `sb-${pod.name}-${++this.seq}`;
    this.sandboxes.set(id, { id, uid: pod.uid, name: pod.name, namespace: pod.namespace ?? "default", state: ready ? "SANDBOX_READY" : "SANDBOX_NOTREADY", createdAt: this.tick(), ip: `10.88.0.${this.seq}` });
    return id;
  }
  addContainer(sandboxId: string, name: string, state: ContainerState = "CONTAINER_RUNNING"): string {
    const sb = this.sandboxes.get(sandboxId)!;
    const id = `c-${name}-${++this.seq}`;
    const now = this.tick();
    this.containers.set(id, {
      id, sandboxId, name, state, createdAt: now, startedAt: state === "CONTAINER_CREATED" ? 0 : now, finishedAt: 0, exitCode: 0, reason: "",
      labels: containerLabels({ uid: sb.uid, name: sb.name, namespace: sb.namespace }, name),
    });
    return id;
  }
  exit(id: string, exitCode: number, reason = exitCode === 0 ? "Completed" : "Error"): void {
    const c = this.containers.get(id)!;
    Object.assign(c, { state: "CONTAINER_EXITED", finishedAt: this.tick(), exitCode, reason });
  }
  start(id: string): void {
    const c = this.containers.get(id)!;
    Object.assign(c, { state: "CONTAINER_RUNNING", startedAt: this.tick() });
  }
  stopSandbox(id: string): void {
    this.sandboxes.get(id)!.state = "SANDBOX_NOTREADY";
  }
  remove(id: string): void {
    this.containers.delete(id);
    this.sandboxes.delete(id);
  }

  private maybeFail(method: Method): void {
    const errs = this.failNext.get(method);
    const e = errs?.shift();
    if (e) throw e;
  }

  async listPodSandbox(filter?: PodSandboxFilterInput): Promise<PodSandbox[]> {
    this.calls.push({ method: "listPodSandbox", arg: filter });
    this.maybeFail("listPodSandbox");
    return [...this.sandboxes.values()]
      .map((s) => this.sandboxOut(s))
      .filter((s) => (!filter?.id || s.id === filter.id) && matches(s.labels, filter?.labelSelector));
  }
  async listContainers(filter?: ContainerFilterInput): Promise<Container[]> {
    this.calls.push({ method: "listContainers", arg: filter });
    this.maybeFail("listContainers");
    return [...this.containers.values()]
      .filter((c) => (!filter?.podSandboxId || c.sandboxId === filter.podSandboxId) && matches(c.labels, filter?.labelSelector))
      .map((c) => ({
        id: c.id, podSandboxId: c.sandboxId, metadata: { name: c.name, attempt: 0 }, image: null, imageRef: "", state: c.state,
        createdAt: c.createdAt, labels: c.labels, annotations: {}, imageId: "",
      }) as Container);
  }
  async podSandboxStatus(id: string): Promise<{ status: PodSandboxStatus; info: Record<string, string>; containersStatuses: ContainerStatus[]; timestamp: number }> {
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
      containerId, containerEventType: type, createdAt: this.tick(),
      podSandboxStatus: sb ? this.sandboxStatusOut(sb) : null,
      containersStatuses: c ? [this.containerStatusOut(c)] : [],
      ...override,
    };
    for (const s of this.openStreams) if (!s.done) s.push(ev);
  }

  private sandboxOut(s: FakeSandbox): PodSandbox {
    return {
      id: s.id, metadata: { name: s.name, uid: s.uid, namespace: s.namespace, attempt: 0 }, state: s.state, createdAt: s.createdAt,
      labels: sandboxLabels(s), annotations: {}, runtimeHandler: "",
    };
  }
  private sandboxStatusOut(s: FakeSandbox): PodSandboxStatus {
    return {
      id: s.id, metadata: { name: s.name, uid: s.uid, namespace: s.namespace, attempt: 0 }, state: s.state, createdAt: s.createdAt,
      network: { ip: s.ip, additionalIps: [] }, linux: null, labels: sandboxLabels(s), annotations: {}, runtimeHandler: "",
    } as PodSandboxStatus;
  }
  private containerStatusOut(c: FakeContainer): ContainerStatus {
    return {
      id: c.id, metadata: { name: c.name, attempt: 0 }, state: c.state, createdAt: c.createdAt, startedAt: c.startedAt,
      finishedAt: c.finishedAt, exitCode: c.exitCode, reason: c.reason, message: "", labels: c.labels, annotations: {},
      image: null, imageRef: "", mounts: [], logPath: "", resources: null, imageId: "", user: null, stopSignal: "",
    } as unknown as ContainerStatus;
  }
}

/** CRI label selectors: every key must be present with that value. */
function matches(labels: Record<string, string>, selector: Record<string, string> | undefined): boolean {
  return Object.entries(selector ?? {}).every(([k, v]) => labels[k] === v);
}

/** A GetContainerEvents stream the test drives: push events, fail it, or let the consumer close it. */
export class FakeEventStream implements ContainerEventStream {
  done = false;
  private queue: ContainerEvent[] = [];
  private error: Error | undefined;
  private wake: (() => void) | undefined;

  push(ev: ContainerEvent): void {
    this.queue.push(ev);
    this.wake?.();
  }
  fail(code: number, details: string): void {
    this.error = grpcStatusError("GetContainerEvents", code, details);
    this.done = true;
    this.wake?.();
  }
  close(): void {
    this.done = true;
    this.wake?.();
  }
  async *[Symbol.asyncIterator](): AsyncIterator<ContainerEvent> {
    for (;;) {
      const ev = this.queue.shift();
      if (ev) {
        yield ev;
        continue;
      }
      if (this.error) throw this.error;
      if (this.done) return;
      await new Promise<void>((r) => (this.wake = r));
      this.wake = undefined;
    }
  }
}
