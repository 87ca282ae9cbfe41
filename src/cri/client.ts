// CriClient: the CRI RuntimeService and ImageService over a unix socket, one typed promise method per
// RPC the node agent uses, each with a deadline, errors mapped to CriError subclasses (errors.ts).
// gRPC channels reconnect by themselves; the backoff is shortened so a restarted runtime is reached
// again within a second instead of grpc's default of up to two minutes.
import * as grpc from "@grpc/grpc-js";
import type { MethodDefinition } from "@grpc/proto-loader";
import { CancelledError, toCriError } from "./errors";
import { criProto } from "./proto";
import type { RuntimeServiceDefinition } from "./generated/runtime/v1/RuntimeService";
import type { ImageServiceDefinition } from "./generated/runtime/v1/ImageService";
import type {
  AuthConfigInput, Container, ContainerConfigInput, ContainerEvent, ContainerFilterInput,
  ContainerStats, ContainerStatsFilterInput, ContainerStatus, ExecSyncResponse, Image,
  ImageFsInfoResponse, ImageSpecInput, ImageStatusResponse, PodSandbox, PodSandboxConfigInput,
  PodSandboxFilterInput, PodSandboxStats, PodSandboxStatsFilterInput, PodSandboxStatus,
  StatusResponse, VersionResponse,
} from "./types";

// Request (input form) and response (decoded form) of a generated method definition. `any` only
// fills the positions being ignored: the serializer types are contravariant and match nothing else.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type RequestOf<D, M extends keyof D> = D[M] extends MethodDefinition<infer Req, any, any, any> ? Req : never;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type ResponseOf<D, M extends keyof D> = D[M] extends MethodDefinition<any, any, any, infer Res> ? Res : never;
type UnaryFn = (req: unknown, meta: grpc.Metadata, opts: grpc.CallOptions, cb: (err: grpc.ServiceError | null, res?: unknown) => void) => grpc.ClientUnaryCall;
type StreamFn = (req: unknown, meta: grpc.Metadata, opts: grpc.CallOptions) => grpc.ClientReadableStream<unknown>;

export interface CriClientOptions {
  /** Deadline for ordinary calls; the kubelet's runtimeRequestTimeout defaults to 2 min. */
  timeoutMs?: number;
  /** Deadline for PullImage, which can legitimately take long. */
  pullTimeoutMs?: number;
}

/** "unix:///run/x.sock", "unix:/run/x.sock" or a bare path → the grpc-js address of the socket. */
export function grpcAddress(endpoint: string): string {
  if (endpoint.startsWith("unix://")) return `unix:${endpoint.slice("unix://".length)}`;
  if (endpoint.startsWith("unix:")) return endpoint;
  if (endpoint.startsWith("/")) return `unix:${endpoint}`;
  throw new Error(`runtime endpoint ${JSON.stringify(endpoint)}: only unix sockets are supported (unix:///path or /path)`);
}

/** A server stream of runtime events that the caller can close; iterate it with `for await`. */
export interface ContainerEventStream extends AsyncIterable<ContainerEvent> {
  close(): void;
}

const CHANNEL_OPTIONS: grpc.ChannelOptions = {
  "grpc.max_receive_message_length": 16 * 1024 * 1024, // the kubelet's maxMsgSize
  "grpc.initial_reconnect_backoff_ms": 100,
  "grpc.min_reconnect_backoff_ms": 100,
  "grpc.max_reconnect_backoff_ms": 1000,
  "grpc.enable_retries": 0,
};

export class CriClient {
  readonly endpoint: string;
  private readonly runtime: grpc.Client;
  private readonly images: grpc.Client;
  private readonly timeoutMs: number;
  private readonly pullTimeoutMs: number;

