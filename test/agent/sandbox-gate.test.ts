// The SandboxGate's state machine on its own: each "sandbox" is a promise the test settles by hand.
import { describe, expect, test } from "bun:test";
import { SandboxGate } from "../../src/agent/sandbox-gate";
import { flushMicrotasks } from "../../src/util/clock";

/** Starts named creations through the gate; each one runs until the test finishes or fails it. */
function harness(gate: SandboxGate) {
  const running: string[] = [];
  const settle = new Map<string, { ok: () => void; fail: () => void }>();
  const results = new Map<string, Promise<string>>();
  const start = (name: string) => {
    results.set(name, gate.run(() => {
      running.push(name);
      return new Promise<string>((ok, fail) => settle.set(name, { ok: () => ok(name), fail: () => fail(new Error(name)) }));
    }));
    results.get(name)!.catch(() => {});
  };
  const finish = async (name: string, how: "ok" | "fail" = "ok") => {
    settle.get(name)![how]();
    await flushMicrotasks();
  };
  return { running, start, finish, results };
}

describe("SandboxGate", () => {
  test("a burst's first sandbox is made alone; each finished one doubles how many may be in flight, up to max; turns go in arrival order", async () => {
    const gate = new SandboxGate({ initial: 1, max: 4 });
    const h = harness(gate);
    for (const n of ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"]) h.start(n);
    await flushMicrotasks();
    expect(h.running).toEqual(["a"]);
    expect([gate.inFlight, gate.waiting, gate.limit]).toEqual([1, 9, 1]);
    await h.finish("a");
    expect(h.running).toEqual(["a", "b", "c"]);
    expect(gate.limit).toBe(2);
    await h.finish("c");
    // Two finished: four may be in flight, and d, e, f come in that order.
    expect(h.running).toEqual(["a", "b", "c", "d", "e", "f"]);
    await h.finish("b");
    // The ceiling: still four in flight, not eight.
    expect(h.running).toEqual(["a", "b", "c", "d", "e", "f", "g"]);
    expect([gate.inFlight, gate.limit]).toEqual([4, 4]);
    for (const n of ["d", "e", "f", "g"]) await h.finish(n);
    for (const n of ["h", "i", "j"]) await h.finish(n);
    expect(h.running).toHaveLength(10);
    expect(await Promise.all([...h.results.values()])).toEqual(["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"]);
    expect([gate.inFlight, gate.waiting]).toEqual([0, 0]);
  });

  test("a failed creation counts as finished: its place is freed and the ramp goes on", async () => {
    const gate = new SandboxGate({ initial: 1, max: 8 });
    const h = harness(gate);
    for (const n of ["a", "b", "c"]) h.start(n);
    await flushMicrotasks();
    await h.finish("a", "fail");
    await expect(h.results.get("a")!).rejects.toThrow("a");
    expect(h.running).toEqual(["a", "b", "c"]);
  });

  test("after a burst the next one starts alone again; one sandbox at a time never waits", async () => {
    const gate = new SandboxGate({ initial: 1, max: 8 });
    const h = harness(gate);
    h.start("a");
    h.start("b");
    await flushMicrotasks();
    await h.finish("a");
    await h.finish("b");
    expect([gate.inFlight, gate.limit]).toEqual([0, 1]);
    h.start("c");
    h.start("d");
    await flushMicrotasks();
    expect(h.running).toEqual(["a", "b", "c"]);
    await h.finish("c");
    await h.finish("d");
    // One pod at a time: each goes straight in.
    for (const n of ["e", "f"]) {
      h.start(n);
      await flushMicrotasks();
      expect(h.running.at(-1)).toBe(n);
      await h.finish(n);
    }
  });

  test("initial and max must make sense", () => {
    expect(() => new SandboxGate({ initial: 0 })).toThrow(/initial/);
    expect(() => new SandboxGate({ initial: 4, max: 2 })).toThrow(/max/);
  });
});
