// What the agent's server answers to a request its HTTP parser refuses (malformed-request.ts): the
// kubelet's statuses (Go net/http and go-restful: 431, 400, 405) instead of a silent close. Raw
// sockets against the in-process server, plain and over TLS, since a client library never sends these.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { connect as netConnect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect as tlsConnect } from "node:tls";
import { malformedRequestStatus } from "../../src/server/malformed-request";
import { AgentMetrics } from "../../src/server/metrics";
import { startAgentServer, type AgentServer } from "../../src/server/server";
import { servingCertificate } from "../../src/server/tls";
import { FakeAgentView } from "../fakes/agent-view";
import { rawRequest, statusLine } from "./raw-http";

const silent = { info() {}, warn() {}, error() {}, debug() {} };
const TOKEN = "s3cret-token";

const head = (extra: string) => `GET /healthz HTTP/1.1\r\nHost: x\r\n${extra}Connection: close\r\n\r\n`;

/** The cases of issue 24 finding 9, with the status each must get. */
const CASES: [string, string, string][] = [
  ["a head over 16 KiB", head(`X-Big: ${"a".repeat(20_000)}\r\n`), "HTTP/1.1 431 Request Header Fields Too Large"],
  ["2000 headers", head(Array.from({ length: 2000 }, (_, i) => `X-H${i}: v\r\n`).join("")), "HTTP/1.1 431 Request Header Fields Too Large"],
  ["2000 tiny headers", head("a: b\r\n".repeat(2000)), "HTTP/1.1 431 Request Header Fields Too Large"],
  ["a malformed request line", "GARBAGE\r\n\r\n", "HTTP/1.1 400 Bad Request"],
  ["a request line without a version", "GET /healthz\r\n\r\n", "HTTP/1.1 400 Bad Request"],
  ["a malformed header line", "GET /healthz HTTP/1.1\r\nHost x\r\n\r\n", "HTTP/1.1 400 Bad Request"],
  ["CONNECT", "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n", "HTTP/1.1 405 Method Not Allowed"],
  ["a lowercase method", "get /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", "HTTP/1.1 405 Method Not Allowed"],
  ["an unknown method", "FROB /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", "HTTP/1.1 405 Method Not Allowed"],
];

const dir = mkdtempSync(join(tmpdir(), "malformed-request-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

for (const scheme of ["http", "https"] as const) {
  describe(`a request the parser refuses (${scheme})`, () => {
    let server: AgentServer;
    let open: () => Socket;
    beforeAll(async () => {
      const serving = scheme === "https" ? servingCertificate({ certDir: join(dir, "pki"), hostname: "node-a", alternateNames: ["127.0.0.1"] }) : undefined;
      server = await startAgentServer({
        address: "127.0.0.1",
        port: 0,
        token: TOKEN,
        view: new FakeAgentView(),
        metrics: new AgentMetrics(),
        log: silent,
        ...(serving ? { tls: { certFile: serving.certFile, keyFile: serving.keyFile } } : {}),
      });
      open = serving
        ? () => tlsConnect({ host: "127.0.0.1", port: server.port, ca: serving.cert, servername: "node-a" })
        : () => netConnect(server.port, "127.0.0.1");
    });
    afterAll(async () => {
      await server.stop();
    });

    test.each(CASES)("%s gets its status and the connection is closed", async (_name, data, expected) => {
      const r = await rawRequest(open, data);
      expect(statusLine(r.text)).toBe(expected);
      expect(r.text).toContain("\r\nConnection: close\r\n");
      expect(r.text).toContain("\r\nContent-Type: text/plain; charset=utf-8\r\n");
      expect(r.closed).toBe(true);
    });

    test("the bodies are the kubelet's: Go's for 431 and 400, go-restful's for 405", async () => {
      expect((await rawRequest(open, CASES[0]![1])).text).toEndWith("\r\n\r\n431 Request Header Fields Too Large");
      expect((await rawRequest(open, "GARBAGE\r\n\r\n")).text).toEndWith("\r\n\r\n400 Bad Request");
      expect((await rawRequest(open, "get / HTTP/1.1\r\n\r\n")).text).toEndWith("\r\n\r\n405: Method Not Allowed");
    });

    test("a well-formed request on the same server still works, and one under the limit is served", async () => {
      const ok = await rawRequest(open, head(`Authorization: Bearer ${TOKEN}\r\nX-Big: ${"a".repeat(8_000)}\r\n`));
      expect(statusLine(ok.text)).toBe("HTTP/1.1 200 OK");
      expect(ok.text).toContain("\r\n\r\n2\r\nok\r\n");
      const old = await rawRequest(open, `GET /healthz HTTP/1.0\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n`);
      expect(statusLine(old.text)).toBe("HTTP/1.1 200 OK");
    });

    test("HTTP/0.9 (a line without a version) is 400 and another major version 505, as Go's server", async () => {
      expect(statusLine((await rawRequest(open, "GET /healthz HTTP/0.9\r\n\r\n")).text)).toBe("HTTP/1.1 400 Bad Request");
      const two = await rawRequest(open, `GET /healthz HTTP/2.0\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n`);
      expect(statusLine(two.text)).toBe("HTTP/1.1 505 HTTP Version Not Supported");
      expect(two.text).toEndWith("505 HTTP Version Not Supported: unsupported protocol version");
    });
  });
}

describe("malformedRequestStatus", () => {
  const raw = (s: string) => new TextEncoder().encode(s);
  test("overflow is 431; a token method in a well-formed line is 405; anything else 400", () => {
    expect(malformedRequestStatus({ code: "HPE_HEADER_OVERFLOW" })).toBe(431);
    expect(malformedRequestStatus({ code: "HPE_INVALID_METHOD", rawPacket: raw("get / HTTP/1.1\r\n\r\n") })).toBe(405);
    expect(malformedRequestStatus({ code: "HPE_INVALID_METHOD", rawPacket: raw("PURGE /x?y HTTP/1.0\n\n") })).toBe(405);
    expect(malformedRequestStatus({ code: "HPE_INVALID_METHOD", rawPacket: raw("GARBAGE\r\n\r\n") })).toBe(400);
    expect(malformedRequestStatus({ code: "HPE_INVALID_METHOD", rawPacket: raw("G(T / HTTP/1.1\r\n\r\n") })).toBe(400);
    expect(malformedRequestStatus({ code: "HPE_INVALID_METHOD", rawPacket: raw("get  / HTTP/1.1\r\n\r\n") })).toBe(400);
    expect(malformedRequestStatus({ code: "HPE_INVALID_METHOD" })).toBe(400);
    expect(malformedRequestStatus({ code: "HPE_INVALID_VERSION" })).toBe(400);
    expect(malformedRequestStatus({ code: "HPE_INVALID_VERSION", rawPacket: raw("GET / HTTP/2.0\r\n\r\n") })).toBe(505);
    expect(malformedRequestStatus({ code: "HPE_INVALID_VERSION", rawPacket: raw("GET / HTTP/0.9\r\n\r\n") })).toBe(400);
    expect(malformedRequestStatus({ code: "HPE_INVALID_VERSION", rawPacket: raw("GET / HTTP/1.x\r\n\r\n") })).toBe(400);
    expect(malformedRequestStatus({ code: "HPE_INVALID_HEADER_TOKEN" })).toBe(400);
  });
});
