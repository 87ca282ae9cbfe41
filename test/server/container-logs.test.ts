// GET /containerLogs/{ns}/{pod}/{container}: the kubelet's answers (bodies word for word), which
// instance is read, streaming with follow, and a client that goes away.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod } from "kubernetes-types/core/v1";
import { FakeClock, flushMicrotasks } from "../../src/util/clock";
import { createHandler } from "../../src/server/server";
import { serveContainerLogs, type ContainerLogsContext } from "../../src/server/container-logs";
import type { Caller } from "../../src/server/auth";
import { ANONYMOUS_USER, PUSH_TOKEN_USER } from "../../src/server/authn";

const PUSH_TOKEN_CALLER: Caller = { user: PUSH_TOKEN_USER, redacted: false };
/** The anonymous read-only view (--anonymous-read-only) the gate lets in for GETs. */
const READ_ONLY_VIEW: Caller = { user: ANONYMOUS_USER, redacted: true };
import { FakeAgentView } from "../fakes/agent-view";
import { FakeLogFiles } from "../fakes/log-files";

const silent = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {} };
const LOG = "/logs/default_web_uid-web/app/1.log";
const PREV = "/logs/default_web_uid-web/app/0.log";
const line = (s: number, text: string, stream = "stdout") => `2026-01-01T00:00:0${s}.000000000Z ${stream} F ${text}\n`;

function webPod(status: Pod["status"]): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { namespace: "default", name: "web", uid: "uid-web" },
    spec: { containers: [{ name: "app", image: "busybox" }], initContainers: [{ name: "init", image: "busybox" }] },
    status,
  };
}

const running = (): Pod["status"] => ({
  phase: "Running",
  containerStatuses: [
    {
      name: "app",
      image: "busybox",
      imageID: "",
      ready: true,
      restartCount: 1,
      containerID: "containerd://c1",
      state: { running: { startedAt: "2026-01-01T00:00:00Z" } },
      lastState: { terminated: { exitCode: 1, containerID: "containerd://c0" } },
    },
  ],
});

function setup(status: Pod["status"] = running()) {
  const view = new FakeAgentView();
  view.podList = [webPod(status)];
  view.containers.set("c1", { path: LOG, running: true });
  view.containers.set("c0", { path: PREV, running: false });
  const files = new FakeLogFiles();
  files.append(LOG, line(1, "one") + line(2, "two", "stderr") + line(3, "three"));
  files.append(PREV, line(1, "previous instance"));
  const clock = new FakeClock();
  const ctx: ContainerLogsContext = { view, log: silent, clock, files };
  const get = (path: string, caller: Caller = PUSH_TOKEN_CALLER, signal?: AbortSignal) =>
    serveContainerLogs(new Request(`http://agent${path}`, { signal }), path.split("?")[0]!.split("/").slice(1), caller, ctx);
  return { view, files, clock, ctx, get };
}

describe("GET /containerLogs: what is read", () => {
  test("the running container's log, stdout and stderr interleaved, as text/plain", async () => {
    const { get } = setup();
    const r = await get("/containerLogs/default/web/app");
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(await r.text()).toBe("one\ntwo\nthree\n");
  });

  test("tailLines, the legacy tail, timestamps, limitBytes", async () => {
    const { get } = setup();
    expect(await (await get("/containerLogs/default/web/app?tailLines=1")).text()).toBe("three\n");
    expect(await (await get("/containerLogs/default/web/app?tail=2")).text()).toBe("two\nthree\n");
    expect(await (await get("/containerLogs/default/web/app?tail=all")).text()).toBe("one\ntwo\nthree\n");
    expect(await (await get("/containerLogs/default/web/app?tailLines=1&timestamps=true")).text()).toBe("2026-01-01T00:00:03.000000000Z three\n");
    expect(await (await get("/containerLogs/default/web/app?limitBytes=5")).text()).toBe("one\nt");
  });

  test("previous: the last terminated instance's log (lastState.terminated.containerID)", async () => {
    const { get } = setup();
    expect(await (await get("/containerLogs/default/web/app?previous=true")).text()).toBe("previous instance\n");
  });

  test("waiting after an exit (CrashLoopBackOff): the exited instance's log", async () => {
    const { get } = setup({
      containerStatuses: [
        {
          name: "app",
          image: "",
          imageID: "",
          ready: false,
          restartCount: 0,
          state: { waiting: { reason: "CrashLoopBackOff" } },
          lastState: { terminated: { exitCode: 1, containerID: "containerd://c0" } },
        },
      ],
    });
    expect(await (await get("/containerLogs/default/web/app")).text()).toBe("previous instance\n");
  });
});

