import { expect, test } from "bun:test";
import { Backoff } from "../../src/agent/backoff";
import { FakeClock } from "../../src/util/clock";

test("crash-loop schedule: 10 s doubling to 300 s", () => {
  const clock = new FakeClock();
  const b = new Backoff(clock);
  const delays = Array.from({ length: 8 }, () => b.next("c"));
  expect(delays).toEqual([10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000, 300_000]);
});

test("isInBackOffSince measures from the given time (the container's finish)", async () => {
  const clock = new FakeClock();
  const b = new Backoff(clock);
  const finished = clock.now();
  b.next("c");
  expect(b.isInBackOffSince("c", finished)).toBe(true);
  await clock.advance(9_999);
  expect(b.isInBackOffSince("c", finished)).toBe(true);
  await clock.advance(1);
  expect(b.isInBackOffSince("c", finished)).toBe(false);
  expect(b.backOffEnds("c", finished)).toBe(finished + 10_000);
  expect(b.isInBackOffSince("other", finished)).toBe(false);
});

test("ten minutes without a new failure resets the delay", async () => {
  const clock = new FakeClock();
  const b = new Backoff(clock);
  for (let i = 0; i < 5; i++) b.next("c");
  expect(b.get("c")).toBe(160_000);
  await clock.advance(600_000);
  expect(b.get("c")).toBe(160_000);
  await clock.advance(1);
  expect(b.get("c")).toBe(0);
  expect(b.next("c")).toBe(10_000);
  await clock.advance(700_000);
  b.gc();
  expect(b.get("c")).toBe(0);
});

test("inBackOff counts from the last failure (image pulls)", async () => {
  const clock = new FakeClock();
  const b = new Backoff(clock);
  b.next("img");
  expect(b.inBackOff("img")).toBe(true);
  await clock.advance(10_000);
  expect(b.inBackOff("img")).toBe(false);
  b.next("img");
  await clock.advance(19_999);
  expect(b.inBackOff("img")).toBe(true);
  await clock.advance(1);
  expect(b.inBackOff("img")).toBe(false);
});
