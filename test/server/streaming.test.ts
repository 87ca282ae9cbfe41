// The streaming endpoints' parsing (the kubelet's paths and remotecommand options), the upgrade proxy
// against a stand-in runtime streaming server on 127.0.0.1, and the v4 channel protocol's helpers.
import { afterEach, describe, expect, test } from "bun:test";
import { createServer as createHttpServer, type IncomingMessage } from "node:http";
import { connect, createServer, type Server } from "node:net";
import { Channel, exitCodeOf, frame } from "../../src/client/remote-command";
import { isUpgradeRequest, parseStreamRequest, proxyUpgrade } from "../../src/server/streaming";

describe("parseStreamRequest", () => {
  const q = (s: string) => new URLSearchParams(s);
  test("exec with the container, the command's arguments in order, the kubelet's stream names (output, not stdout), flags only as \"1\"", () => {
    expect(parseStreamRequest("/exec/default/web/app", q("command=sh&command=-c&command=echo%20hi&output=1&error=true&stdout=1"))).toEqual({
      kind: "exec",
      namespace: "default",
      pod: "web",
      uid: undefined,
      container: "app",
      command: ["sh", "-c", "echo hi"],
      ports: [],
      stdin: false,
      stdout: true,
      stderr: false,
      tty: false,
    });
  });
  test("the UID form; a TTY drops stderr", () => {
    expect(parseStreamRequest("/attach/ns/p/uid-1/c", q("input=1&output=1&error=1&tty=1"))).toMatchObject({
      kind: "attach",
      uid: "uid-1",
      container: "c",
      stdin: true,
      stdout: true,
      stderr: false,
      tty: true,
    });
  });
  test("portForward names the pod only", () => {
    expect(parseStreamRequest("/portForward/ns/p", q(""))).toMatchObject({ kind: "portForward", namespace: "ns", pod: "p", container: undefined });
    expect(parseStreamRequest("/portForward/ns/p/uid-9", q(""))).toMatchObject({ uid: "uid-9" });
  });
  test("portForward over WebSocket: the ports from the query (NewV4Options), each checked", () => {
    expect(parseStreamRequest("/portForward/ns/p", q("port=8080&port=53"), true)).toMatchObject({ ports: [8080, 53] });
    expect(parseStreamRequest("/portForward/ns/p", q(""), true)).toEqual({ status: 400, message: `query parameter "port" is required` });
    expect(parseStreamRequest("/portForward/ns/p", q("port=0"), true)).toEqual({ status: 400, message: `port "0" must be > 0` });
    expect(parseStreamRequest("/portForward/ns/p", q("port=http"), true)).toMatchObject({ status: 400 });
    // SPDY names the ports inside the stream: none needed in the query.
    expect(parseStreamRequest("/portForward/ns/p", q(""), false)).toMatchObject({ ports: [] });
  });
  test("no stream is the kubelet's 400; a malformed path a 404", () => {
    expect(parseStreamRequest("/exec/default/web/app", q("command=ls"))).toEqual({
      status: 400,
      message: "you must specify at least 1 of stdin, stdout, stderr",
    });
    // kubectl's names are the API server's; a kubelet is sent input/output/error.
    expect(parseStreamRequest("/exec/default/web/app", q("command=ls&stdin=1&stdout=1&stderr=1"))).toMatchObject({ status: 400 });
    expect(parseStreamRequest("/exec/default/web", q("output=1"))).toMatchObject({ status: 404 });
    expect(parseStreamRequest("/exec/default//app", q("output=1"))).toMatchObject({ status: 404 });
    expect(parseStreamRequest("/portForward/a/b/c/d", q(""))).toMatchObject({ status: 404 });
  });
});

test("isUpgradeRequest: Connection lists upgrade and an Upgrade header is there", () => {
  expect(isUpgradeRequest({ connection: "keep-alive, Upgrade", upgrade: "SPDY/3.1" })).toBe(true);
  expect(isUpgradeRequest({ connection: "keep-alive", upgrade: "SPDY/3.1" })).toBe(false);
  expect(isUpgradeRequest({ connection: "Upgrade" })).toBe(false);
});

