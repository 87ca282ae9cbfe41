import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Pod, PodList } from "kubernetes-types/core/v1";
import type { Status } from "kubernetes-types/meta/v1";
import { ANONYMOUS, PUSH_TOKEN_CALLER, authenticate, isLoopbackAddress, isRefusal, servingExposureError, writeRefusal } from "../../src/server/auth";
import { AgentMetrics } from "../../src/server/metrics";
import { REDACTED } from "../../src/server/redact";
import { startAgentServer, type AgentServer } from "../../src/server/server";
import { FakeAgentView, fakePod } from "../fakes/agent-view";

const silent = { info() {}, warn() {}, error() {}, debug() {} };
const TOKEN = "t0ken-for-reads";
const auth = { Authorization: `Bearer ${TOKEN}` };

/** A pod whose env carries a password, as the abuse campaign found it readable by uid 65534. */
function podWithSecret(): Pod {
  const p = fakePod("default", "db");
  return { ...p, spec: { containers: [{ name: "db", image: "postgres", env: [{ name: "POSTGRES_PASSWORD", value: "hunter2" }] }] } };
}

describe("authenticate", () => {
  test("with a token: the right bearer token is the push-token caller, a wrong one 403, none 401", () => {
    const p = { token: TOKEN };
    expect(authenticate(p, "GET", `Bearer ${TOKEN}`)).toEqual(PUSH_TOKEN_CALLER);
    expect(authenticate(p, "POST", `bearer   ${TOKEN} `)).toEqual(PUSH_TOKEN_CALLER);
    expect(authenticate(p, "GET", "Bearer nope")).toMatchObject({ code: 403, reason: "wrong bearer token" });
    const none = authenticate(p, "GET", null);
    expect(none).toMatchObject({ code: 401, reason: "no bearer token", headers: { "WWW-Authenticate": 'Bearer realm="nodeagent"' } });
    expect(authenticate(p, "GET", `Basic ${btoa("a:b")}`)).toMatchObject({ code: 401, reason: "not a bearer token" });
  });
  test("with a token and --anonymous-read-only: anonymous reads pass, anonymous writes do not, a wrong token is still 403", () => {
    const p = { token: TOKEN, anonymousReadOnly: true };
    expect(authenticate(p, "GET", null)).toEqual(ANONYMOUS);
    expect(authenticate(p, "HEAD", null)).toEqual(ANONYMOUS);
    expect(authenticate(p, "POST", null)).toMatchObject({ code: 401 });
    expect(authenticate(p, "DELETE", null)).toMatchObject({ code: 401 });
    expect(authenticate(p, "GET", "Bearer nope")).toMatchObject({ code: 403 });
  });
  test("without a token every caller is anonymous, whatever it sends, and may not write", () => {
    for (const header of [null, "Bearer anything"]) {
      const caller = authenticate({}, "POST", header);
      expect(caller).toEqual(ANONYMOUS);
      expect(isRefusal(caller)).toBe(false);
      expect(writeRefusal({}, ANONYMOUS)).toMatchObject({ code: 403, reason: "push endpoints disabled" });
    }
    expect(writeRefusal({ token: TOKEN }, PUSH_TOKEN_CALLER)).toBeUndefined();
    expect(writeRefusal({ token: TOKEN, anonymousReadOnly: true }, ANONYMOUS)).toMatchObject({ code: 401 });
  });
});

describe("the loopback rule", () => {
  test("loopback addresses", () => {
    for (const a of ["127.0.0.1", "127.1.2.3", "::1", "[::1]", "0:0:0:0:0:0:0:1", "0::1", "::ffff:127.0.0.1", "localhost", "LOCALHOST"]) {
      expect({ a, loopback: isLoopbackAddress(a) }).toEqual({ a, loopback: true });
    }
  });
  test("everything else", () => {
    for (const a of ["0.0.0.0", "::", "10.0.0.5", "192.168.1.1", "::2", "1::1", "fe80::1", "::ffff:10.0.0.1", "128.0.0.1", "node.example", ""]) {
      expect({ a, loopback: isLoopbackAddress(a) }).toEqual({ a, loopback: false });
    }
  });
  test("without a token a non-loopback address is refused, with the ways out named", () => {
    const err = servingExposureError("0.0.0.0", {});
    expect(err).toContain("--address 0.0.0.0 is not a loopback address");
    expect(err).toContain("--push-token-file");
    expect(err).toContain("--anonymous-read-only");
    expect(servingExposureError("10.0.0.5", {})).toBeDefined();
  });
  test("a token, loopback, or --anonymous-read-only make it fine", () => {
    expect(servingExposureError("0.0.0.0", { token: TOKEN })).toBeUndefined();
    expect(servingExposureError("0.0.0.0", { anonymousReadOnly: true })).toBeUndefined();
    expect(servingExposureError("127.0.0.1", {})).toBeUndefined();
    expect(servingExposureError("::1", {})).toBeUndefined();
  });
  test("startAgentServer refuses to listen on 0.0.0.0 without a token", async () => {
    await expect(startAgentServer({ address: "0.0.0.0", port: 0, view: new FakeAgentView(), metrics: new AgentMetrics(), log: silent })).rejects.toThrow(
      "--address 0.0.0.0 is not a loopback address",
    );
  });
});

