// Lifecycle hooks on the fake runtime (issue 18): postStart (exec, httpGet) right after StartContainer,
// the kubelet's FailedPostStartHook kill and PostStartHookError; preStop exec, httpGet and sleep within
// the grace period, their time taken off the stop's grace. httpGet hooks go to a real local server
// (a host-network pod, whose hooks dial the node's address, 127.0.0.1 here).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Container, Pod } from "kubernetes-types/core/v1";
import { Backoff } from "../../src/agent/backoff";
import { HandlerRunner } from "../../src/agent/lifecycle-handlers";
import { PodSyncer } from "../../src/agent/pod-sync";
import type { RuntimeConfigOptions } from "../../src/agent/runtime-config";
import { ApiRuntimeClasses, type RuntimeClassLookup } from "../../src/agent/runtime-class-manager";
import { FakeClock, flushMicrotasks } from "../../src/util/clock";
import { createLogger, type LogFields, type Logger, textFields } from "../../src/util/log";
import { FakeRuntime } from "../fakes/runtime";
import { relistFake as relist } from "./fixtures";
import { volumesFor } from "../fakes/volumes";
import { FakeRecorder } from "../fakes/events";

const base = mkdtempSync(join(tmpdir(), "nodeagent-hooks-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** A local server: every request's path and headers, answered 200 (or 500 under /fail). */
const requests: { path: string; headers: Record<string, string> }[] = [];
let server: ReturnType<typeof Bun.serve>;
beforeAll(() => {
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const url = new URL(req.url);
      requests.push({ path: url.pathname, headers: Object.fromEntries(req.headers.entries()) });
      return new Response("ok", { status: url.pathname.startsWith("/fail") ? 500 : 200 });
    },
  });
});
afterAll(() => server.stop(true));

let n = 0;
function options(): RuntimeConfigOptions {
  const root = join(base, String(++n));
  return { podLogsRoot: join(root, "logs"), podsDir: join(root, "pods"), cgroupRoot: "nodeagent-unit-test", nodeName: "node-a", hostIP: "127.0.0.1" };
}

function setup() {
  const clock = new FakeClock();
  const rt = new FakeRuntime(clock);
  const warnings: string[] = [];
  const quiet = createLogger("text", -999);
  const log = { ...quiet, warn: (m: string, f?: LogFields) => void warnings.push(m + textFields(f)) } as Logger;
  const o = options();
  const events = new FakeRecorder();
  const syncer = new PodSyncer({
    runtime: rt,
    clock,
    crashBackoff: new Backoff(clock),
    imageBackoff: new Backoff(clock),
    config: o,
    log,
    volumes: volumesFor(o, clock, log),
    events,
  });
  return { clock, rt, syncer, warnings, events };
}

function hookPod(lifecycle: Container["lifecycle"], opts: { grace?: number; hostNetwork?: boolean } = {}): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web", namespace: "default", uid: "uid-hooks" },
    spec: {
      restartPolicy: "Always",
      hostNetwork: opts.hostNetwork,
      terminationGracePeriodSeconds: opts.grace ?? 30,
      containers: [
        {
          name: "app",
          image: "localhost/nodeagent/busybox:1.35",
          command: ["sleep", "1000"],
          lifecycle,
          ports: [{ name: "http", containerPort: server.port! }],
        },
      ],
    },
  };
}

const methods = (rt: FakeRuntime) => rt.calls.map((c) => c.method).filter((m) => ["startContainer", "execSync", "stopContainer"].includes(m));

