import { expect, test } from "bun:test";
import { BoundedQueue, Mutex } from "../../src/util/queue";

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
