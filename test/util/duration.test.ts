import { expect, test } from "bun:test";
import { formatDuration, parseDuration } from "../../src/util/duration";

test("parseDuration takes Go durations and bare seconds", () => {
  expect(parseDuration("1s")).toBe(1000);
  expect(parseDuration("500ms")).toBe(500);
  expect(parseDuration("1m30s")).toBe(90_000);
  expect(parseDuration("2h")).toBe(7_200_000);
  expect(parseDuration("1.5s")).toBe(1500);
  expect(parseDuration("20")).toBe(20_000);
});
test("parseDuration rejects what it cannot read, quoting it", () => {
  expect(() => parseDuration("1 second")).toThrow('invalid duration "1 second"');
  expect(() => parseDuration("")).toThrow("invalid duration");
  expect(() => parseDuration("5x")).toThrow('"5x"');
});
test("formatDuration prints like Go", () => {
  expect(formatDuration(250)).toBe("250ms");
  expect(formatDuration(0)).toBe("0s");
  expect(formatDuration(1000)).toBe("1s");
  expect(formatDuration(180_000)).toBe("3m0s");
  expect(formatDuration(3_725_000)).toBe("1h2m5s");
});