describe("postStart", () => {
  test("exec runs through ExecSync right after StartContainer, with no timeout; the container is started only once it has returned", async () => {
    const { rt, syncer } = setup();
    const release = rt.hold("execSync");
    const sync = syncer.syncPod(hookPod({ postStart: { exec: { command: ["sh", "-c", "echo hi > /ready"] } } }), undefined);
    await flushMicrotasks();
    const [c] = rt.containersNamed("app");
    expect(c?.state).toBe("CONTAINER_RUNNING");
    expect(syncer.postStartRunning(c!.id)).toBe(true);
    release();
    const r = await sync;
    expect(syncer.postStartRunning(c!.id)).toBe(false);
    expect(r.waiting.size).toBe(0);
    expect(methods(rt)).toEqual(["startContainer", "execSync"]);
    expect(rt.callsOf("execSync")).toEqual([{ containerId: c!.id, cmd: ["sh", "-c", "echo hi > /ready"], timeoutSeconds: 0 }]);
  });

  test("the container is marked not started before StartContainer returns (a relist may see it running first)", async () => {
    const { rt, syncer } = setup();
    const release = rt.hold("startContainer");
    const sync = syncer.syncPod(hookPod({ postStart: { exec: { command: ["true"] } } }), undefined);
    for (let i = 0; i < 10 && rt.callsOf("startContainer").length === 0; i++) await flushMicrotasks();
    const id = rt.callsOf("startContainer")[0] as string;
    expect(syncer.postStartRunning(id)).toBe(true);
    release();
    await sync;
    expect(syncer.postStartRunning(id)).toBe(false);
  });

  test("a failing exec hook: FailedPostStartHook logged with the kubelet's message, the container killed, PostStartHookError", async () => {
    const { clock, rt, syncer, warnings, events } = setup();
    rt.execResult = { exitCode: 3, stdout: "", stderr: "no config" };
    const r = await syncer.syncPod(hookPod({ postStart: { exec: { command: ["sh", "-c", "exit 3"] } } }, { grace: 7 }), undefined);
    const message = `Exec lifecycle hook ([sh -c exit 3]) for Container "app" in Pod "web_default(uid-hooks)" failed - error: command 'sh -c exit 3' exited with 3: no config, message: "no config"`;
    expect(r.waiting.get("app")).toEqual({ reason: "PostStartHookError", message });
    expect(r.errors).toEqual([`app: PostStartHookError: ${message}`]);
    expect(warnings).toContain(`FailedPostStartHook pod=default/web container=app err=${JSON.stringify(message)}`);
    // The kubelet's events: the hook's failure, the kill it causes; no "Failed" start error.
    expect(events.lines().filter((l) => !/ (Created|Started|Pulled|Pulling):/.test(l))).toEqual([
      `Warning FailedPostStartHook: ${message}`,
      "Normal Killing: FailedPostStartHook",
    ]);
    const [c] = rt.containersNamed("app");
    expect(c?.state).toBe("CONTAINER_EXITED");
    expect(rt.callsOf("stopContainer")).toEqual([{ id: c!.id, timeoutSeconds: 7 }]);
    // Never started: a relist that still sees it running must not report it started or ready.
    expect(syncer.postStartRunning(c!.id)).toBe(true);
    // A relist that started before the container was made does not prune it; a later one that misses it does.
    syncer.prunePostStart(new Set(), clock.now() - 1);
    expect(syncer.postStartRunning(c!.id)).toBe(true);
    syncer.prunePostStart(new Set(), clock.now() + 1);
    expect(syncer.postStartRunning(c!.id)).toBe(false);
  });

  test("the next sync restarts the container per restartPolicy (Always), hook and all", async () => {
    const { rt, syncer } = setup();
    rt.execResult = { exitCode: 1, stdout: "", stderr: "" };
    const pod = hookPod({ postStart: { exec: { command: ["false"] } } });
    await syncer.syncPod(pod, undefined);
    rt.execResult = { exitCode: 0, stdout: "", stderr: "" };
    const again = await syncer.syncPod(pod, await relist(rt, pod));
    expect(again.waiting.size).toBe(0);
    expect(rt.containersNamed("app").map((c) => c.state)).toEqual(["CONTAINER_EXITED", "CONTAINER_RUNNING"]);
    expect(rt.callsOf("execSync")).toHaveLength(2);
  });

  test("httpGet: scheme, the port by name, path and headers; the host defaults to the pod's address; any answer succeeds", async () => {
    const { rt, syncer, warnings } = setup();
    requests.length = 0;
    const pod = hookPod(
      { postStart: { httpGet: { path: "/fail/started", port: "http", scheme: "HTTP", httpHeaders: [{ name: "X-Hook", value: "post-start" }] } } },
      { hostNetwork: true },
    );
    const r = await syncer.syncPod(pod, undefined);
    expect(r.waiting.size).toBe(0);
    expect(warnings).toEqual([]);
    expect(requests.map((q) => [q.path, q.headers["x-hook"]])).toEqual([["/fail/started", "post-start"]]);
    expect(rt.containersNamed("app")[0]?.state).toBe("CONTAINER_RUNNING");
  });

  test("httpGet that cannot connect fails the hook with the kubelet's HTTP message", async () => {
    const { rt, syncer } = setup();
    const pod = hookPod({ postStart: { httpGet: { path: "/x", port: 1, host: "127.0.0.1" } } });
    const r = await syncer.syncPod(pod, undefined);
    expect(r.waiting.get("app")?.reason).toBe("PostStartHookError");
    expect(r.waiting.get("app")?.message).toMatch(
      /^HTTP lifecycle hook \(\/x\) for Container "app" in Pod "web_default\(uid-hooks\)" failed - error: Get "http:\/\/127\.0\.0\.1:1\/x": dial tcp 127\.0\.0\.1:1: connect: connection refused$/,
    );
    expect(rt.containersNamed("app")[0]?.state).toBe("CONTAINER_EXITED");
  });

  test("a tcpSocket hook (deprecated) is the kubelet's invalid handler: the hook fails", async () => {
    const { syncer } = setup();
    const r = await syncer.syncPod(hookPod({ postStart: { tcpSocket: { port: 80 } } }), undefined);
    expect(r.waiting.get("app")?.reason).toBe("PostStartHookError");
    expect(r.waiting.get("app")?.message).toStartWith("Cannot run handler: invalid handler: ");
  });
});

