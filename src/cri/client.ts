// CriClient: the CRI RuntimeService and ImageService over a unix socket, one typed promise method per
// RPC the node agent uses, each with a deadline, errors mapped to CriError subclasses (errors.ts).
// The transport is the agent's own (grpc-channel.ts over h2-connection.ts, messages by proto-*.ts from
// the embedded descriptor): @grpc/grpc-js, node:http2 and protobufjs made up half of the agent's idle
// RSS. A lost connection is made again on the next call, with a backoff of 100 ms to 1 s, so a
// restarted runtime is reached again within a second.
import { decodeMessage } from "./proto-decode";
import { encodeMessage } from "./proto-encode";
import { methodInfo, type MethodInfo } from "./proto-schema";
import { CancelledError, GrpcStatus, toCriError } from "./errors";
import { GrpcChannel } from "./grpc-channel";
import type { RuntimeServiceDefinition } from "./generated/runtime/v1/RuntimeService";
import type { ImageServiceDefinition } from "./generated/runtime/v1/ImageService";
import type {
  AuthConfigInput,
  Container,
  ContainerConfigInput,
  ContainerEvent,
  ContainerFilterInput,
  ContainerStats,
  ContainerStatsFilterInput,
  ContainerStatus,
  ExecSyncResponse,
  Image,
  ImageFsInfoResponse,
  ImageSpecInput,
  ImageStatusResponse,
  LinuxContainerResourcesInput,
  PodSandbox,
  PodSandboxConfigInput,
  PodSandboxFilterInput,
  PodSandboxStats,
  PodSandboxStatsFilterInput,
  PodSandboxStatus,
  StatusResponse,
  VersionResponse,
} from "./types";

// Request (input form) and response (decoded form) of a generated method definition (the generated
// types' MethodDefinition<Request, Response, RequestOutput, ResponseOutput>).
type RequestOf<D, M extends keyof D> = D[M] extends { requestSerialize: (value: infer Req) => Buffer } ? Req : never;
type ResponseOf<D, M extends keyof D> = D[M] extends { responseDeserialize: (bytes: Buffer) => infer Res } ? Res : never;

export interface CriClientOptions {
  /** Deadline for ordinary calls; the kubelet's runtimeRequestTimeout defaults to 2 min. */
  timeoutMs?: number;
  /** Deadline for PullImage, which can legitimately take long. */
  pullTimeoutMs?: number;
}

/** "unix:///run/x.sock", "unix:/run/x.sock" or a bare path → the socket's path. */
export function socketPath(endpoint: string): string {
  if (endpoint.startsWith("unix://")) return endpoint.slice("unix://".length);
  if (endpoint.startsWith("unix:")) return endpoint.slice("unix:".length);
  if (endpoint.startsWith("/")) return endpoint;
  throw new Error(`runtime endpoint ${JSON.stringify(endpoint)}: only unix sockets are supported (unix:///path or /path)`);
}

/** A server stream of runtime events that the caller can close; iterate it with `for await`. */
export interface ContainerEventStream extends AsyncIterable<ContainerEvent> {
  close(): void;
}

/** The kubelet's maxMsgSize: the largest message the runtime may answer with. */
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

const RUNTIME_SERVICE = "runtime.v1.RuntimeService";
const IMAGE_SERVICE = "runtime.v1.ImageService";

/** Each method's path and message schemas, compiled from the descriptor on its first call. */
const methods = new Map<string, MethodInfo>();
function method(service: string, name: string): MethodInfo {
  const key = `${service}/${name}`;
  let m = methods.get(key);
  if (!m) methods.set(key, (m = methodInfo(service, name)));
  return m;
}

export class CriClient {
  readonly endpoint: string;
  /** One connection for both services, as the kubelet's remote runtime and image services share one. */
  private readonly channel: GrpcChannel;
  private readonly timeoutMs: number;
  private readonly pullTimeoutMs: number;

  constructor(endpoint: string, opts: CriClientOptions = {}) {
    this.endpoint = endpoint;
    this.timeoutMs = opts.timeoutMs ?? 2 * 60_000;
    this.pullTimeoutMs = opts.pullTimeoutMs ?? 15 * 60_000;
    this.channel = new GrpcChannel(socketPath(endpoint), {
      maxReceiveMessageBytes: MAX_MESSAGE_BYTES,
      minReconnectBackoffMs: 100,
      maxReconnectBackoffMs: 1000,
    });
  }

