import { expect, test } from "bun:test";
import { flushMicrotasks } from "../../src/util/clock";
import { BoundedQueue, Mutex, Semaphore } from "../../src/util/queue";

test("BoundedQueue drops and counts when full, and ends when closed", async () => {
  const q = new BoundedQueue<number>(2);
  expect(q.push(1)).toBe(true);
  expect(q.push(2)).toBe(true);
  expect(q.push(3)).toBe(false);
  expect(q.dropped).toBe(1);
  q.close();
  const got: number[] = [];
  for await (const n of q) got.push(n);
  expect(got).toEqual([1, 2]);
});

test("Mutex runs sections one at a time in call order, even when one fails", async () => {
  const m = new Mutex();
  const log: string[] = [];
  const section = (name: string, fail = false) => m.run(async () => {
    log.push(`${name}:start`);
    await new Promise((r) => setTimeout(r, 1));
    log.push(`${name}:end`);
    if (fail) throw new Error(name);
  });
  const results = await Promise.allSettled([section("a"), section("b", true), section("c")]);
  expect(log).toEqual(["a:start", "a:end", "b:start", "b:end", "c:start", "c:end"]);
  expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
});

test("Semaphore runs at most limit sections at once, admits waiters in arrival order, and frees a place when a section fails", async () => {
  const s = new Semaphore(2);
  const log: string[] = [];
  const gates = new Map<string, () => void>();
  const section = (name: string, fail = false) =>
    s.run(async () => {
      log.push(`${name}:start`);
      await new Promise<void>((r) => gates.set(name, r));
      log.push(`${name}:end`);
      if (fail) throw new Error(name);
    });
  const all = Promise.allSettled([section("a", true), section("b"), section("c"), section("d")]);
  await flushMicrotasks();
  expect(log).toEqual(["a:start", "b:start"]);
  expect([s.inUse, s.waiting]).toEqual([2, 2]);
  gates.get("b")!();
  await flushMicrotasks();
  // c arrived before d: it takes b's place.
  expect(log).toEqual(["a:start", "b:start", "b:end", "c:start"]);
  gates.get("a")!();
  await flushMicrotasks();
  expect(log.slice(4)).toEqual(["a:end", "d:start"]);
  expect([s.inUse, s.waiting]).toEqual([2, 0]);
  gates.get("c")!();
  gates.get("d")!();
  const results = await all;
  expect(results.map((r) => r.status)).toEqual(["rejected", "fulfilled", "fulfilled", "fulfilled"]);
  expect([s.inUse, s.waiting]).toEqual([0, 0]);
  expect(() => new Semaphore(0)).toThrow(/at least 1/);
});