describe("preStop", () => {
  async function running(lifecycle: Container["lifecycle"], grace = 30, hostNetwork = false) {
    const s = setup();
    const pod = hookPod(lifecycle, { grace, hostNetwork });
    await s.syncer.syncPod(pod, undefined);
    return { ...s, pod, status: await relist(s.rt, pod) };
  }

  test("sleep delays the stop by its seconds, which come off the grace period", async () => {
    const { clock, rt, syncer, pod, status } = await running({ preStop: { sleep: { seconds: 5 } } });
    const kill = syncer.killPod(pod, status, undefined);
    await clock.advance(4_999);
    expect(rt.callsOf("stopContainer")).toEqual([]);
    await clock.advance(1);
    await kill;
    expect(rt.callsOf("stopContainer")).toEqual([{ id: rt.containersNamed("app")[0]!.id, timeoutSeconds: 25 }]);
  });

  test("a hook longer than the grace period is cut at its end; the stop still gets the 2 s minimum", async () => {
    const { clock, rt, syncer, pod, status, warnings } = await running({ preStop: { sleep: { seconds: 60 } } }, 10);
    const kill = syncer.killPod(pod, status, undefined);
    await clock.advance(10_000);
    await kill;
    expect(rt.callsOf("stopContainer")).toEqual([{ id: rt.containersNamed("app")[0]!.id, timeoutSeconds: 2 }]);
    expect(warnings.filter((w) => w.startsWith("FailedPreStopHook"))).toEqual([]);
  });

  test("httpGet is sent before StopContainer, to the pod's address and the named port", async () => {
    const { rt, syncer, pod, status } = await running({ preStop: { httpGet: { path: "/quit", port: "http" } } }, 30, true);
    requests.length = 0;
    const stopsBefore: number[] = [];
    const stop = rt.stopContainer.bind(rt);
    rt.stopContainer = async (id, t) => {
      stopsBefore.push(requests.length);
      return stop(id, t);
    };
    await syncer.killPod(pod, status, undefined);
    expect(requests.map((q) => q.path)).toEqual(["/quit"]);
    expect(stopsBefore).toEqual([1]);
  });

  test("a failing exec hook is logged as FailedPreStopHook and the container stops anyway", async () => {
    const { rt, syncer, pod, status, warnings, events } = await running({ preStop: { exec: { command: ["nginx", "-s", "quit"] } } });
    rt.execResult = { exitCode: 1, stdout: "", stderr: "nginx: not found" };
    await syncer.killPod(pod, status, undefined);
    expect(events.lines().slice(-2)).toEqual([
      "Normal Killing: Stopping container app",
      `Warning FailedPreStopHook: Exec lifecycle hook ([nginx -s quit]) for Container "app" in Pod "web_default(uid-hooks)" failed - error: command 'nginx -s quit' exited with 1: nginx: not found, message: "nginx: not found"`,
    ]);
    expect(warnings.filter((w) => w.startsWith("FailedPreStopHook "))).toEqual([
      `FailedPreStopHook pod=default/web container=app id=${status.containerStatuses[0]!.id.slice(0, 12)} err=${JSON.stringify(`Exec lifecycle hook ([nginx -s quit]) for Container "app" in Pod "web_default(uid-hooks)" failed - error: command 'nginx -s quit' exited with 1: nginx: not found, message: "nginx: not found"`)}`,
    ]);
    expect(rt.containersNamed("app")[0]?.state).toBe("CONTAINER_EXITED");
    // The exec is bounded by the grace period in the runtime too.
    expect((rt.callsOf("execSync")[0] as { timeoutSeconds: number }).timeoutSeconds).toBe(30);
  });
});

