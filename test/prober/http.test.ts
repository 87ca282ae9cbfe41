// The httpGet handler against local Bun.serve servers on 127.0.0.1: status codes, the kubelet's
// request headers, redirect rules, the body cap, refused connections and the timeout (FakeClock).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Server } from "bun";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { httpProbe, MAX_HTTP_BODY_BYTES, probeRequestHeaders } from "../../src/prober/http";
import { Prober } from "../../src/prober/prober";
import { FakeClock, RealClock } from "../../src/util/clock";
import { FakeExec } from "./fakes";

const clock = new RealClock();
let server: Server<undefined>;
let other: Server<undefined>;
const seen: { path: string; headers: Record<string, string> }[] = [];
let base = "";

beforeAll(() => {
  other = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("other port") });
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const url = new URL(req.url);
      seen.push({ path: url.pathname + url.search, headers: Object.fromEntries(req.headers) });
      const hops = /^\/hops\/(\d+)$/.exec(url.pathname);
      if (hops) {
        const n = Number(hops[1]);
        return n === 0 ? new Response("arrived") : new Response(null, { status: 302, headers: { Location: `/hops/${n - 1}` } });
      }
      switch (url.pathname) {
        case "/ok":
          return new Response("all good");
        case "/fail":
          return new Response("secret detail", { status: 503 });
        case "/not-found":
          return new Response("nope", { status: 404 });
        case "/moved-here":
          return new Response(null, { status: 301, headers: { Location: "/ok" } });
        case "/moved-port":
          return new Response(null, { status: 307, headers: { Location: `http://127.0.0.1:${other.port}/` } });
        case "/moved-away":
          return new Response("see there", { status: 302, headers: { Location: `http://localhost:${server.port}/ok` } });
        case "/no-location":
          return new Response("multiple", { status: 300 });
        case "/big":
          return new Response("x".repeat(100 * 1024));
        case "/hang":
          return new Promise<Response>(() => {});
        default:
          return new Response("?", { status: 500 });
      }
    },
  });
  base = `http://127.0.0.1:${server.port}`;
});
afterAll(() => {
  server.stop(true);
  other.stop(true);
});

const probe = (path: string, headers: [string, string][] = []) => httpProbe(new URL(base + path), headers, 1000, clock);

