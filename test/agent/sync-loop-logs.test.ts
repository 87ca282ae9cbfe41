// The sync loop's own log lines: every dispatch at debug (which channel, which pods), nothing built
// or written at info, and a warning when housekeeping runs longer than expected (the kubelet's
// "Housekeeping took longer than expected", 1 s).
import { expect, test } from "bun:test";
import type { Pod } from "kubernetes-types/core/v1";
import { HOUSEKEEPING_WARNING_MS, SyncLoop, type SyncHandler } from "../../src/agent/sync-loop";
import type { ProbeUpdate } from "../../src/prober/types";
import { FakeClock } from "../../src/util/clock";
import { createLogger } from "../../src/util/log";

/** A FakeClock a handler can move forward from inside a synchronous call (advance() would fire timers). */
class SteppingClock extends FakeClock {
  extra = 0;
  override now(): number {
    return super.now() + this.extra;
  }
}

function loopWith(level: number, cleanupMs = 0) {
  const clock = new SteppingClock();
  const lines: Record<string, unknown>[] = [];
  const log = createLogger("json", level, (l) => void lines.push(JSON.parse(l)));
  const none = () => {};
  const handler: SyncHandler = {
    handlePodAdditions: none,
    handlePodUpdates: none,
    handlePodDeletions: none,
    handlePodRemoves: none,
    handlePodReconcile: none,
    handleProbeResult: none,
    handleObjectChange: none,
    handlePodSyncs: none,
    // A cleanup that takes cleanupMs of (fake) time, as a slow runtime call would.
    handlePodCleanups: () => void (clock.extra += cleanupMs),
  };
  const loop = new SyncLoop({ handler, duePods: () => ["u1", "u2"], clock, log });
  return { loop, lines };
}

const pod = (name: string): Pod => ({ metadata: { name, namespace: "ns", uid: `uid-${name}` } });
const probe = {
  podUid: "uid-a",
  namespace: "ns",
  podName: "a",
  containerName: "app",
  containerId: "c1",
  probeType: "liveness",
  result: "failure",
  reason: "",
  message: "",
} as ProbeUpdate;

test("every dispatch is logged at debug with its channel and pods", () => {
  const { loop, lines } = loopWith(4);
  loop.syncLoopIteration({ kind: "config", update: { op: "ADD", source: "file", pods: [pod("a"), pod("b")] } });
  loop.syncLoopIteration({
    kind: "pleg",
    event: { type: "ContainerStarted", pod: { uid: "uid-a", namespace: "ns", name: "a" }, containerName: "app", mode: "generic" } as never,
  });
  loop.syncLoopIteration({ kind: "probe", update: probe });
  loop.syncLoopIteration({ kind: "object", ref: { kind: "ConfigMap", namespace: "ns", name: "cm" } });
  loop.syncLoopIteration({ kind: "sync" });
  loop.syncLoopIteration({ kind: "housekeeping" });
  const strip = ({ time: _t, ...rest }: Record<string, unknown>) => rest;
  expect(lines.map(strip)).toEqual([
    { level: "debug", msg: "SyncLoop ADD", source: "file", pods: ["ns/a", "ns/b"] },
    { level: "debug", msg: "SyncLoop (PLEG): event for pod", pod: "ns/a", uid: "uid-a", event: "ContainerStarted", container: "app" },
    { level: "debug", msg: "SyncLoop (probe)", probe: "liveness", result: "failure", pod: "ns/a", uid: "uid-a", container: "app" },
    { level: "debug", msg: "SyncLoop (object): pods using it are synced", kind: "ConfigMap", object: "ns/cm" },
    { level: "debug", msg: "SyncLoop (SYNC) pods", total: 2, uids: ["u1", "u2"] },
    { level: "debug", msg: "SyncLoop (housekeeping)" },
    { level: "debug", msg: "SyncLoop (housekeeping) end" },
  ]);
});

test("at info the dispatches write nothing", () => {
  const { loop, lines } = loopWith(3);
  loop.syncLoopIteration({ kind: "config", update: { op: "UPDATE", source: "api", pods: [pod("a")] } });
  loop.syncLoopIteration({ kind: "sync" });
  loop.syncLoopIteration({ kind: "housekeeping" });
  expect(lines).toEqual([]);
});

test("housekeeping longer than expected is warned about with both durations; at the limit it is not", () => {
  const slow = loopWith(3, 1500);
  slow.loop.syncLoopIteration({ kind: "housekeeping" });
  expect(slow.lines).toMatchObject([{ level: "warn", msg: "housekeeping took longer than expected", expected: "1s", actual: "1.5s" }]);
  const onTime = loopWith(3, HOUSEKEEPING_WARNING_MS);
  onTime.loop.syncLoopIteration({ kind: "housekeeping" });
  expect(onTime.lines).toEqual([]);
});