  constructor(endpoint: string, opts: CriClientOptions = {}) {
    this.endpoint = endpoint;
    this.timeoutMs = opts.timeoutMs ?? 2 * 60_000;
    this.pullTimeoutMs = opts.pullTimeoutMs ?? 15 * 60_000;
    const proto = criProto().runtime.v1;
    const address = grpcAddress(endpoint);
    const creds = grpc.credentials.createInsecure();
    this.runtime = new proto.RuntimeService(address, creds, CHANNEL_OPTIONS);
    // One channel for both services: ImageService reuses the RuntimeService client's channel.
    this.images = new proto.ImageService(address, creds, { ...CHANNEL_OPTIONS, channelOverride: this.runtime.getChannel() });
  }

  close(): void {
    this.images.close();
    this.runtime.close();
  }

  private unary<R>(client: grpc.Client, method: string, req: unknown, timeoutMs: number): Promise<R> {
    const fn = (client as unknown as Record<string, UnaryFn>)[method]!;
    return new Promise<R>((resolve, reject) => {
      fn.call(client, req, new grpc.Metadata(), { deadline: Date.now() + timeoutMs }, (err, res) => {
        if (err) reject(toCriError(method, err));
        else resolve(res as R);
      });
    });
  }
  private rt<M extends keyof RuntimeServiceDefinition & string>(
    method: M, req: RequestOf<RuntimeServiceDefinition, M>, timeoutMs = this.timeoutMs,
  ): Promise<ResponseOf<RuntimeServiceDefinition, M>> {
    return this.unary(this.runtime, method, req, timeoutMs);
  }
  private img<M extends keyof ImageServiceDefinition & string>(
    method: M, req: RequestOf<ImageServiceDefinition, M>, timeoutMs = this.timeoutMs,
  ): Promise<ResponseOf<ImageServiceDefinition, M>> {
    return this.unary(this.images, method, req, timeoutMs);
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
  async podSandboxStatus(podSandboxId: string, verbose = false): Promise<{ status: PodSandboxStatus; info: Record<string, string>; containersStatuses: ContainerStatus[]; timestamp: number }> {
    const r = await this.rt("PodSandboxStatus", { podSandboxId, verbose });
    if (!r.status) throw toCriError("PodSandboxStatus", { code: grpc.status.NOT_FOUND, details: `no status for sandbox ${podSandboxId}` });
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
  async removeContainer(containerId: string): Promise<void> {
    await this.rt("RemoveContainer", { containerId });
  }
  async listContainers(filter?: ContainerFilterInput): Promise<Container[]> {
    return (await this.rt("ListContainers", { filter: filter ?? null })).containers;
  }
  async containerStatus(containerId: string, verbose = false): Promise<ContainerStatus> {
    const r = await this.rt("ContainerStatus", { containerId, verbose });
    if (!r.status) throw toCriError("ContainerStatus", { code: grpc.status.NOT_FOUND, details: `no status for container ${containerId}` });
    return r.status;
  }
  /** Runs cmd in the container; the runtime enforces timeoutSeconds, our deadline leaves it room. */
  execSync(containerId: string, cmd: string[], timeoutSeconds: number): Promise<ExecSyncResponse> {
    return this.rt("ExecSync", { containerId, cmd, timeout: timeoutSeconds }, this.timeoutMs + timeoutSeconds * 1000);
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
  async updateRuntimeConfig(podCidr: string): Promise<void> {
    await this.rt("UpdateRuntimeConfig", { runtimeConfig: { networkConfig: { podCidr } } });
  }

  /**
   * GetContainerEvents, the server stream Evented PLEG consumes. No deadline: it lives until closed.
   * Errors (UNIMPLEMENTED on containerd 1.6, UNAVAILABLE when the runtime goes) are thrown from the
   * iterator as CriErrors; close() ends the iteration without an error.
   */
  containerEvents(): ContainerEventStream {
    const fn = (this.runtime as unknown as Record<string, StreamFn>)["GetContainerEvents"]!;
    const call = fn.call(this.runtime, {}, new grpc.Metadata(), {}) as grpc.ClientReadableStream<ContainerEvent>;
    let closed = false;
    return {
      close() {
        closed = true;
        call.cancel();
      },
      async *[Symbol.asyncIterator]() {
        try {
          for await (const ev of call) yield ev as ContainerEvent;
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