describe("HandlerRunner", () => {
  test("sleep cut short by the caller's bound is a timed-out failure with the kubelet's sleep message", async () => {
    const clock = new FakeClock();
    const runner = new HandlerRunner(new FakeRuntime(clock), clock);
    const pod = hookPod(undefined);
    const done = runner.run({ pod, container: pod.spec!.containers[0]!, containerId: "c1", podIP: "" }, { sleep: { seconds: 10 } }, 3000);
    await clock.advance(3000);
    expect(await done).toEqual({
      message: `Sleep lifecycle hook (10) for Container "app" in Pod "web_default(uid-hooks)" failed - error: container terminated before sleep hook finished`,
      timedOut: true,
    });
  });
});

describe("runtimeClassName", () => {
  class HandlerRuntime extends FakeRuntime {
    handlers: string[] = [];
    override async runPodSandbox(config: Parameters<FakeRuntime["runPodSandbox"]>[0], runtimeHandler = ""): Promise<string> {
      this.handlers.push(runtimeHandler);
      return super.runPodSandbox(config, runtimeHandler);
    }
  }
  function setupWith(runtimeClasses?: RuntimeClassLookup) {
    const clock = new FakeClock();
    const rt = new HandlerRuntime(clock);
    const log = createLogger("text", -999);
    const o = { ...options(), ...(runtimeClasses ? { runtimeClasses } : {}) };
    return {
      clock,
      rt,
      syncer: new PodSyncer({
        runtime: rt,
        clock,
        crashBackoff: new Backoff(clock),
        imageBackoff: new Backoff(clock),
        config: o,
        log,
        volumes: volumesFor(o, clock, log),
      }),
    };
  }
  const classPod = (name?: string): Pod => {
    const p = hookPod(undefined);
    if (name) p.spec!.runtimeClassName = name;
    return p;
  };
  const notFound = Object.assign(new Error("HTTP 404"), { statusCode: 404 });
  const api = (classes: Record<string, string>) => {
    const gets: string[] = [];
    const client = {
      getJson: async <T>(path: string): Promise<T> => {
        gets.push(path);
        const name = decodeURIComponent(path.split("/").pop()!);
        if (!(name in classes)) throw notFound;
        return { apiVersion: "node.k8s.io/v1", kind: "RuntimeClass", metadata: { name }, handler: classes[name] } as T;
      },
    };
    return { gets, client };
  };

  test("the RuntimeClass's handler is the sandbox's runtime handler; no runtimeClassName is the default", async () => {
    const { client, gets } = api({ alt: "runc-alt" });
    const { rt, syncer } = setupWith(new ApiRuntimeClasses(client, new FakeClock()));
    await syncer.syncPod(classPod("alt"), undefined);
    const other = { ...classPod(), metadata: { name: "other", namespace: "default", uid: "uid-other" } };
    await syncer.syncPod(other, undefined);
    expect(rt.handlers).toEqual(["runc-alt", ""]);
    expect(gets).toEqual(["/apis/node.k8s.io/v1/runtimeclasses/alt"]);
  });

  test("a RuntimeClass that does not exist: no sandbox, the containers wait with the lookup's error; it is asked again", async () => {
    const { client, gets } = api({});
    const { rt, syncer } = setupWith(new ApiRuntimeClasses(client, new FakeClock()));
    const r = await syncer.syncPod(classPod("gvisor"), undefined);
    expect(rt.sandboxes.size).toBe(0);
    expect(r.waiting.get("app")).toEqual({ reason: "ContainerCreating", message: 'Failed to create pod sandbox: runtimeclass.node.k8s.io "gvisor" not found' });
    expect(r.errors).toHaveLength(1);
    await syncer.syncPod(classPod("gvisor"), undefined);
    expect(gets).toHaveLength(2); // a miss is not cached
  });

  test("a found handler is cached for its TTL", async () => {
    const { client, gets } = api({ alt: "runc-alt" });
    const clock = new FakeClock();
    const classes = new ApiRuntimeClasses(client, clock, 60_000);
    expect(await classes.lookupRuntimeHandler("alt")).toBe("runc-alt");
    expect(await classes.lookupRuntimeHandler("alt")).toBe("runc-alt");
    expect(gets).toHaveLength(1);
    await clock.advance(60_000);
    await classes.lookupRuntimeHandler("alt");
    expect(gets).toHaveLength(2);
  });

  test("standalone (no API server): a pod naming a RuntimeClass waits and says why", async () => {
    const { rt, syncer } = setupWith();
    const r = await syncer.syncPod(classPod("alt"), undefined);
    expect(rt.sandboxes.size).toBe(0);
    expect(r.waiting.get("app")?.message).toBe(
      "Failed to create pod sandbox: failed to lookup RuntimeClass alt: RuntimeClasses are read from the API server, and the agent runs without --kubeconfig",
    );
  });
});
