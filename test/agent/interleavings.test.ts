// A property test of the whole pod machinery (sync loop, pod workers, pod syncer, a real PLEG) on the
// fake runtime: random interleavings of add, update, delete and revert of a few static pods, with
// clock steps shorter and longer than their grace periods, must always end with the runtime running
// exactly what the source holds — each wanted pod once, in its wanted version, and nothing else.
// A revert within a grace period (X→Y→X) is the case the kubelet's restartRequested exists for.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod } from "kubernetes-types/core/v1";
import { Agent, SHUTDOWN_GRACE_MS } from "../../src/agent/agent";
import { POD_UID } from "../../src/cri/labels";
import { PodConfig } from "../../src/config/pod-config";
import { Pleg } from "../../src/pleg/pleg";
import { FakeClock, flushMicrotasks } from "../../src/util/clock";
import { createLogger } from "../../src/util/log";
import { seededRandom } from "../../src/util/random";
import { FakeRuntime } from "../fakes/runtime";
import { FakeSource } from "../fakes/seams";

const root = mkdtempSync(join(tmpdir(), "nodeagent-interleavings-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const NAMES = ["a", "b", "c"];
const GRACE = [1, 5, 30];

/** A static pod's version: its UID is a function of its content, as a manifest's hash is. */
function version(name: string, v: number): Pod {
  return {
    metadata: { name, namespace: "default", uid: `${name}-v${v}` },
    spec: {
      terminationGracePeriodSeconds: GRACE[v % GRACE.length],
      containers: [{ name: "app", image: "localhost/nodeagent/busybox:1.35", command: ["sleep", String(1000 + v)] }],
    },
  };
}

/** UIDs of the pods with a running app container, each as many times as it has one. */
function runningApps(rt: FakeRuntime): string[] {
  return [...rt.containers.values()]
    .filter((c) => c.state === "CONTAINER_RUNNING")
    .map((c) => c.labels[POD_UID] ?? "?")
    .sort();
}

async function run(
  seed: number,
  mode: "generic" | "evented",
): Promise<{ ops: string[]; want: string[]; got: string[]; listed: string[]; readySandboxes: string[] }> {
  const random = seededRandom(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const clock = new FakeClock();
  const rt = new FakeRuntime(clock);
  // A container takes part of its grace period to stop: terminations overlap the next operations.
  rt.stopTakesMs = (timeout) => Math.floor(random() * timeout * 1000);
  const log = createLogger("text", -1);
  // Evented: full relists only every 5 min, so a worker waiting for a read that only a full relist
  // would give stalls past the quiet period below and the seed fails.
  const pleg = new Pleg(rt, clock, { mode });
  const config = new PodConfig({ clock, log });
  const file = new FakeSource("file");
  const agent = new Agent({
    runtime: rt,
    pleg,
    config,
    sources: [file],
    clock,
    log,
    random,
    runtimeConfig: {
      podLogsRoot: join(root, `logs-${seed}`),
      podsDir: join(root, `pods-${seed}`),
      cgroupRoot: "nodeagent-unit-test",
      nodeName: "node-a",
      hostIP: "192.0.2.10",
    },
    node: async () => ({}),
  });
  const ac = new AbortController();
  const done = agent.run(ac.signal);
  const want = new Map<string, number>();
  const ops: string[] = [];
  const send = () => file.send([...want.entries()].map(([n, v]) => version(n, v)));
  send();
  for (let step = 0; step < 40; step++) {
    const r = random();
    if (r < 0.45) {
      const name = pick(NAMES);
      const prev = want.get(name);
      // Half of the version changes go back to a version seen before: the reverts.
      const v = prev !== undefined && random() < 0.5 ? Math.max(0, prev - 1) : Math.floor(random() * 3);
      want.set(name, v);
      ops.push(`${name}=v${v}`);
      send();
    } else if (r < 0.6) {
      const name = pick(NAMES);
      want.delete(name);
      ops.push(`-${name}`);
      send();
    } else {
      const ms = pick([0, 50, 300, 1000, 1500, 5000, 12_000, 40_000]);
      ops.push(`+${ms}ms`);
      await clock.advance(ms);
    }
    // Sometimes let the work started so far go on before the next operation, sometimes not.
    if (random() < 0.5) await flushMicrotasks(random() < 0.5 ? 1 : 20);
  }
  // Quiet: let every termination, removal and restart finish.
  // (Only time is advanced: a stop in progress waits on the clock, so waiting for idle here would not end.)
  for (let i = 0; i < 60; i++) await clock.advance(2000);
  const expected = [...want.entries()].map(([n, v]) => `${n}-v${v}`).sort();
  const listed = agent
    .pods()
    .filter((p) => p.status?.phase === "Running")
    .map((p) => p.metadata!.uid!)
    .sort();
  const readySandboxes = [...rt.sandboxes.values()]
    .filter((s) => s.state === "SANDBOX_READY")
    .map((s) => s.uid)
    .sort();
  ac.abort();
  await clock.advance(SHUTDOWN_GRACE_MS);
  await done;
  return { ops, want: expected, got: runningApps(rt), listed, readySandboxes };
}

describe.each(["generic", "evented"] as const)("random interleavings of add, update, delete and revert, %s PLEG", (mode) => {
  const seeds = Array.from({ length: 40 }, (_, i) => i + 1);
  test.each(seeds)("seed %i: the runtime ends running exactly what the source holds", async (seed) => {
    const r = await run(seed, mode);
    const why = `seed ${seed}, operations: ${r.ops.join(" ")}`;
    expect({ why, running: r.got }).toEqual({ why, running: r.want });
    expect({ why, listed: r.listed }).toEqual({ why, listed: r.want });
    expect({ why, sandboxes: r.readySandboxes }).toEqual({ why, sandboxes: r.want });
  });
});
