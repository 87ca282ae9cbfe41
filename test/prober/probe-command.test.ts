// The ad-hoc probe syntax of `nodeagent probe run` (src/prober/probe-run.ts): what each flag becomes.
import { describe, expect, test } from "bun:test";
import { parseAdHoc } from "../../src/prober";
import { ConfigError } from "../../src/util/errors";

describe("probe run ad-hoc probes", () => {
  test("--http-get [scheme://][HOST]:PORT[/PATH]", () => {
    expect(parseAdHoc("http-get", ":8080/healthz?x=1")).toEqual({ probe: { httpGet: { port: 8080, path: "/healthz?x=1", scheme: "HTTP" } }, host: undefined });
    expect(parseAdHoc("http-get", "https://10.0.0.5:8443")).toEqual({ probe: { httpGet: { port: 8443, path: "/", scheme: "HTTPS" } }, host: "10.0.0.5" });
    expect(parseAdHoc("http-get", "[fd00::1]:80/")).toEqual({ probe: { httpGet: { port: 80, path: "/", scheme: "HTTP" } }, host: "fd00::1" });
  });

  test("--tcp [HOST]:PORT and --grpc [HOST]:PORT[/SERVICE]", () => {
    expect(parseAdHoc("tcp", "127.0.0.1:5432")).toEqual({ probe: { tcpSocket: { port: 5432 } }, host: "127.0.0.1" });
    expect(parseAdHoc("grpc", ":9090/db.v1")).toEqual({ probe: { grpc: { port: 9090, service: "db.v1" } }, host: undefined });
    expect(parseAdHoc("grpc", "127.0.0.1:9090")).toEqual({ probe: { grpc: { port: 9090, service: "" } }, host: "127.0.0.1" });
  });

  test("malformed values are usage errors that show the expected form", () => {
    expect(() => parseAdHoc("tcp", "5432")).toThrow(ConfigError);
    expect(() => parseAdHoc("tcp", "5432")).toThrow(`--tcp "5432": expected [HOST]:PORT with a port number from 1 to 65535`);
    expect(() => parseAdHoc("tcp", "h:99999")).toThrow("port number from 1 to 65535");
    expect(() => parseAdHoc("tcp", "h:80/x")).toThrow(`--tcp "h:80/x": expected [HOST]:PORT`);
    expect(() => parseAdHoc("http-get", ":80healthz")).toThrow("the path must start with /");
    expect(() => parseAdHoc("grpc", ":80x")).toThrow("expected [HOST]:PORT[/SERVICE]");
  });
});
