import { expect, test } from "bun:test";
import { BoundedQueue, Limiter, Mutex } from "../../src/util/queue";

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
  const section = (name: string, fail = false) =>
    m.run(async () => {
      log.push(`${name}:start`);
      await new Promise((r) => setTimeout(r, 1));
      log.push(`${name}:end`);
      if (fail) throw new Error(name);
    });
  const results = await Promise.allSettled([section("a"), section("b", true), section("c")]);
  expect(log).toEqual(["a:start", "a:end", "b:start", "b:end", "c:start", "c:end"]);
  expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
});

test("Limiter runs at most `limit` tasks at once, the others in call order, and a failure frees its slot", async () => {
  const limiter = new Limiter(2);
  let running = 0;
  let most = 0;
  const started: number[] = [];
  const gates = Array.from({ length: 5 }, () => Promise.withResolvers<void>());
  const results = gates.map((g, i) =>
    limiter.run(async () => {
      started.push(i);
      most = Math.max(most, ++running);
      await g.promise;
      running--;
      if (i === 1) throw new Error("task 1");
      return i;
    }),
  );
  await Promise.resolve();
  expect(started).toEqual([0, 1]);
  gates[1]!.resolve();
  await expect(results[1]!).rejects.toThrow("task 1");
  expect(started).toEqual([0, 1, 2]);
  for (const g of gates) g.resolve();
  expect(await Promise.all([results[0], results[2], results[3], results[4]])).toEqual([0, 2, 3, 4]);
  expect(started).toEqual([0, 1, 2, 3, 4]);
  expect(most).toBe(2);
});
