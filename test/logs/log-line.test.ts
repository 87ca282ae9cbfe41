// parseCriLine's byte-level fast path (the writers' fixed-width UTC stamps) agrees with the general
// RFC 3339 parse, across second boundaries, and the checks still refuse what is not a log line.
import { expect, test } from "bun:test";
import { MalformedLineError, parseCriLine, parseLogTime } from "../../src/logs/log-line";

const enc = (s: string) => new TextEncoder().encode(s);

test("fixed-width UTC stamps: the same time as the general parse, second after second", () => {
  for (const stamp of [
    "2026-11-24T00:00:59.999999999Z",
    "2026-11-24T00:01:00.000000001Z",
    "2026-11-24T00:01:00.500000000Z",
    "2024-02-29T23:59:59.000000000Z",
  ]) {
    const line = parseCriLine(enc(`${stamp} stdout F hello`));
    expect(line.time).toEqual(parseLogTime(stamp)!);
    expect(new TextDecoder().decode(line.content)).toBe("hello");
  }
});

test("other stamps, streams and tags", () => {
  expect(parseCriLine(enc("2026-11-24T01:00:00.5+01:00 stderr P:x part")).time).toEqual(parseLogTime("2026-11-24T01:00:00.5+01:00")!);
  expect(parseCriLine(enc("2026-11-24T01:00:00.5+01:00 stderr P:x part"))).toMatchObject({ stream: "stderr", partial: true });
  expect(parseCriLine(enc("2026-11-24T00:00:00.000000000Z stdout F"))).toMatchObject({ partial: false, content: new Uint8Array() });
  expect(parseCriLine(enc("2026-11-24T00:00:00.000000000Z stdout Px x"))).toMatchObject({ partial: false });
  expect(() => parseCriLine(enc("2026-11-24T00:00:00.000000000Z stdin F x"))).toThrow(MalformedLineError);
  expect(() => parseCriLine(enc("2026-13-24T00:00:00.000000000Z stdout F x"))).toThrow(MalformedLineError);
  expect(() => parseCriLine(enc("2026-11-24T00:00:00.00000000xZ stdout F x"))).toThrow(MalformedLineError);
  expect(() => parseCriLine(enc("2026-11-24T00:00:00.000000000Z stdout  x"))).toThrow("log tag is not found");
});
