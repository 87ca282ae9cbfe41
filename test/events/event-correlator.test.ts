import { describe, expect, test } from "bun:test";
import type { Event } from "kubernetes-types/core/v1";
import { EventCorrelator } from "../../src/events/event-correlator";
import { makeEvent } from "../../src/events/event-broadcaster";
import { COMBINED_PREFIX } from "../../src/events/event-aggregator";
import { containerReference, nodeReference, podReference } from "../../src/events/object-ref";
import { FakeClock } from "../../src/util/clock";
import type { Pod } from "kubernetes-types/core/v1";

const SOURCE = { component: "kubelet", host: "node-1" };
const pod: Pod = { metadata: { name: "web", namespace: "prod", uid: "u-1" }, spec: { containers: [{ name: "app" }], initContainers: [{ name: "setup" }] } };

let seq = 0;
function ev(clock: FakeClock, reason: string, message: string, ref = podReference(pod), type: "Normal" | "Warning" = "Normal"): Event {
  return makeEvent(ref, type, reason, message, SOURCE, clock.now(), seq++);
}

describe("object references", () => {
  test("a container's fieldPath is spec.containers{name}, an init container's spec.initContainers{name}", () => {
    expect(containerReference(pod, "app")).toEqual({
      kind: "Pod",
      apiVersion: "v1",
      namespace: "prod",
      name: "web",
      uid: "u-1",
      fieldPath: "spec.containers{app}",
    });
    expect(containerReference(pod, "setup").fieldPath).toBe("spec.initContainers{setup}");
  });
  test("the Node's reference has its name as UID and no namespace; its events land in default", () => {
    const e = makeEvent(nodeReference("node-1"), "Normal", "Starting", "Starting kubelet.", SOURCE, Date.UTC(2026, 0, 1));
    expect(e.involvedObject).toEqual({ kind: "Node", name: "node-1", uid: "node-1", namespace: "" });
    expect(e.metadata.namespace).toBe("default");
    expect(e.metadata.name).toBe(`node-1.${(BigInt(Date.UTC(2026, 0, 1)) * 1_000_000n).toString(16)}`);
    expect(e.source).toEqual({ component: "kubelet", host: "node-1" });
    expect(e.count).toBe(1);
    expect(e.firstTimestamp).toBe("2026-01-01T00:00:00Z");
  });
});

describe("EventCorrelator", () => {
  test("the same event again is a repeat: the first one's name, count+1, a patch of count, lastTimestamp and message", async () => {
    const clock = new FakeClock();
    const c = new EventCorrelator({ clock });
    const first = c.correlate(ev(clock, "BackOff", "Back-off restarting failed container"));
    expect(first.skip).toBe(false);
    expect(first.patch).toBeUndefined();
    c.updateState({ ...first.event, metadata: { ...first.event.metadata, resourceVersion: "7" } });
    await clock.advance(30_000);
    const second = c.correlate(ev(clock, "BackOff", "Back-off restarting failed container"));
    expect(second.event.metadata.name).toBe(first.event.metadata.name);
    expect(second.event.metadata.resourceVersion).toBe("7");
    expect(second.event.count).toBe(2);
    expect(second.event.firstTimestamp).toBe(first.event.firstTimestamp);
    expect(second.patch).toEqual({ count: 2, lastTimestamp: "2026-01-01T00:00:30Z", message: "Back-off restarting failed container" });
    const third = c.correlate(ev(clock, "BackOff", "Back-off restarting failed container"));
    expect(third.patch?.count).toBe(3);
  });

  test("a different message or fieldPath is a different event", () => {
    const clock = new FakeClock();
    const c = new EventCorrelator({ clock });
    const a = c.correlate(ev(clock, "Started", "Started container app", containerReference(pod, "app")));
    const b = c.correlate(ev(clock, "Started", "Started container setup", containerReference(pod, "setup")));
    expect(b.patch).toBeUndefined();
    expect(b.event.count).toBe(1);
    expect(a.event.metadata.name).not.toBe(b.event.metadata.name);
  });

  test("the 10th similar event with a different message within 10 minutes becomes a combined event; later ones repeat it", async () => {
    const clock = new FakeClock();
    const c = new EventCorrelator({ clock });
    for (let i = 1; i <= 9; i++) {
      const r = c.correlate(ev(clock, "Unhealthy", `Liveness probe failed: try ${i}`, podReference(pod), "Warning"));
      expect(r.event.message).toBe(`Liveness probe failed: try ${i}`);
      await clock.advance(60_000);
    }
    const tenth = c.correlate(ev(clock, "Unhealthy", "Liveness probe failed: try 10", podReference(pod), "Warning"));
    expect(tenth.event.message).toBe(`${COMBINED_PREFIX}Liveness probe failed: try 10`);
    expect(tenth.event.count).toBe(1);
    expect(tenth.patch).toBeUndefined();
    const eleventh = c.correlate(ev(clock, "Unhealthy", "Liveness probe failed: try 11", podReference(pod), "Warning"));
    expect(eleventh.event.metadata.name).toBe(tenth.event.metadata.name);
    expect(eleventh.patch).toEqual({ count: 2, lastTimestamp: expect.any(String), message: `${COMBINED_PREFIX}Liveness probe failed: try 11` });
  });

  test("similar events more than 10 minutes apart start counting again", async () => {
    const clock = new FakeClock();
    const c = new EventCorrelator({ clock });
    for (let i = 1; i <= 9; i++) c.correlate(ev(clock, "Unhealthy", `m${i}`));
    await clock.advance(600_001);
    const r = c.correlate(ev(clock, "Unhealthy", "m10"));
    expect(r.event.message).toBe("m10");
  });

  test("the spam filter: 25 events per object, then one per 5 minutes", async () => {
    const clock = new FakeClock();
    const c = new EventCorrelator({ clock });
    const results = Array.from({ length: 26 }, (_, i) => c.correlate(ev(clock, `Reason${i}`, "m")));
    expect(results.slice(0, 25).every((r) => !r.skip)).toBe(true);
    expect(results[25]!.skip).toBe(true);
    // Another object has its own bucket.
    expect(c.correlate(ev(clock, "Starting", "Starting kubelet.", nodeReference("node-1"))).skip).toBe(false);
    await clock.advance(299_000);
    expect(c.correlate(ev(clock, "Late", "m")).skip).toBe(true);
    await clock.advance(1_000);
    expect(c.correlate(ev(clock, "Later", "m")).skip).toBe(false);
    expect(c.correlate(ev(clock, "Later2", "m")).skip).toBe(true);
  });
});
