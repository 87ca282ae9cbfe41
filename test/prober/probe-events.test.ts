// The prober's events (k/k@1.24.1 pkg/kubelet/prober/prober.go): every counted attempt that fails
// is a Warning Unhealthy on the container, "<Type> probe failed: <output>", whatever the threshold.
import { describe, expect, test } from "bun:test";
import { ProbeManager, type RunningContainer } from "../../src/prober/manager";
import { FakeClock } from "../../src/util/clock";
import { FakeRecorder } from "../fakes/events";
import { execProbe, FakeExec, probedPod } from "./fakes";

const T0 = Date.UTC(2026, 0, 1);
const running = (id: string): RunningContainer => ({ name: "app", id, startedAt: T0 });

describe("ProbeManager events", () => {
  test("each failed liveness attempt is Unhealthy on spec.containers{app}; successes record nothing", async () => {
    const clock = new FakeClock(T0);
    const exec = new FakeExec(clock);
    const events = new FakeRecorder();
    const manager = new ProbeManager({ runner: exec, clock, random: () => 0, execSlots: 4, events });
    const pod = probedPod("u1", { livenessProbe: execProbe({ periodSeconds: 1, failureThreshold: 3 }) });
    exec.queue("c1", { exit: 0 }, { exit: 1, stdout: "unhealthy\n" }, { exit: 1, stdout: "unhealthy\n" });
    manager.syncPod(pod, "10.0.0.1", [running("c1")]);
    await clock.advance(0);
    expect(events.events).toEqual([]);
    await clock.advance(2000);
    expect(events.lines()).toEqual([
      // The command's output as is, as the kubelet's exec prober hands it to the event.
      "Warning Unhealthy: Liveness probe failed: unhealthy\n",
      "Warning Unhealthy: Liveness probe failed: unhealthy\n",
    ]);
    expect(events.events[0]!.ref).toMatchObject({ kind: "Pod", name: "pod-u1", uid: "u1", fieldPath: "spec.containers{app}" });
    await manager.stop();
  });
});