describe("GET /containerLogs: the kubelet's refusals, word for word", () => {
  const cases: Array<[string, string, Pod["status"] | undefined, number, string]> = [
    ["an undecodable integer", "/containerLogs/default/web/app?tailLines=x", undefined, 400, '{"message": "Unable to decode query."}'],
    ["an undecodable time", "/containerLogs/default/web/app?sinceTime=yesterday", undefined, 400, '{"message": "Unable to decode query."}'],
    ["a negative tailLines", "/containerLogs/default/web/app?tailLines=-1", undefined, 422, '{"message": "Invalid request."}'],
    ["limitBytes 0", "/containerLogs/default/web/app?limitBytes=0", undefined, 422, '{"message": "Invalid request."}'],
    [
      "sinceSeconds and sinceTime",
      "/containerLogs/default/web/app?sinceSeconds=5&sinceTime=2026-01-01T00:00:00Z",
      undefined,
      422,
      '{"message": "Invalid request."}',
    ],
    ["no such pod", "/containerLogs/default/nope/app", undefined, 404, 'pod "nope" does not exist'],
    ["the pod in another namespace", "/containerLogs/other/web/app", undefined, 404, 'pod "web" does not exist'],
    ["no such container", "/containerLogs/default/web/db", undefined, 404, 'container "db" not found in pod "web"'],
    ["an empty container name", "/containerLogs/default/web/", undefined, 400, '{"message": "Missing container name."}'],
    [
      "not started yet",
      "/containerLogs/default/web/app",
      { containerStatuses: [{ name: "app", image: "", imageID: "", ready: false, restartCount: 0, state: { waiting: { reason: "ContainerCreating" } } }] },
      400,
      'container "app" in pod "web" is waiting to start: ContainerCreating',
    ],
    [
      "the image cannot be pulled",
      "/containerLogs/default/web/app",
      { containerStatuses: [{ name: "app", image: "", imageID: "", ready: false, restartCount: 0, state: { waiting: { reason: "ErrImagePull" } } }] },
      400,
      'container "app" in pod "web" is waiting to start: image can\'t be pulled',
    ],
    ["no status yet (an init container not reached)", "/containerLogs/default/web/init", undefined, 400, 'container "init" in pod "web" is not available'],
    [
      "no previous instance",
      "/containerLogs/default/web/app?previous=1",
      { containerStatuses: [{ name: "app", image: "", imageID: "", ready: true, restartCount: 0, containerID: "containerd://c1", state: { running: {} } }] },
      400,
      'previous terminated container "app" in pod "web" not found',
    ],
  ];
  for (const [what, path, status, code, body] of cases) {
    test(`${what}: ${code} ${body}`, async () => {
      const { get } = setup(status ?? running());
      const r = await get(path);
      expect(r.status).toBe(code);
      expect(await r.text()).toBe(body);
    });
  }

  test("a container the runtime no longer knows: 400 unable to retrieve container logs", async () => {
    const { get, view } = setup();
    view.containers.delete("c1");
    const r = await get("/containerLogs/default/web/app");
    expect(r.status).toBe(400);
    expect(await r.text()).toBe("unable to retrieve container logs for containerd://c1");
  });

  test("a log file that is gone: 400 failed to open log file", async () => {
    const { get, view } = setup();
    view.containers.set("c1", { path: "/logs/missing.log", running: true });
    const r = await get("/containerLogs/default/web/app");
    expect(r.status).toBe(400);
    expect(await r.text()).toStartWith('failed to open log file "/logs/missing.log": ENOENT');
  });

  test("only GET", async () => {
    const { ctx } = setup();
    const r = await serveContainerLogs(
      new Request("http://agent/containerLogs/default/web/app", { method: "POST" }),
      ["containerLogs", "default", "web", "app"],
      PUSH_TOKEN_CALLER,
      ctx,
    );
    expect(r.status).toBe(405);
    expect(r.headers.get("allow")).toBe("GET");
  });
});

