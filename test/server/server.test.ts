import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { Node, Pod, PodList } from "kubernetes-types/core/v1";
import type { Status } from "kubernetes-types/meta/v1";
import { AgentMetrics } from "../../src/server/metrics";
import { MAX_BODY_BYTES, startAgentServer, type AgentServer } from "../../src/server/server";
import { Authenticator } from "../../src/server/authn";
import { Authorizer } from "../../src/server/authz";
import { FakeClock } from "../../src/util/clock";
import { FakeAgentView as FakeView, fakePod } from "../fakes/agent-view";

/** The JSON body of a response, typed as what the test expects (a v1 Status unless told). */
function body<T = Status>(res: Response): Promise<T> {
  return res.json() as Promise<T>;
}

const silent = { info() {}, warn() {}, error() {}, debug() {} };
const TOKEN = "s3cret-token";

async function start(opts: { token?: string } = {}) {
  const view = new FakeView();
  const metrics = new AgentMetrics();
  const server = await startAgentServer({ address: "127.0.0.1", port: 0, token: opts.token, view, metrics, log: silent });
  return { view, metrics, server };
}

describe("agent server (token configured)", () => {
  let view: FakeView;
  let metrics: AgentMetrics;
  let server: AgentServer;
  beforeAll(async () => {
    ({ view, metrics, server } = await start({ token: TOKEN }));
  });
  afterAll(async () => {
    await server.stop();
  });
  const auth = { Authorization: `Bearer ${TOKEN}` };

  test("listens on an ephemeral port and reports its URL", () => {
    expect(server.port).toBeGreaterThan(0);
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
  });

  describe("/healthz", () => {
    test("ok when every check passes", async () => {
      view.checks = [
        { name: "ping", ok: true, message: "" },
        { name: "PLEG", ok: true, message: "" },
      ];
      const res = await fetch(`${server.url}/healthz`, { headers: auth });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toContain("text/plain");
      expect(await res.text()).toBe("ok");
    });
    test("?verbose lists every check and says passed", async () => {
      const res = await fetch(`${server.url}/healthz?verbose`, { headers: auth });
      expect(res.status).toBe(200);
      expect(await res.text()).toBe("[+]ping ok\n[+]PLEG ok\nhealthz check passed\n");
    });
    test("500 with one line per check when one fails", async () => {
      view.checks = [
        { name: "ping", ok: true, message: "" },
        { name: "PLEG", ok: false, message: "pleg was last seen active 3m1s ago; threshold is 3m0s" },
        { name: "syncloop", ok: false, message: "sync loop stalled\nfor 2m" },
      ];
      const res = await fetch(`${server.url}/healthz`, { headers: auth });
      expect(res.status).toBe(500);
      expect(await res.text()).toBe(
        "[+]ping ok\n[-]PLEG failed: pleg was last seen active 3m1s ago; threshold is 3m0s\n[-]syncloop failed: sync loop stalled for 2m\nhealthz check failed\n",
      );
      const verbose = await fetch(`${server.url}/healthz?verbose`, { headers: auth });
      expect(verbose.status).toBe(500);
      expect(await verbose.text()).toContain("[-]PLEG failed: pleg was last seen active 3m1s ago");
    });
    test("?exclude skips a failing check", async () => {
      const res = await fetch(`${server.url}/healthz?exclude=PLEG&exclude=syncloop&verbose`, { headers: auth });
      expect(res.status).toBe(200);
      expect(await res.text()).toBe("[+]ping ok\n[+]PLEG excluded: ok\n[+]syncloop excluded: ok\nhealthz check passed\n");
    });
    test("/healthz/<name> checks one", async () => {
      const ok = await fetch(`${server.url}/healthz/ping`, { headers: auth });
      expect(ok.status).toBe(200);
      expect(await ok.text()).toBe("ok");
      const bad = await fetch(`${server.url}/healthz/PLEG`, { headers: auth });
      expect(bad.status).toBe(500);
      expect(await bad.text()).toBe("internal server error: pleg was last seen active 3m1s ago; threshold is 3m0s\n");
      const missing = await fetch(`${server.url}/healthz/nope`, { headers: auth });
      expect(missing.status).toBe(404);
      view.checks = [{ name: "ping", ok: true, message: "" }];
    });
    test("HEAD is allowed and has no body", async () => {
      const res = await fetch(`${server.url}/healthz`, { method: "HEAD", headers: auth });
      expect(res.status).toBe(200);
      expect(await res.text()).toBe("");
    });
    test("a check's warning is shown by ?verbose and fails nothing", async () => {
      view.checks = [
        { name: "ping", ok: true, message: "" },
        { name: "sources", ok: true, message: "", warning: "file source: /etc/kubernetes/manifests is missing;\nits 2 pods are kept" },
      ];
      const plain = await fetch(`${server.url}/healthz`, { headers: auth });
      expect(plain.status).toBe(200);
      expect(await plain.text()).toBe("ok");
      const verbose = await fetch(`${server.url}/healthz?verbose`, { headers: auth });
      expect(verbose.status).toBe(200);
      expect(await verbose.text()).toBe(
        "[+]ping ok\n[+]sources ok (warning: file source: /etc/kubernetes/manifests is missing; its 2 pods are kept)\nhealthz check passed\n",
      );
      const one = await fetch(`${server.url}/healthz/sources`, { headers: auth });
      expect(one.status).toBe(200);
      expect(await one.text()).toBe("ok");
    });
    test("a failing check keeps its warning beside its message", async () => {
      view.checks = [{ name: "sources", ok: false, message: "push source unreadable", warning: "URL source: empty body; its pods are kept" }];
      const res = await fetch(`${server.url}/healthz`, { headers: auth });
      expect(res.status).toBe(500);
      expect(await res.text()).toBe("[-]sources failed: push source unreadable (warning: URL source: empty body; its pods are kept)\nhealthz check failed\n");
      view.checks = [{ name: "ping", ok: true, message: "" }];
    });
  });

  describe("GET /pods", () => {
    test("a v1 PodList", async () => {
      const res = await fetch(`${server.url}/pods`, { headers: auth });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("application/json");
      const list = await body<PodList>(res);
      expect(list.kind).toBe("PodList");
      expect(list.apiVersion).toBe("v1");
      expect(list.metadata).toEqual({});
      expect(list.items.map((p: Pod) => p.metadata?.name)).toEqual(["web", "dns"]);
    });
    test("each pod's JSON is made once while the view answers the same object", async () => {
      const saved = view.podList;
      let serialized = 0;
      // JSON.stringify calls toJSON: it counts how often the pod is serialized.
      const counted = (p: Pod): Pod => Object.assign(p, { toJSON: () => (serialized++, { ...p, toJSON: undefined }) });
      view.podList = [counted(fakePod("default", "a"))];
      try {
        for (let i = 0; i < 3; i++)
          expect((await body<PodList>(await fetch(`${server.url}/pods`, { headers: auth }))).items.map((p) => p.metadata?.name)).toEqual(["a"]);
        expect(serialized).toBe(1);
        // A changed pod is a new object: serialized anew, and the list says what it says now.
        view.podList = [counted({ ...fakePod("default", "a"), status: { phase: "Failed" } })];
        expect((await body<PodList>(await fetch(`${server.url}/pods`, { headers: auth }))).items[0]?.status?.phase).toBe("Failed");
        expect(serialized).toBe(2);
      } finally {
        view.podList = saved;
      }
    });
    test("one pod by namespace and name", async () => {
      const res = await fetch(`${server.url}/pods/kube-system/dns`, { headers: auth });
      expect(res.status).toBe(200);
      expect((await body<Pod>(res)).metadata).toEqual({ namespace: "kube-system", name: "dns", uid: "uid-dns" });
    });
    test("404 with a v1 Status for an unknown pod", async () => {
      const res = await fetch(`${server.url}/pods/default/nope`, { headers: auth });
      expect(res.status).toBe(404);
      expect(await body(res)).toEqual({
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: 'pods "nope" not found',
        reason: "NotFound",
        code: 404,
      });
    });
    test("a pod in another namespace is not found", async () => {
      expect((await fetch(`${server.url}/pods/default/dns`, { headers: auth })).status).toBe(404);
    });
  });

  test("GET /node", async () => {
    const res = await fetch(`${server.url}/node`, { headers: auth });
    expect(res.status).toBe(200);
    expect(await body<Node>(res)).toEqual({ apiVersion: "v1", kind: "Node", metadata: { name: "node-1" } });
  });

  test("GET /node is a 500 Status when the view fails", async () => {
    view.nodeError = new Error("runtime unavailable");
    const res = await fetch(`${server.url}/node`, { headers: auth });
    view.nodeError = undefined;
    expect(res.status).toBe(500);
    const status = await body(res);
    expect(status).toMatchObject({ kind: "Status", status: "Failure", reason: "InternalError", code: 500 });
    expect(status.message).toContain("runtime unavailable");
  });

  test("an error that carries an HTTP status answers with it (503 with Retry-After), not 500", async () => {
    view.deleteError = Object.assign(new Error("the pushed pods cannot be read back; fix or remove pushed-pods.json"), { status: 503 });
    const res = await fetch(`${server.url}/pods/default/web`, { method: "DELETE", headers: auth });
    view.deleteError = undefined;
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("10");
    expect(await body(res)).toMatchObject({
      kind: "Status",
      reason: "ServiceUnavailable",
      code: 503,
      message: "the pushed pods cannot be read back; fix or remove pushed-pods.json",
    });
  });

  test("GET /metrics is Prometheus text from the registry", async () => {
    metrics.setRunningPods(2);
    const res = await fetch(`${server.url}/metrics`, { headers: auth });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    const body = await res.text();
    expect(body).toContain("# TYPE kubelet_running_pods gauge");
    expect(body).toContain("kubelet_running_pods 2");
  });

  describe("POST /pods", () => {
    const yamlPod =
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: pushed-yaml\n  labels:\n    enabled: yes\nspec:\n  containers:\n  - name: app\n    image: busybox\n";

    test('401 without a token: the kubelet\'s plain-text "Unauthorized"', async () => {
      const res = await fetch(`${server.url}/pods`, { method: "POST", body: yamlPod });
      expect(res.status).toBe(401);
      expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
      expect(await res.text()).toBe("Unauthorized");
    });
    test("401 for a non-Bearer authorization", async () => {
      const res = await fetch(`${server.url}/pods`, { method: "POST", body: yamlPod, headers: { Authorization: `Basic ${btoa("a:b")}` } });
      expect(res.status).toBe(401);
    });
    test("401 with a wrong token: a bad credential is unauthenticated, never anonymous", async () => {
      const res = await fetch(`${server.url}/pods`, { method: "POST", body: yamlPod, headers: { Authorization: "Bearer wrong" } });
      expect(res.status).toBe(401);
      expect(await res.text()).toBe("Unauthorized");
      expect(view.pushed).toHaveLength(0);
    });
    test("a YAML body, parsed as YAML 1.1", async () => {
      const res = await fetch(`${server.url}/pods`, { method: "POST", body: yamlPod, headers: { ...auth, "Content-Type": "application/yaml" } });
      expect(res.status).toBe(201);
      const created = await body<Pod>(res);
      expect(created.metadata?.name).toBe("pushed-yaml");
      // YAML 1.1: `yes` is a boolean (the kubelet's go-yaml reads it so), not the string "yes".
      expect((view.pushed.at(-1) as Pod).metadata?.labels?.enabled as unknown).toBe(true);
    });
    test("a JSON body", async () => {
      const manifest = JSON.stringify({
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "pushed-json", namespace: "team" },
        spec: { containers: [{ name: "app", image: "busybox" }] },
      });
      const res = await fetch(`${server.url}/pods`, { method: "POST", body: manifest, headers: { ...auth, "Content-Type": "application/json" } });
      expect(res.status).toBe(201);
      expect((await body<Pod>(res)).metadata).toEqual({ name: "pushed-json", namespace: "team" });
      const got = await fetch(`${server.url}/pods/team/pushed-json`, { headers: auth });
      expect(got.status).toBe(200);
    });
    test("JSON without a content type is read as YAML, which accepts it", async () => {
      const res = await fetch(`${server.url}/pods`, { method: "POST", body: '{"kind":"Pod","metadata":{"name":"plain"}}', headers: auth });
      expect(res.status).toBe(201);
    });
    test("400 for malformed JSON and YAML", async () => {
      const badJson = await fetch(`${server.url}/pods`, { method: "POST", body: "{nope", headers: { ...auth, "Content-Type": "application/json" } });
      expect(badJson.status).toBe(400);
      expect(await body(badJson)).toMatchObject({ kind: "Status", reason: "BadRequest", code: 400 });
      const badYaml = await fetch(`${server.url}/pods`, { method: "POST", body: "metadata:\n  name: [unclosed\n", headers: auth });
      expect(badYaml.status).toBe(400);
      expect((await body(badYaml)).message).toStartWith("invalid YAML:");
    });
    test("400 for an empty body, several documents, or a non-object", async () => {
      const empty = await fetch(`${server.url}/pods`, { method: "POST", body: "", headers: auth });
      expect(empty.status).toBe(400);
      expect((await body(empty)).message).toContain("empty");
      const two = await fetch(`${server.url}/pods`, { method: "POST", body: "kind: Pod\n---\nkind: Pod\n", headers: auth });
      expect(two.status).toBe(400);
      expect((await body(two)).message).toContain("2 YAML documents");
      const scalar = await fetch(`${server.url}/pods`, { method: "POST", body: "- a\n- b\n", headers: auth });
      expect(scalar.status).toBe(400);
      expect((await body(scalar)).message).toContain("expected a Pod object");
    });
    test("the view's refusal becomes a Status with its code", async () => {
      view.refuse = { ok: false, status: 422, message: 'Pod "x" is invalid: spec.containers: Required value' };
      const res = await fetch(`${server.url}/pods`, { method: "POST", body: yamlPod, headers: auth });
      view.refuse = undefined;
      expect(res.status).toBe(422);
      expect(await body(res)).toEqual({
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: 'Pod "x" is invalid: spec.containers: Required value',
        reason: "Invalid",
        code: 422,
      });
    });
    test("413 for a body over 10 MiB", async () => {
      const big = `kind: Pod\nmetadata:\n  name: big\n  annotations:\n    a: "${"x".repeat(MAX_BODY_BYTES)}"\n`;
      const res = await fetch(`${server.url}/pods`, { method: "POST", body: big, headers: auth });
      expect(res.status).toBe(413);
      expect(await body(res)).toMatchObject({ reason: "RequestEntityTooLarge", code: 413 });
    });
    test("413 for a chunked body over 10 MiB (no Content-Length)", async () => {
      const chunk = new Uint8Array(1024 * 1024).fill(0x61);
      let sent = 0;
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent++ >= 12) controller.close();
          else controller.enqueue(chunk);
        },
      });
      const res = await fetch(`${server.url}/pods`, { method: "POST", body: stream, headers: auth });
      expect(res.status).toBe(413);
    });
  });

  describe("DELETE /pods/<ns>/<name>", () => {
    test("needs the token", async () => {
      expect((await fetch(`${server.url}/pods/default/pushed-yaml`, { method: "DELETE" })).status).toBe(401);
      expect((await fetch(`${server.url}/pods/default/pushed-yaml`, { method: "DELETE", headers: { Authorization: "Bearer nope" } })).status).toBe(401);
      expect(view.deleted).toEqual([]);
    });
    test("deletes a pushed pod with a Success Status", async () => {
      const res = await fetch(`${server.url}/pods/default/pushed-yaml`, { method: "DELETE", headers: auth });
      expect(res.status).toBe(200);
      expect(await body(res)).toMatchObject({ kind: "Status", apiVersion: "v1", status: "Success", code: 200, details: { name: "pushed-yaml", kind: "pods" } });
      expect(view.deleted).toEqual(["default/pushed-yaml"]);
    });
    test("GET /debug/heap: the heap's object counts by type after a full GC, only with the token", async () => {
      expect((await fetch(`${server.url}/debug/heap`)).status).toBe(401);
      const res = await fetch(`${server.url}/debug/heap`, { headers: auth });
      expect(res.status).toBe(200);
      const h = await body<{ objectCount: number; objectTypeCounts: Record<string, number>; protectedObjectTypeCounts: Record<string, number> }>(res);
      expect(h.objectCount).toBeGreaterThan(0);
      expect(h.objectTypeCounts.Object).toBeGreaterThan(0);
      expect(typeof h.protectedObjectTypeCounts).toBe("object");
      expect((await fetch(`${server.url}/debug/heap`, { method: "POST", headers: auth })).status).toBe(405);
    });
    test("404 when no pushed pod has that name", async () => {
      // "web" exists, but it came from another source: only pushed pods can be deleted here.
      const res = await fetch(`${server.url}/pods/default/web`, { method: "DELETE", headers: auth });
      expect(res.status).toBe(404);
      expect(await body(res)).toMatchObject({ kind: "Status", reason: "NotFound", code: 404 });
    });
  });

  describe("unknown paths and methods", () => {
    test("404 Status for an unknown path", async () => {
      const res = await fetch(`${server.url}/nope`, { headers: auth });
      expect(res.status).toBe(404);
      expect(await body(res)).toMatchObject({ kind: "Status", apiVersion: "v1", status: "Failure", reason: "NotFound", code: 404 });
      expect((await fetch(`${server.url}/pods/a/b/c`, { headers: auth })).status).toBe(404);
    });
    test("400 for a malformed escape in the path", async () => {
      const res = await fetch(`${server.url}/pods/default/%zz`, { headers: auth });
      expect(res.status).toBe(400);
      expect(await body(res)).toMatchObject({ kind: "Status", reason: "BadRequest", code: 400 });
    });
    test("405 with Allow for a wrong method", async () => {
      const cases: [string, string, string][] = [
        ["/healthz", "POST", "GET, HEAD"],
        ["/node", "PUT", "GET, HEAD"],
        ["/metrics", "DELETE", "GET, HEAD"],
        ["/pods", "DELETE", "GET, HEAD, POST"],
        ["/pods/default/web", "POST", "GET, HEAD, DELETE"],
      ];
      for (const [route, method, allow] of cases) {
        const res = await fetch(`${server.url}${route}`, { method, headers: auth });
        expect(res.status).toBe(405);
        expect(res.headers.get("allow")).toBe(allow);
        expect(await body(res)).toMatchObject({ kind: "Status", reason: "MethodNotAllowed", code: 405 });
      }
    });
  });
});

