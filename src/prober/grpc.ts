// The grpc probe: grpc.health.v1.Health/Check with the probe's service (k/k pkg/probe/grpc). As the
// kubelet (grpc.WithBlock), the connection is awaited for the whole timeout, so a refused port is a
// "failed to connect ... within" failure after the timeout, not an instant one; SERVING is success,
// any other answer or error a failure. The health service is described by a small embedded
// descriptor of grpc/health/v1/health.proto, so no .proto file is read at run time.
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import type { INamespace } from "protobufjs";
import { type Clock, formatDuration } from "../util";
import { joinHostPort, PROBE_USER_AGENT } from "./spec";
import { withTimeout } from "./timeout";
import type { HandlerResult } from "./types";

/** grpc/health/v1/health.proto: the messages and the Check method (Watch is not needed). */
const HEALTH_PROTO = {
  nested: {
    grpc: {
      nested: {
        health: {
          nested: {
            v1: {
              nested: {
                HealthCheckRequest: { fields: { service: { type: "string", id: 1 } } },
                HealthCheckResponse: {
                  fields: { status: { type: "ServingStatus", id: 1 } },
                  nested: { ServingStatus: { values: { UNKNOWN: 0, SERVING: 1, NOT_SERVING: 2, SERVICE_UNKNOWN: 3 } } },
                },
                Health: { methods: { Check: { requestType: "HealthCheckRequest", responseType: "HealthCheckResponse" } } },
              },
            },
          },
        },
      },
    },
  },
} as INamespace;

export interface HealthCheckRequest {
  service: string;
}
export interface HealthCheckResponse {
  status: "UNKNOWN" | "SERVING" | "NOT_SERVING" | "SERVICE_UNKNOWN";
}
interface HealthClient extends grpc.Client {
  Check(req: HealthCheckRequest, meta: grpc.Metadata, opts: grpc.CallOptions, cb: grpc.requestCallback<HealthCheckResponse>): grpc.ClientUnaryCall;
}
interface HealthClientConstructor {
  new (address: string, creds: grpc.ChannelCredentials, options?: grpc.ChannelOptions): HealthClient;
  service: grpc.ServiceDefinition;
}

let loaded: HealthClientConstructor | undefined;
function health(): HealthClientConstructor {
  if (!loaded) {
    const pkg = grpc.loadPackageDefinition(protoLoader.fromJSON(HEALTH_PROTO, { enums: String, defaults: true })) as unknown as {
      grpc: { health: { v1: { Health: HealthClientConstructor } } };
    };
    loaded = pkg.grpc.health.v1.Health;
  }
  return loaded;
}

/** The Health service definition, for servers (tests) that answer the probe. */
export function healthServiceDefinition(): grpc.ServiceDefinition {
  return health().service;
}

/** A gRPC status code as grpc-go names it in errors ("NOT_FOUND" → "NotFound"). */
function goCodeName(code: number): string {
  const name = grpc.status[code] ?? String(code);
  return name.toLowerCase().replace(/(^|_)([a-z])/g, (_m, _u: string, ch: string) => ch.toUpperCase());
}

export function grpcProbe(host: string, port: number, service: string, timeoutMs: number, clock: Clock, signal?: AbortSignal): Promise<HandlerResult> {
  const address = joinHostPort(host, port);
  const within = formatDuration(timeoutMs);
  let connected = false;
  const client = new (health())(address, grpc.credentials.createInsecure(), { "grpc.primary_user_agent": PROBE_USER_AGENT });
  // The clock bounds the probe; grpc's own deadlines are only a backstop a second later.
  const backstop = () => Date.now() + timeoutMs + 1000;
  return withTimeout<HandlerResult>(
    clock,
    timeoutMs,
    signal,
    async (abort) => {
      abort.addEventListener("abort", () => client.close(), { once: true });
      const ready = await new Promise<Error | undefined>((resolve) => client.waitForReady(backstop(), (err) => resolve(err)));
      if (ready)
        return { status: "failure", output: `timeout: failed to connect service ${JSON.stringify(address)} within ${within}: context deadline exceeded` };
      connected = true;
      return await new Promise<HandlerResult>((resolve) => {
        const call = client.Check({ service }, new grpc.Metadata(), { deadline: backstop() }, (err, res) => {
          if (err) {
            if (err.code === grpc.status.UNIMPLEMENTED) {
              return resolve({
                status: "failure",
                output: `error: this server does not implement the grpc health protocol (grpc.health.v1.Health): ${err.details}`,
              });
            }
            if (err.code === grpc.status.DEADLINE_EXCEEDED)
              return resolve({ status: "failure", output: `timeout: health rpc did not complete within ${within}` });
            return resolve({ status: "failure", output: `error: health rpc probe failed: rpc error: code = ${goCodeName(err.code)} desc = ${err.details}` });
          }
          if (res?.status !== "SERVING")
            return resolve({ status: "failure", output: `service unhealthy (responded with ${JSON.stringify(res?.status ?? "UNKNOWN")})` });
          resolve({ status: "success", output: "service healthy" });
        });
        abort.addEventListener("abort", () => call.cancel(), { once: true });
      });
    },
    () =>
      connected
        ? { status: "failure", output: `timeout: health rpc did not complete within ${within}` }
        : { status: "failure", output: `timeout: failed to connect service ${JSON.stringify(address)} within ${within}: context deadline exceeded` },
  ).finally(() => client.close());
}