  close(): void {
    this.channel.close();
  }

  private async unary<R>(service: string, name: string, req: object, timeoutMs: number): Promise<R> {
    try {
      const m = method(service, name);
      return decodeMessage<R>(m.response, await this.channel.unary(m.path, encodeMessage(m.request, req), timeoutMs));
    } catch (err) {
      throw toCriError(name, err);
    }
  }
  private rt<M extends keyof RuntimeServiceDefinition & string>(
    method: M,
    req: RequestOf<RuntimeServiceDefinition, M>,
    timeoutMs = this.timeoutMs,
  ): Promise<ResponseOf<RuntimeServiceDefinition, M>> {
    return this.unary(RUNTIME_SERVICE, method, req as object, timeoutMs);
  }
  private img<M extends keyof ImageServiceDefinition & string>(
    method: M,
    req: RequestOf<ImageServiceDefinition, M>,
    timeoutMs = this.timeoutMs,
  ): Promise<ResponseOf<ImageServiceDefinition, M>> {
    return this.unary(IMAGE_SERVICE, method, req as object, timeoutMs);
  }

  // ---- runtime ----
  /** The runtime's name and version; `timeoutMs` bounds this call alone (default: the client's deadline). */
  version(timeoutMs = this.timeoutMs): Promise<VersionResponse> {
    return this.rt("Version", { version: "v1" }, timeoutMs);
  }
  status(verbose = false): Promise<StatusResponse> {
    return this.rt("Status", { verbose });
  }
  async runPodSandbox(config: PodSandboxConfigInput, runtimeHandler = ""): Promise<string> {
    return (await this.rt("RunPodSandbox", { config, runtimeHandler })).podSandboxId;
  }
  async stopPodSandbox(podSandboxId: string): Promise<void> {
    await this.rt("StopPodSandbox", { podSandboxId });
  }
  async removePodSandbox(podSandboxId: string): Promise<void> {
    await this.rt("RemovePodSandbox", { podSandboxId });
  }
  async podSandboxStatus(
    podSandboxId: string,
    verbose = false,
  ): Promise<{ status: PodSandboxStatus; info: Record<string, string>; containersStatuses: ContainerStatus[]; timestamp: number }> {
    const r = await this.rt("PodSandboxStatus", { podSandboxId, verbose });
    if (!r.status) throw toCriError("PodSandboxStatus", { code: GrpcStatus.NOT_FOUND, details: `no status for sandbox ${podSandboxId}` });
    return { status: r.status, info: r.info, containersStatuses: r.containersStatuses, timestamp: r.timestamp };
  }
  async listPodSandbox(filter?: PodSandboxFilterInput): Promise<PodSandbox[]> {
    return (await this.rt("ListPodSandbox", { filter: filter ?? null })).items;
  }
  async createContainer(podSandboxId: string, config: ContainerConfigInput, sandboxConfig: PodSandboxConfigInput): Promise<string> {
    return (await this.rt("CreateContainer", { podSandboxId, config, sandboxConfig })).containerId;
  }
  async startContainer(containerId: string): Promise<void> {
    await this.rt("StartContainer", { containerId });
  }
  /** Stops with a grace period in seconds; the call's deadline is extended by it, as the kubelet does. */
  async stopContainer(containerId: string, timeoutSeconds: number): Promise<void> {
    await this.rt("StopContainer", { containerId, timeout: timeoutSeconds }, this.timeoutMs + timeoutSeconds * 1000);
  }
  /**
   * UpdateContainerResources: the running container's cgroup values (cpu shares, quota and period, the
   * memory limit) changed in place, as the kubelet's in-place resize asks the runtime.
   */
  async updateContainerResources(containerId: string, linux: LinuxContainerResourcesInput): Promise<void> {
    await this.rt("UpdateContainerResources", { containerId, linux });
  }
  async removeContainer(containerId: string): Promise<void> {
    await this.rt("RemoveContainer", { containerId });
  }
  async listContainers(filter?: ContainerFilterInput): Promise<Container[]> {
    return (await this.rt("ListContainers", { filter: filter ?? null })).containers;
  }
  async containerStatus(containerId: string, verbose = false): Promise<ContainerStatus> {
    const r = await this.rt("ContainerStatus", { containerId, verbose });
    if (!r.status) throw toCriError("ContainerStatus", { code: GrpcStatus.NOT_FOUND, details: `no status for container ${containerId}` });
    return r.status;
  }
  /** Runs cmd in the container; the runtime enforces timeoutSeconds, our deadline leaves it room. */
  execSync(containerId: string, cmd: string[], timeoutSeconds: number): Promise<ExecSyncResponse> {
    return this.rt("ExecSync", { containerId, cmd, timeout: timeoutSeconds }, this.timeoutMs + timeoutSeconds * 1000);
  }
  /**
   * The runtime's streaming URL for an interactive exec, attach or port-forward (CRI Exec, Attach,
   * PortForward): single use, valid a minute, served by the runtime's own streaming server, which
   * the agent's API proxies the client's upgraded connection to (the kubelet's proxyStream).
   */
  async exec(req: { containerId: string; cmd: string[]; tty: boolean; stdin: boolean; stdout: boolean; stderr: boolean }): Promise<string> {
    return (await this.rt("Exec", req)).url;
  }
  async attach(req: { containerId: string; tty: boolean; stdin: boolean; stdout: boolean; stderr: boolean }): Promise<string> {
    return (await this.rt("Attach", req)).url;
  }
  async portForward(podSandboxId: string, ports: number[] = []): Promise<string> {
    return (await this.rt("PortForward", { podSandboxId, port: ports })).url;
  }
  async containerStats(containerId: string): Promise<ContainerStats | null> {
    return (await this.rt("ContainerStats", { containerId })).stats;
  }
  async listContainerStats(filter?: ContainerStatsFilterInput): Promise<ContainerStats[]> {
    return (await this.rt("ListContainerStats", { filter: filter ?? null })).stats;
  }
  async podSandboxStats(podSandboxId: string): Promise<PodSandboxStats | null> {
    return (await this.rt("PodSandboxStats", { podSandboxId })).stats;
  }
  async listPodSandboxStats(filter?: PodSandboxStatsFilterInput): Promise<PodSandboxStats[]> {
    return (await this.rt("ListPodSandboxStats", { filter: filter ?? null })).stats;
  }
  /**
   * Makes the runtime reopen the container's log file at its path: what the kubelet's log rotation
   * calls after renaming the live file aside (pkg/kubelet/logs/container_log_manager.go).
   */
  async reopenContainerLog(containerId: string): Promise<void> {
    await this.rt("ReopenContainerLog", { containerId });
  }
  async updateRuntimeConfig(podCidr: string): Promise<void> {
    await this.rt("UpdateRuntimeConfig", { runtimeConfig: { networkConfig: { podCidr } } });
  }