describe("agent server without a push token", () => {
  test("nobody is authorized but the push token: without one, reads are 401 too", async () => {
    const { server } = await start();
    try {
      const res = await fetch(`${server.url}/pods`);
      expect(res.status).toBe(401);
      expect(await res.text()).toBe("Unauthorized");
    } finally {
      await server.stop();
    }
  });

  test("push endpoints are disabled with 403 and a hint, for a caller allowed everything else", async () => {
    // A token the (fake) API server knows, and AlwaysAllow: the caller gets past the gate.
    const clock = new FakeClock();
    const authenticator = new Authenticator({
      anonymous: false,
      clock,
      webhook: {
        cacheTTLMs: 0,
        reviewer: { createTokenReview: async (r) => ({ ...r, status: { authenticated: true, user: { username: "alice", groups: [] } } }) },
      },
    });
    const authorizer = new Authorizer({ mode: "AlwaysAllow", clock });
    const view = new FakeView();
    const server = await startAgentServer({ address: "127.0.0.1", port: 0, view, metrics: new AgentMetrics(), log: silent, authenticator, authorizer });
    try {
      for (const [method, route] of [
        ["POST", "/pods"],
        ["DELETE", "/pods/default/web"],
      ] as const) {
        const res = await fetch(`${server.url}${route}`, {
          method,
          body: method === "POST" ? "kind: Pod\n" : undefined,
          headers: { Authorization: "Bearer anything" },
        });
        expect(res.status).toBe(403);
        const status = await body(res);
        expect(status).toMatchObject({ kind: "Status", reason: "Forbidden", code: 403 });
        expect(status.message).toContain("--push-token-file");
      }
      expect(view.pushed).toHaveLength(0);
      // Reads work for that caller.
      expect((await fetch(`${server.url}/pods`, { headers: { Authorization: "Bearer anything" } })).status).toBe(200);
    } finally {
      await server.stop();
    }
  });

  test("stop() closes the port", async () => {
    const { server } = await start();
    await server.stop();
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
  });

  test("a port already in use is a clear error", async () => {
    const { server } = await start();
    try {
      await expect(
        startAgentServer({ address: "127.0.0.1", port: server.port, view: new FakeView(), metrics: new AgentMetrics(), log: silent }),
      ).rejects.toThrow(`cannot listen on 127.0.0.1:${server.port}`);
    } finally {
      await server.stop();
    }
  });

  test("serves HTTPS with the given certificate and key", async () => {
    // A throwaway self-signed certificate for 127.0.0.1 (openssl comes with ca-certificates on Debian).
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "nodeagent-tls-"));
    const certFile = path.join(dir, "cert.pem");
    const keyFile = path.join(dir, "key.pem");
    const gen = Bun.spawnSync([
      "openssl",
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-days",
      "1",
      "-subj",
      "/CN=127.0.0.1",
      "-addext",
      "subjectAltName=IP:127.0.0.1",
      "-keyout",
      keyFile,
      "-out",
      certFile,
    ]);
    expect(gen.exitCode).toBe(0);
    const server = await startAgentServer({
      address: "127.0.0.1",
      port: 0,
      tls: { certFile, keyFile },
      view: new FakeView(),
      metrics: new AgentMetrics(),
      log: silent,
    });
    try {
      expect(server.url).toBe(`https://127.0.0.1:${server.port}`);
      // The TLS handshake verified; /healthz is behind the gate like every path.
      const res = await fetch(`${server.url}/healthz`, { tls: { ca: fs.readFileSync(certFile, "utf8") } });
      expect(res.status).toBe(401);
      expect(await res.text()).toBe("Unauthorized");
    } finally {
      await server.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test("missing TLS files are a clear error", async () => {
    await expect(
      startAgentServer({
        address: "127.0.0.1",
        port: 0,
        tls: { certFile: "/nonexistent/cert.pem", keyFile: "/nonexistent/key.pem" },
        view: new FakeView(),
        metrics: new AgentMetrics(),
        log: silent,
      }),
    ).rejects.toThrow("cannot read the TLS certificate /nonexistent/cert.pem");
  });
});
