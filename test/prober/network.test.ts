// The tcpSocket and grpc handlers against local servers on 127.0.0.1; timeouts on a FakeClock.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as grpc from "@grpc/grpc-js";
import { createServer, type AddressInfo, type Server as NetServer, type Socket } from "node:net";
import { grpcProbe, healthServiceDefinition, type HealthCheckRequest, type HealthCheckResponse } from "../../src/prober/grpc";
import { tcpProbe } from "../../src/prober/tcp";
import { FakeClock, RealClock } from "../../src/util/clock";
import { freePort } from "./fakes";

const clock = new RealClock();

describe("tcpSocket probe", () => {
  let server: NetServer;
  let port = 0;
  let accepted = 0;
  beforeAll(async () => {
    server = createServer((s: Socket) => {
      accepted++;
      s.on("error", () => {});
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => server.close());

  test("a port that accepts is a success; the connection is opened and closed", async () => {
    expect(await tcpProbe("127.0.0.1", port, 1000, clock)).toEqual({ status: "success", output: "" });
    expect(accepted).toBe(1);
  });

  test("a refused port is a failure with the dial error", async () => {
    const p = await freePort();
    expect(await tcpProbe("127.0.0.1", p, 1000, clock)).toEqual({ status: "failure", output: `dial tcp 127.0.0.1:${p}: connect: connection refused` });
  });
});

describe("grpc probe", () => {
  let server: grpc.Server;
  let port = 0;
  const requests: { service: string; userAgent: string }[] = [];
  // A server that speaks HTTP/2 but has no Health service.
  let bare: grpc.Server;
  let barePort = 0;

  const bind = (s: grpc.Server) =>
    new Promise<number>((resolve, reject) => s.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))));

  beforeAll(async () => {
    server = new grpc.Server();
    server.addService(healthServiceDefinition(), {
      Check(call: grpc.ServerUnaryCall<HealthCheckRequest, HealthCheckResponse>, cb: grpc.sendUnaryData<HealthCheckResponse>) {
        requests.push({ service: call.request.service, userAgent: String(call.metadata.get("user-agent")[0]) });
        if (call.request.service === "unknown") return cb({ code: grpc.status.NOT_FOUND, details: "unknown service" });
        cb(null, { status: call.request.service === "down" ? "NOT_SERVING" : "SERVING" });
      },
    });
    port = await bind(server);
    bare = new grpc.Server();
    barePort = await bind(bare);
  });
  afterAll(() => {
    server.forceShutdown();
    bare.forceShutdown();
  });

  test("SERVING is a success; the service is sent, with the kubelet's user agent", async () => {
    expect(await grpcProbe("127.0.0.1", port, "", 1000, clock)).toEqual({ status: "success", output: "service healthy" });
    expect(await grpcProbe("127.0.0.1", port, "db", 1000, clock)).toEqual({ status: "success", output: "service healthy" });
    expect(requests.map((r) => r.service)).toEqual(["", "db"]);
    expect(requests[0]!.userAgent).toStartWith("kube-probe/1.30 ");
  });

  test("any other status or error is a failure, worded as the kubelet's", async () => {
    expect(await grpcProbe("127.0.0.1", port, "down", 1000, clock)).toEqual({ status: "failure", output: 'service unhealthy (responded with "NOT_SERVING")' });
    expect(await grpcProbe("127.0.0.1", port, "unknown", 1000, clock)).toEqual({
      status: "failure",
      output: "error: health rpc probe failed: rpc error: code = NotFound desc = unknown service",
    });
    const r = await grpcProbe("127.0.0.1", barePort, "", 1000, clock);
    expect(r.status).toBe("failure");
    expect(r.output).toStartWith("error: this server does not implement the grpc health protocol (grpc.health.v1.Health): ");
  });

  test("a refused port is retried until the timeout, then a connect timeout failure", async () => {
    const p = await freePort();
    const fake = new FakeClock();
    let settled = false;
    const result = grpcProbe("127.0.0.1", p, "", 1000, fake).finally(() => (settled = true));
    await fake.advance(999);
    expect(settled).toBe(false);
    await fake.advance(1);
    expect(await result).toEqual({ status: "failure", output: `timeout: failed to connect service "127.0.0.1:${p}" within 1s: context deadline exceeded` });
  });
});
