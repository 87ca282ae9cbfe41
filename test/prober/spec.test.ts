import { describe, expect, test } from "bun:test";
import type { Container } from "kubernetes-types/core/v1";
import { describeAction, expandStatic, probeAction, probeTiming, ProbeSpecError, resolvePort } from "../../src/prober/spec";

const web: Container = {
  name: "web",
  image: "nginx",
  ports: [
    { name: "http", containerPort: 8080 },
    { name: "grpc", containerPort: 9090 },
  ],
};
const target = { containerId: "c1", host: "10.88.0.5" };

describe("probe spec", () => {
  test("timing takes the API defaults for unset and zero fields", () => {
    expect(probeTiming({})).toEqual({ initialDelayMs: 0, periodMs: 10_000, timeoutMs: 1000, successThreshold: 1, failureThreshold: 3 });
    expect(probeTiming({ initialDelaySeconds: 5, periodSeconds: 0, timeoutSeconds: 3, successThreshold: 2, failureThreshold: 1 })).toEqual({
      initialDelayMs: 5000,
      periodMs: 10_000,
      timeoutMs: 3000,
      successThreshold: 2,
      failureThreshold: 1,
    });
  });

  test("ports: a number, a port name, or a number written as a string; anything else is a spec error", () => {
    expect(resolvePort(81, web)).toBe(81);
    expect(resolvePort("http", web)).toBe(8080);
    expect(resolvePort("8081", web)).toBe(8081);
    expect(() => resolvePort("metrics", web)).toThrow(ProbeSpecError);
    expect(() => resolvePort("metrics", web)).toThrow(`port "metrics" is neither a number nor the name of a port of container "web"`);
    expect(() => resolvePort(0, web)).toThrow("invalid port number: 0");
    expect(() => resolvePort(70000, web)).toThrow("invalid port number: 70000");
  });

  test("exec commands expand $(VAR) from env values as written; $$ escapes; unknown references stay", () => {
    const env = [
      { name: "FILE", value: "/tmp/ok" },
      { name: "FROM_API", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
    ];
    expect(expandStatic("cat $(FILE)", env)).toBe("cat /tmp/ok");
    expect(expandStatic("$$(FILE) $(NOPE) $(FROM_API)x $( $", env)).toBe("$(FILE) $(NOPE) x $( $");
    const a = probeAction({ exec: { command: ["sh", "-c", "test -f $(FILE)"] } }, { ...web, env }, target);
    expect(a).toEqual({ kind: "exec", containerId: "c1", command: ["sh", "-c", "test -f /tmp/ok"] });
  });

  test("httpGet: the target's address unless the probe names a host, scheme lower-cased, path with its query, headers kept", () => {
    const a = probeAction({ httpGet: { port: "http", path: "/healthz?full=1", httpHeaders: [{ name: "X-A", value: "1" }] } }, web, target);
    expect(a.kind === "httpGet" && a.url.href).toBe("http://10.88.0.5:8080/healthz?full=1");
    expect(a.kind === "httpGet" && a.headers).toEqual([["X-A", "1"]]);
    const b = probeAction({ httpGet: { port: 8443, scheme: "HTTPS", host: "127.0.0.1", path: "ready" } }, web, target);
    expect(describeAction(b)).toBe("https://127.0.0.1:8443/ready");
    // A path cannot move the probe to another host (formatURL sets scheme and host over it).
    expect(describeAction(probeAction({ httpGet: { port: 80, path: "//evil.example/x" } }, web, target))).toBe("http://10.88.0.5/x");
    expect(describeAction(probeAction({ httpGet: { port: 80 } }, web, { containerId: "c", host: "fd00::5" }))).toBe("http://[fd00::5]/");
  });

  test("tcpSocket may name a host; grpc always dials the target, with its service", () => {
    expect(probeAction({ tcpSocket: { port: 5432 } }, web, target)).toEqual({ kind: "tcpSocket", host: "10.88.0.5", port: 5432 });
    expect(probeAction({ tcpSocket: { port: "http", host: "127.0.0.1" } }, web, target)).toEqual({ kind: "tcpSocket", host: "127.0.0.1", port: 8080 });
    expect(probeAction({ grpc: { port: 9090, service: "db" } }, web, target)).toEqual({ kind: "grpc", host: "10.88.0.5", port: 9090, service: "db" });
    expect(describeAction(probeAction({ grpc: { port: 9090 } }, web, target))).toBe("10.88.0.5:9090");
  });

  test("a probe without a handler is a spec error", () => {
    expect(() => probeAction({ periodSeconds: 3 }, web, target)).toThrow(`missing probe handler for container "web"`);
  });
});