describe("proxyUpgrade", () => {
  const servers: { close(): void }[] = [];
  afterEach(() => {
    for (const s of servers.splice(0)) s.close();
  });

  test("replays the request to the runtime's URL without the caller's credential, then pipes both ways", async () => {
    // The stand-in streaming server: records the request head, answers 101, echoes what follows.
    let seenHead = "";
    const runtime: Server = createServer((sock) => {
      let buf = "";
      sock.on("data", (d) => {
        if (!seenHead) {
          buf += d.toString("latin1");
          const end = buf.indexOf("\r\n\r\n");
          if (end < 0) return;
          seenHead = buf.slice(0, end);
          sock.write("HTTP/1.1 101 Switching Protocols\r\nUpgrade: SPDY/3.1\r\nConnection: Upgrade\r\n\r\n");
          const rest = buf.slice(end + 4);
          if (rest) sock.write(`echo:${rest}`);
        } else sock.write(`echo:${d.toString()}`);
      });
    });
    await new Promise<void>((r) => runtime.listen(0, "127.0.0.1", r));
    servers.push(runtime);
    const target = new URL(`http://127.0.0.1:${(runtime.address() as { port: number }).port}/exec/TOKEN1?x=1`);

    const agent = createHttpServer();
    agent.on("upgrade", (req: IncomingMessage, socket, head) => proxyUpgrade(req, socket, head, target, () => {}));
    await new Promise<void>((r) => agent.listen(0, "127.0.0.1", r));
    servers.push(agent);
    const port = (agent.address() as { port: number }).port;

    const client = connect(port, "127.0.0.1");
    let got = "";
    client.on("data", (d) => (got += d.toString()));
    client.write(
      "POST /exec/default/web/app?command=ls&stdout=1 HTTP/1.1\r\nHost: node:10250\r\nAuthorization: Bearer secret\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: v4.channel.k8s.io\r\n\r\nfirst",
    );
    await waitFor(() => got.includes("echo:first"));
    client.write("second");
    await waitFor(() => got.includes("echo:second"));
    client.destroy();
    expect(got.startsWith("HTTP/1.1 101 Switching Protocols\r\n")).toBe(true);
    const lines = seenHead.split("\r\n");
    expect(lines[0]).toBe("POST /exec/TOKEN1?x=1 HTTP/1.1");
    expect(lines).toContain(`Host: ${target.host}`);
    expect(lines).toContain("X-Stream-Protocol-Version: v4.channel.k8s.io");
    expect(lines).toContain("Upgrade: SPDY/3.1");
    expect(seenHead.toLowerCase()).not.toContain("authorization");
    expect(seenHead).not.toContain("node:10250");
  });

  test("a runtime that cannot be reached: 502 with the reason, on the client's socket", async () => {
    const agent = createHttpServer();
    const errors: string[] = [];
    agent.on("upgrade", (req: IncomingMessage, socket, head) => proxyUpgrade(req, socket, head, new URL("http://127.0.0.1:1/exec/x"), (m) => errors.push(m)));
    await new Promise<void>((r) => agent.listen(0, "127.0.0.1", r));
    servers.push(agent);
    const client = connect((agent.address() as { port: number }).port, "127.0.0.1");
    let got = "";
    client.on("data", (d) => (got += d.toString()));
    client.write("GET /exec/a/b/c?stdout=1 HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n");
    await waitFor(() => got.includes("\r\n\r\n") && got.includes("streaming server"));
    expect(got).toStartWith("HTTP/1.1 502 Bad Gateway\r\n");
    expect(errors[0]).toContain("127.0.0.1:1");
  });
});

test("v4 channel protocol: frames carry their channel byte; the Status gives the exit code", () => {
  expect([...frame(Channel.Stdin, "ab")]).toEqual([0, 97, 98]);
  expect([...frame(Channel.Resize, new Uint8Array([1]))]).toEqual([4, 1]);
  expect(exitCodeOf({ status: "Success" })).toBe(0);
  expect(exitCodeOf({ status: "Failure", reason: "NonZeroExitCode", details: { causes: [{ reason: "ExitCode", message: "3" }] } })).toBe(3);
  expect(exitCodeOf({ status: "Failure", reason: "InternalError", message: "boom" })).toBeUndefined();
  expect(exitCodeOf(undefined)).toBeUndefined();
});

async function waitFor(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 10));
  }
}