describe("reads need the token when the agent has one", () => {
  let view: FakeAgentView;
  let server: AgentServer;
  beforeAll(async () => {
    view = new FakeAgentView();
    view.podList.push(podWithSecret());
    server = await startAgentServer({ address: "127.0.0.1", port: 0, token: TOKEN, view, metrics: new AgentMetrics(), log: silent });
  });
  afterAll(() => server.stop());

  const reads = ["/pods", "/pods/default/db", "/node", "/metrics", "/no-such-path"];

  test("every endpoint but /healthz: 401 with WWW-Authenticate and a v1 Status without a token", async () => {
    for (const route of reads) {
      for (const method of ["GET", "HEAD"]) {
        const res = await fetch(`${server.url}${route}`, { method });
        expect({ route, method, status: res.status }).toEqual({ route, method, status: 401 });
        expect(res.headers.get("www-authenticate")).toBe('Bearer realm="nodeagent"');
        if (method === "GET") expect(await res.json()).toMatchObject({ kind: "Status", apiVersion: "v1", status: "Failure", reason: "Unauthorized", code: 401 });
      }
    }
  });
  test("403 with a wrong token", async () => {
    for (const route of reads) {
      const res = await fetch(`${server.url}${route}`, { headers: { Authorization: "Bearer wrong" } });
      expect({ route, status: res.status }).toEqual({ route, status: 403 });
      expect(((await res.json()) as Status).reason).toBe("Forbidden");
    }
  });
  test("the token opens them, and pods come whole", async () => {
    for (const route of reads.slice(0, 4)) {
      expect({ route, status: (await fetch(`${server.url}${route}`, { headers: auth })).status }).toEqual({ route, status: 200 });
    }
    expect((await fetch(`${server.url}/no-such-path`, { headers: auth })).status).toBe(404);
    const res = await fetch(`${server.url}/pods/default/db`, { headers: auth });
    expect(res.headers.get("warning")).toBeNull();
    expect(((await res.json()) as Pod).spec?.containers[0]?.env?.[0]?.value).toBe("hunter2");
  });
  test("/healthz and /healthz/<name> stay open", async () => {
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${server.url}/healthz?verbose`)).status).toBe(200);
    expect((await fetch(`${server.url}/healthz/ping`)).status).toBe(200);
  });
  test("writes: 401 with WWW-Authenticate as before", async () => {
    const post = await fetch(`${server.url}/pods`, { method: "POST", body: "kind: Pod\n" });
    expect(post.status).toBe(401);
    expect(post.headers.get("www-authenticate")).toContain("Bearer");
    expect((await fetch(`${server.url}/pods/default/db`, { method: "DELETE" })).status).toBe(401);
    expect(view.pushed).toHaveLength(0);
  });
});

describe("--anonymous-read-only with a token", () => {
  test("anonymous callers read the redacted view; writes still need the token", async () => {
    const view = new FakeAgentView();
    view.podList = [podWithSecret()];
    const server = await startAgentServer({ address: "127.0.0.1", port: 0, token: TOKEN, anonymousReadOnly: true, view, metrics: new AgentMetrics(), log: silent });
    try {
      const res = await fetch(`${server.url}/pods`);
      expect(res.status).toBe(200);
      expect(((await res.json()) as PodList).items[0]!.spec?.containers[0]?.env?.[0]?.value).toBe(REDACTED);
      expect((await fetch(`${server.url}/node`)).status).toBe(200);
      expect((await fetch(`${server.url}/metrics`)).status).toBe(200);
      expect((await fetch(`${server.url}/pods`, { method: "POST", body: "kind: Pod\n" })).status).toBe(401);
      const full = await fetch(`${server.url}/pods`, { headers: auth });
      expect(((await full.json()) as PodList).items[0]!.spec?.containers[0]?.env?.[0]?.value).toBe("hunter2");
    } finally {
      await server.stop();
    }
  });
});

describe("without a token: reads are anonymous and redacted", () => {
  let view: FakeAgentView;
  let server: AgentServer;
  beforeAll(async () => {
    view = new FakeAgentView();
    view.podList = [podWithSecret()];
    server = await startAgentServer({ address: "127.0.0.1", port: 0, view, metrics: new AgentMetrics(), log: silent });
  });
  afterAll(() => server.stop());

  test("GET /pods shows no env value, says so in a Warning header, and leaves the agent's pod alone", async () => {
    const res = await fetch(`${server.url}/pods`);
    expect(res.status).toBe(200);
    expect(res.headers.get("warning")).toStartWith('299 - "secret-bearing fields');
    const text = await res.text();
    expect(text).not.toContain("hunter2");
    expect((JSON.parse(text) as PodList).items[0]!.spec?.containers[0]?.env).toEqual([{ name: "POSTGRES_PASSWORD", value: REDACTED }]);
    expect(view.podList[0]!.spec?.containers[0]?.env?.[0]?.value).toBe("hunter2");
  });
  test("GET /pods/<ns>/<name> too, whatever bearer token is sent", async () => {
    for (const headers of [{}, { Authorization: "Bearer guess" }] as Record<string, string>[]) {
      const res = await fetch(`${server.url}/pods/default/db`, { headers });
      expect(res.status).toBe(200);
      expect(await res.text()).not.toContain("hunter2");
    }
  });
  test("/node and /metrics answer", async () => {
    expect((await fetch(`${server.url}/node`)).status).toBe(200);
    expect((await fetch(`${server.url}/metrics`)).status).toBe(200);
  });
});
