import { expect, test } from "bun:test";
import { FakeClock } from "../../src/util/clock";
import { ExpiringCache } from "../../src/util/expiring-cache";

test("an entry lives for its TTL, a TTL of 0 keeps nothing, and the least recently used goes first when full", async () => {
  const clock = new FakeClock();
  const c = new ExpiringCache<string>(clock, 2);
  c.set("a", "A", 1_000);
  c.set("zero", "Z", 0);
  expect(c.get("zero")).toBeUndefined();
  await clock.advance(999);
  expect(c.get("a")).toBe("A");
  await clock.advance(1);
  expect(c.get("a")).toBeUndefined();
  c.set("x", "X", 10_000);
  c.set("y", "Y", 10_000);
  c.get("x");
  c.set("z", "Z", 10_000);
  expect([c.get("x"), c.get("y"), c.get("z")]).toEqual(["X", undefined, "Z"]);
  expect(c.size).toBe(2);
});
