// The PodStartGate's state machine on its own: each pod start holds a place until the test gives it back.
import { describe, expect, test } from "bun:test";
import { PodStartGate, podStartGateDefaults, type PodStartPlace } from "../../src/agent/pod-start-gate";
import { flushMicrotasks } from "../../src/util/clock";

/** Pods asking the gate for a place; `started` lists those that got one, in order. */
function harness(gate: PodStartGate) {
  const started: string[] = [];
  const places = new Map<string, PodStartPlace>();
  const ask = (name: string) => {
    void gate.enter().then((p) => {
      started.push(name);
      places.set(name, p);
    });
  };
  const done = async (name: string) => {
    places.get(name)!.release();
    await flushMicrotasks();
  };
  return { started, places, ask, done };
}

describe("PodStartGate", () => {
  test("a burst's first pod starts alone; each pod started doubles how many may start at once, up to max; turns go in arrival order", async () => {
    const gate = new PodStartGate({ initial: 1, max: 4 });
    const h = harness(gate);
    for (const n of ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"]) h.ask(n);
    await flushMicrotasks();
    expect(h.started).toEqual(["a"]);
    expect([gate.inUse, gate.waiting, gate.limit]).toEqual([1, 9, 1]);
    await h.done("a");
    expect(h.started).toEqual(["a", "b", "c"]);
    expect(gate.limit).toBe(2);
    await h.done("c");
    // Two started: four may start at once, and d, e, f come in that order.
    expect(h.started).toEqual(["a", "b", "c", "d", "e", "f"]);
    await h.done("b");
    // The ceiling: still four at once, not eight.
    expect(h.started).toEqual(["a", "b", "c", "d", "e", "f", "g"]);
    expect([gate.inUse, gate.limit]).toEqual([4, 4]);
    for (const n of ["d", "e", "f", "g", "h", "i", "j"]) await h.done(n);
    expect(h.started).toEqual(["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"]);
    expect([gate.inUse, gate.waiting]).toEqual([0, 0]);
  });

  test("a place is given back once, however often release is called", async () => {
    const gate = new PodStartGate({ initial: 1, max: 1 });
    const h = harness(gate);
    for (const n of ["a", "b", "c"]) h.ask(n);
    await flushMicrotasks();
    await h.done("a");
    await h.done("a");
    expect(h.started).toEqual(["a", "b"]);
    expect(gate.inUse).toBe(1);
  });

  test("after a burst the next one starts alone again; one pod at a time never waits", async () => {
    const gate = new PodStartGate({ initial: 1, max: 8 });
    const h = harness(gate);
    h.ask("a");
    h.ask("b");
    await flushMicrotasks();
    await h.done("a");
    await h.done("b");
    expect([gate.inUse, gate.limit]).toEqual([0, 1]);
    h.ask("c");
    h.ask("d");
    await flushMicrotasks();
    expect(h.started).toEqual(["a", "b", "c"]);
    await h.done("c");
    await h.done("d");
    for (const n of ["e", "f"]) {
      h.ask(n);
      await flushMicrotasks();
      expect(h.started.at(-1)).toBe(n);
      await h.done(n);
    }
  });

  test("defaults: one at first, up to four a core; initial and max must make sense", () => {
    const d = podStartGateDefaults();
    expect(d.initial).toBe(1);
    expect(d.max % 4).toBe(0);
    expect(new PodStartGate().limit).toBe(1);
    expect(() => new PodStartGate({ initial: 0 })).toThrow(/initial/);
    expect(() => new PodStartGate({ initial: 4, max: 2 })).toThrow(/max/);
  });
});
