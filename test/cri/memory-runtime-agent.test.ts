// The whole agent (sync loop, pod workers, PodSyncer, the PLEG in auto mode) over a MemoryRuntime on a
// fake clock: the runtime's event stream puts the PLEG in evented mode, and the events alone (no full
// relist comes within these tests' minutes) bring pods to Running after the start latency and a Job's
// pod to Succeeded when its exit-after passes. What `nodeagent hollow` runs, one node of it.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod } from "kubernetes-types/core/v1";
import { Agent } from "../../src/agent/agent";
import { PodConfig } from "../../src/config";
import { MemoryRuntime } from "../../src/cri/memory-runtime";
import { Pleg } from "../../src/pleg/pleg";
import { FakeClock, flushMicrotasks } from "../../src/util/clock";
import { createLogger } from "../../src/util/log";
import { FakeSource } from "../fakes/seams";

const root = mkdtempSync(join(tmpdir(), "nodeagent-memory-runtime-test-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function pod(name: string, o: { annotations?: Record<string, string>; restartPolicy?: "Always" | "Never" } = {}): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "default", uid: `uid-${name}`, annotations: o.annotations ?? {} },
    spec: {
      restartPolicy: o.restartPolicy ?? "Always",
      containers: [{ name: "app", image: "registry.k8s.io/pause:3.10", readinessProbe: { exec: { command: ["true"] }, periodSeconds: 10 } }],
    },
  };
}

async function agentOn(rt: MemoryRuntime, clock: FakeClock) {
  const log = createLogger("text", -1);
  const config = new PodConfig({ clock, log });
  const pleg = new Pleg(rt, clock, { mode: "auto" });
  const agent = new Agent({
    runtime: rt,
    pleg,
    config,
    sources: [new FakeSource("file")],
    random: () => 0,
    clock,
    log,
    runtimeConfig: {
      podLogsRoot: join(root, "logs"),
      podsDir: join(root, "pods"),
      cgroupRoot: "nodeagent-unit-test",
      nodeName: "hollow-0",
      hostIP: "192.0.2.10",
    },
    node: async () => ({}),
    runtimeName: "nodeagent-memory",
  });
  const ac = new AbortController();
  const done = agent.run(ac.signal);
  const advance = async (ms: number) => {
    for (let t = 0; t < ms; t += 250) await clock.advance(Math.min(250, ms - t));
    await flushMicrotasks();
  };
  const status = (name: string) => agent.pods().find((p) => p.metadata?.name === name)?.status;
  const stop = async () => {
    ac.abort();
    await clock.advance(0);
    await done;
  };
  return { agent, pleg, config, advance, status, stop };
}

test("an agent over the memory runtime: evented PLEG, pods Running after the start latency, a Job's pod Succeeded after its exit-after", async () => {
  const clock = new FakeClock();
  const rt = new MemoryRuntime({ clock, startLatencyMs: 2000 });
  const a = await agentOn(rt, clock);
  await a.advance(1000);
  expect(a.pleg.mode).toBe("evented");
  expect(rt.eventStreams).toBe(1);

  a.config.apply({
    source: "file",
    pods: [pod("web"), pod("job", { restartPolicy: "Never", annotations: { "hollow.nodeagent.io/exit-after": "30s", "hollow.nodeagent.io/exit-code": "0" } })],
    errors: [],
  });
  await a.advance(1000);
  // The sandbox takes 2 s, then the container 2 s more: nothing runs yet.
  expect(a.status("web")?.phase).toBe("Pending");
  await a.advance(4000);
  const web = a.status("web")!;
  expect(web.phase).toBe("Running");
  expect(web.podIP).toMatch(/^10\.88\.0\.\d+$/);
  expect(web.containerStatuses?.[0]?.state?.running).toBeDefined();
  expect(web.containerStatuses?.[0]?.containerID).toMatch(/^nodeagent-memory:\/\/[0-9a-f]{64}$/);
  // The exec readiness probe passes on the memory runtime.
  await a.advance(11_000);
  expect(a.status("web")?.conditions?.find((c) => c.type === "Ready")?.status).toBe("True");
  expect(a.status("job")?.phase).toBe("Running");
  await a.advance(20_000);
  const job = a.status("job")!;
  expect(job.phase).toBe("Succeeded");
  expect(job.containerStatuses?.[0]?.state?.terminated).toMatchObject({ exitCode: 0, reason: "Completed" });
  // All of it came by the events: the PLEG's full relist (every 300 s) ran only when it started.
  expect(a.pleg.mode).toBe("evented");
  expect(a.pleg.relistStats.relists).toBe(1);
  expect(a.status("web")?.phase).toBe("Running");
  await a.stop();
});