describe("GET /containerLogs: who may read", () => {
  test("the anonymous read-only view (--anonymous-read-only) gets 403: logs are not the redacted view", async () => {
    const { get } = setup();
    const r = await get("/containerLogs/default/web/app", READ_ONLY_VIEW);
    expect(r.status).toBe(403);
    expect(await r.text()).toContain("anonymous read-only view");
  });

  test("a caller the gate let in (not the read-only view) reads", async () => {
    const { get } = setup();
    expect((await get("/containerLogs/default/web/app", { user: { name: "jane", groups: [] }, redacted: false })).status).toBe(200);
  });

  test("through the server's router: the push token is checked first (401 without it), then the log is served", async () => {
    const dir = mkdtempSync(join(tmpdir(), "container-logs-"));
    try {
      mkdirSync(join(dir, "app"));
      const path = join(dir, "app", "0.log");
      writeFileSync(path, line(1, "from a real file"));
      const view = new FakeAgentView();
      view.podList = [webPod(running())];
      view.containers.set("c1", { path, running: false });
      const handle = createHandler({ view, metrics: { render: async () => "", contentType: "text/plain" }, log: silent, token: "t0k3n" });
      expect((await handle(new Request("http://agent/containerLogs/default/web/app"))).status).toBe(401);
      const ok = await handle(new Request("http://agent/containerLogs/default/web/app", { headers: { Authorization: "Bearer t0k3n" } }));
      expect(ok.status).toBe(200);
      expect(await ok.text()).toBe("from a real file\n");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("GET /containerLogs?follow=true over a socket", () => {
  let server: ReturnType<typeof Bun.serve> | undefined;
  afterEach(() => {
    server?.stop(true);
    server = undefined;
  });

  function serve(ctx: ContainerLogsContext) {
    server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: (req) => serveContainerLogs(req, new URL(req.url).pathname.split("/").slice(1), PUSH_TOKEN_CALLER, ctx),
    });
    return `http://127.0.0.1:${server.port}`;
  }

  async function readUntil(reader: { read(): Promise<{ done: boolean; value?: Uint8Array }> }, got: { text: string }, want: string): Promise<void> {
    while (!got.text.includes(want)) {
      const r = await reader.read();
      if (r.done) throw new Error(`the stream ended before ${JSON.stringify(want)}; got ${JSON.stringify(got.text)}`);
      got.text += new TextDecoder().decode(r.value);
    }
  }

  test("lines written after the request arrive while the response is open; it ends when the container exits", async () => {
    const { ctx, files, view, clock } = setup();
    const base = serve(ctx);
    const res = await fetch(`${base}/containerLogs/default/web/app?follow=true&tailLines=1`);
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const got = { text: "" };
    await readUntil(reader, got, "three\n");
    files.append(LOG, line(4, "four"));
    await readUntil(reader, got, "four\n");
    expect(got.text).toBe("three\nfour\n");
    view.containers.set("c1", { path: LOG, running: false });
    files.append(LOG, line(5, "five, then exit"));
    await readUntil(reader, got, "five, then exit\n");
    // A second on, the runtime is asked again, says it exited, and the response ends.
    await clock.advance(1000);
    expect((await reader.read()).done).toBe(true);
  });

  test("a client that goes away: the reader stops, its watch and file are closed", async () => {
    const { ctx, files } = setup();
    const base = serve(ctx);
    const ac = new AbortController();
    const res = await fetch(`${base}/containerLogs/default/web/app?follow=true`, { signal: ac.signal });
    const reader = res.body!.getReader();
    await readUntil(reader, { text: "" }, "three\n");
    expect(files.liveWatches).toBe(1);
    expect(files.openHandles).toBe(1);
    ac.abort();
    await reader.cancel().catch(() => undefined);
    for (let i = 0; i < 200 && (files.liveWatches > 0 || files.openHandles > 0); i++) {
      await flushMicrotasks();
      await Bun.sleep(5);
    }
    expect(files.liveWatches).toBe(0);
    expect(files.openHandles).toBe(0);
  });
});