  /**
   * GetContainerEvents, the server stream Evented PLEG consumes. No deadline: it lives until closed.
   * Errors (UNIMPLEMENTED on containerd 1.6, UNAVAILABLE when the runtime goes) are thrown from the
   * iterator as CriErrors; close() ends the iteration without an error.
   */
  containerEvents(): ContainerEventStream {
    const m = method(RUNTIME_SERVICE, "GetContainerEvents");
    const call = this.channel.serverStream(m.path, encodeMessage(m.request, {}));
    let closed = false;
    return {
      close() {
        closed = true;
        call.cancel();
      },
      async *[Symbol.asyncIterator]() {
        try {
          for await (const bytes of call) yield decodeMessage<ContainerEvent>(m.response, bytes);
        } catch (err) {
          const e = toCriError("GetContainerEvents", err);
          if (closed && e instanceof CancelledError) return;
          throw e;
        }
      },
    };
  }

  // ---- images ----
  async listImages(filter?: ImageSpecInput): Promise<Image[]> {
    return (await this.img("ListImages", { filter: filter ? { image: filter } : null })).images;
  }
  imageStatus(image: ImageSpecInput, verbose = false): Promise<ImageStatusResponse> {
    return this.img("ImageStatus", { image, verbose });
  }
  async pullImage(image: ImageSpecInput, auth?: AuthConfigInput, sandboxConfig?: PodSandboxConfigInput): Promise<string> {
    return (await this.img("PullImage", { image, auth: auth ?? null, sandboxConfig: sandboxConfig ?? null }, this.pullTimeoutMs)).imageRef;
  }
  async removeImage(image: ImageSpecInput): Promise<void> {
    await this.img("RemoveImage", { image });
  }
  imageFsInfo(): Promise<ImageFsInfoResponse> {
    return this.img("ImageFsInfo", {});
  }
}
