import { describe, expect, test } from "bun:test";
import { createLogger } from "../../src/util/log";
import type { Event } from "kubernetes-types/core/v1";
import { EventBroadcaster } from "../../src/events/event-broadcaster";
import { EventRing } from "../../src/events/event-ring";
import { containerReference } from "../../src/events/object-ref";
import { EventSinkError, type EventPatch, type EventSink } from "../../src/events/types";
import { FakeClock, flushMicrotasks } from "../../src/util/clock";

const log = createLogger("text", -999);
const pod = { metadata: { name: "web", namespace: "prod", uid: "u-1" }, spec: { containers: [{ name: "app" }] } };

/** A sink that fails as told, and records every call. */
class ScriptedSink implements EventSink {
  calls: string[] = [];
  failures: EventSinkError[] = [];
  readonly ring = new EventRing();
  async create(e: Event): Promise<Event> {
    this.calls.push(`create ${e.reason} ${e.count}`);
    const f = this.failures.shift();
    if (f) throw f;
    return this.ring.create(e);
  }
  async patch(e: Event, p: EventPatch): Promise<Event> {
    this.calls.push(`patch ${e.reason} ${p.count}`);
    const f = this.failures.shift();
    if (f) throw f;
    return this.ring.patch(e, p);
  }
}

const dropped: string[] = [];

function setup(queueLength?: number) {
  const clock = new FakeClock();
  dropped.length = 0;
  const b = new EventBroadcaster({
    clock,
    log,
    random: () => 0.5,
    onDrop: (sink, reason) => dropped.push(`${sink} ${reason}`),
    ...(queueLength ? { queueLength } : {}),
  });
  const sink = new ScriptedSink();
  b.startRecordingToSink("api", sink);
  const recorder = b.newRecorder({ component: "kubelet", host: "node-1" });
  return { clock, b, sink, recorder };
}

describe("EventBroadcaster", () => {
  test("pods that come and go: forgetObject on removal returns the correlators to their baseline; another pod's state stays", async () => {
    const { b, sink, recorder } = setup();
    recorder.event(containerReference(pod, "app"), "Warning", "BackOff", "Back-off restarting failed container");
    await b.idle();
    const baseline = b.correlatorSize();
    expect(baseline).toBeGreaterThan(0);
    for (let wave = 0; wave < 20; wave++) {
      const uids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const p = { metadata: { name: `push-${wave}-${i}`, namespace: "default", uid: `uid-${wave}-${i}` }, spec: { containers: [{ name: "app" }] } };
        uids.push(p.metadata.uid);
        for (const reason of ["Pulled", "Created", "Started", "Killing"])
          recorder.event(containerReference(p, "app"), "Normal", reason, `${reason} container app`);
      }
      await b.idle();
      expect(b.correlatorSize()).toBeGreaterThan(baseline);
      for (const uid of uids) b.forgetObject(uid);
    }
    expect(b.correlatorSize()).toBe(baseline);
    // The pod still on the node is still a repeat.
    recorder.event(containerReference(pod, "app"), "Warning", "BackOff", "Back-off restarting failed container");
    await b.idle();
    expect(sink.calls.at(-1)).toBe("patch BackOff 2");
  });

  test("event() returns before the sink is written; a repeat is a patch with count 2", async () => {
    const { b, sink, recorder } = setup();
    recorder.event(containerReference(pod, "app"), "Warning", "BackOff", "Back-off restarting failed container");
    expect(sink.calls).toEqual([]);
    await b.idle();
    recorder.event(containerReference(pod, "app"), "Warning", "BackOff", "Back-off restarting failed container");
    await b.idle();
    expect(sink.calls).toEqual(["create BackOff 1", "patch BackOff 2"]);
    const [stored] = sink.ring.list();
    expect(stored!.count).toBe(2);
    expect(stored!.involvedObject.fieldPath).toBe("spec.containers{app}");
    expect(stored!.reportingComponent).toBe("kubelet");
  });

  test("a transport failure is retried 10 s later (the first wait randomised); a refusal is not", async () => {
    const { clock, b, sink, recorder } = setup();
    sink.failures.push(new EventSinkError("transport", "connection refused"), new EventSinkError("transport", "connection refused"));
    recorder.event(containerReference(pod, "app"), "Normal", "Pulled", "x");
    await flushMicrotasks();
    expect(sink.calls).toEqual(["create Pulled 1"]);
    await clock.advance(5_000); // 10 s × random 0.5
    expect(sink.calls.length).toBe(2);
    await clock.advance(9_999);
    expect(sink.calls.length).toBe(2);
    await clock.advance(1);
    expect(sink.calls.length).toBe(3);
    expect(sink.ring.list().map((e) => e.reason)).toEqual(["Pulled"]);

    sink.failures.push(new EventSinkError("rejected", "403: forbidden"));
    recorder.event(containerReference(pod, "app"), "Normal", "Created", "Created container app");
    await b.idle();
    await clock.advance(60_000);
    expect(sink.calls.filter((c) => c.includes("Created"))).toEqual(["create Created 1"]);
    expect(b.drops().api!.failed).toBe(1);
  });

  test("a patch of an event the sink no longer has creates it again", async () => {
    const { b, sink, recorder } = setup();
    recorder.event(containerReference(pod, "app"), "Warning", "BackOff", "m");
    await b.idle();
    sink.failures.push(new EventSinkError("notFound", "gone"));
    recorder.event(containerReference(pod, "app"), "Warning", "BackOff", "m");
    await b.idle();
    expect(sink.calls).toEqual(["create BackOff 1", "patch BackOff 2", "create BackOff 2"]);
  });

  test("a full queue drops and counts, never blocks", async () => {
    const { b, sink, recorder } = setup(3);
    sink.failures.push(new EventSinkError("transport", "down"));
    for (let i = 0; i < 10; i++) recorder.event(containerReference(pod, "app"), "Normal", `R${i}`, "m");
    // The worker starts after the caller's turn: three queued, seven dropped, nothing waited for.
    expect(b.drops().api!.queueFull).toBe(7);
    b.shutdown();
  });

  test("the spam filter's drops are counted", async () => {
    const { b, recorder } = setup();
    for (let i = 0; i < 30; i++) recorder.event(containerReference(pod, "app"), "Normal", `R${i}`, "m");
    await b.idle();
    expect(b.drops().api!.spam).toBe(5);
    expect(dropped.filter((d) => d === "api spam")).toHaveLength(5);
  });
});

describe("EventRing", () => {
  test("keeps the newest events up to its size; a patch of one pushed out is notFound", async () => {
    const ring = new EventRing(2);
    const mk = (name: string): Event => ({ metadata: { name, namespace: "default" }, involvedObject: {}, count: 1 });
    await ring.create(mk("a"));
    await ring.create(mk("b"));
    await ring.create(mk("c"));
    expect(ring.list().map((e) => e.metadata.name)).toEqual(["b", "c"]);
    expect(ring.patch(mk("a"), { count: 2, lastTimestamp: "t", message: "m" })).rejects.toBeInstanceOf(EventSinkError);
    const p = await ring.patch(mk("b"), { count: 2, lastTimestamp: "t", message: "m" });
    expect(p.count).toBe(2);
  });
});