describe("httpGet probe", () => {
  test("2xx is success with the body as output; other codes are failures that do not show the body", async () => {
    expect(await probe("/ok")).toEqual({ status: "success", output: "all good" });
    expect(await probe("/fail")).toEqual({ status: "failure", output: "HTTP probe failed with statuscode: 503" });
    expect(await probe("/not-found")).toEqual({ status: "failure", output: "HTTP probe failed with statuscode: 404" });
  });

  test("the kubelet's headers: User-Agent kube-probe, Accept */*, no Accept-Encoding, Connection: close; the probe's own override them", async () => {
    seen.length = 0;
    await probe("/ok?x=1");
    expect(seen[0]!.path).toBe("/ok?x=1");
    const h = seen[0]!.headers;
    expect(h["user-agent"]).toBe("kube-probe/1.30");
    expect(h["accept"]).toBe("*/*");
    expect(h["accept-encoding"]).toBeUndefined();
    expect(h["connection"]).toBe("close");
    expect(h["host"]).toBe(`127.0.0.1:${server.port}`);
    seen.length = 0;
    await probe("/ok", [
      ["user-agent", "mine/1"],
      ["Accept", ""],
      ["x-multi", "a"],
      ["X-Multi", "b"],
      ["Host", "app.example"],
    ]);
    const g = seen[0]!.headers;
    expect(g["user-agent"]).toBe("mine/1");
    expect(g["accept"]).toBeUndefined();
    expect(g["x-multi"]).toBe("a, b");
    expect(g["host"]).toBe("app.example");
  });

  test("probeRequestHeaders canonicalises names as Go does and takes Host out of the headers", () => {
    expect(
      probeRequestHeaders([
        ["x-request-id", "1"],
        ["host", "h"],
        ["accept", "text/plain"],
      ]),
    ).toEqual({
      headers: { "X-Request-Id": ["1"], Accept: ["text/plain"], "User-Agent": ["kube-probe/1.30"] },
      host: "h",
    });
  });

  test("redirects on the same hostname are followed (another port too), with a Referer", async () => {
    seen.length = 0;
    expect(await probe("/moved-here")).toEqual({ status: "success", output: "all good" });
    expect(seen.map((s) => s.path)).toEqual(["/moved-here", "/ok"]);
    expect(seen[1]!.headers["referer"]).toBe(`${base}/moved-here`);
    expect(await probe("/moved-port")).toEqual({ status: "success", output: "other port" });
  });

  test("a redirect to another hostname is not followed: the 3xx is a success with a warning", async () => {
    seen.length = 0;
    expect(await probe("/moved-away")).toEqual({ status: "warning", output: "Probe terminated redirects, Response body: see there" });
    expect(seen.map((s) => s.path)).toEqual(["/moved-away"]);
    // A 3xx that is not a redirect Go follows (300, or no Location) is an answer as well.
    expect(await probe("/no-location")).toEqual({ status: "warning", output: "Probe terminated redirects, Response body: multiple" });
  });

  test("at most 9 redirects are followed: the 10th request's redirect stops the probe", async () => {
    expect(await probe("/hops/9")).toEqual({ status: "success", output: "arrived" });
    expect(await probe("/hops/10")).toEqual({ status: "failure", output: `Get "/hops/0": stopped after 10 redirects` });
  });

  test("at most 10 KiB of the body is read", async () => {
    const r = await probe("/big");
    expect(r.status).toBe("success");
    expect(r.output.length).toBe(MAX_HTTP_BODY_BYTES);
  });

  test("a refused connection is a failure worded as the kubelet's", async () => {
    const closed = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
    const port = closed.port;
    closed.stop(true);
    expect(await httpProbe(new URL(`http://127.0.0.1:${port}/`), [], 1000, clock)).toEqual({
      status: "failure",
      output: `Get "http://127.0.0.1:${port}/": dial tcp 127.0.0.1:${port}: connect: connection refused`,
    });
  });

  test("a server that does not answer within the timeout: failure when the clock reaches it", async () => {
    const fake = new FakeClock();
    let settled = false;
    const p = httpProbe(new URL(`${base}/hang`), [], 1000, fake).finally(() => (settled = true));
    await fake.advance(999);
    expect(settled).toBe(false);
    await fake.advance(1);
    expect(await p).toEqual({ status: "failure", output: `Get "${base}/hang": context deadline exceeded (Client.Timeout exceeded while awaiting headers)` });
  });

  test("https is probed without verifying the certificate, as the kubelet does (InsecureSkipVerify)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "na-probe-tls-"));
    try {
      const gen = Bun.spawnSync(
        [
          "openssl",
          "req",
          "-x509",
          "-newkey",
          "rsa:2048",
          "-nodes",
          "-subj",
          "/CN=self-signed",
          "-days",
          "1",
          "-keyout",
          join(dir, "key.pem"),
          "-out",
          join(dir, "cert.pem"),
        ],
        { stderr: "pipe" },
      );
      expect(gen.exitCode).toBe(0);
      const tls = Bun.serve({
        hostname: "127.0.0.1",
        port: 0,
        tls: { cert: Bun.file(join(dir, "cert.pem")), key: Bun.file(join(dir, "key.pem")) },
        fetch: () => new Response("secure"),
      });
      try {
        expect(await httpProbe(new URL(`https://127.0.0.1:${tls.port}/`), [], 1000, clock)).toEqual({ status: "success", output: "secure" });
      } finally {
        tls.stop(true);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("through the Prober: a redirect warning is a success attempt, flagged", async () => {
    const prober = new Prober(new FakeExec(), clock);
    const a = await prober.attempt(() => ({ kind: "httpGet", url: new URL(`${base}/moved-away`), headers: [] }), 1000);
    expect(a).toMatchObject({ result: "success", warning: true });
    const b = await prober.attempt(() => ({ kind: "httpGet", url: new URL(`${base}/fail`), headers: [] }), 1000);
    expect(b).toMatchObject({ result: "failure", output: "HTTP probe failed with statuscode: 503" });
  });
});
