// The one settle rule (src/config/settle.ts) the static pod path and --local-objects share.
import { describe, expect, test } from "bun:test";
import type { BigIntStats } from "node:fs";
import { newVersion, noteRead, settleVerdict, type FileVersion } from "../../src/config/settle";

// A file last written at wall time `mtimeMs`, its ctime `ctimeMs` (a rename after the write moves only ctime).
const stat = (mtimeMs: number, ctimeMs = mtimeMs) =>
  ({ mtimeNs: BigInt(mtimeMs) * 1_000_000n, ctimeNs: BigInt(ctimeMs) * 1_000_000n }) as unknown as BigIntStats;
const WALL = 1_000_000;
const version = (v: Partial<FileVersion> = {}): FileVersion => ({ ...newVersion(0), statKey: "k", hash: "h", ...v });

describe("settleVerdict", () => {
  test("a content just written in place waits for the window; the watch may still settle it (events)", () => {
    expect(settleVerdict(version(), stat(WALL), 0, WALL, 1000)).toEqual({ verdict: "events", waitMs: 1000 });
    expect(settleVerdict(version(), stat(WALL), 400, WALL, 1000)).toEqual({ verdict: "events", waitMs: 600 });
  });

  test("still for the window, by the agent's clock or by its ctime on the wall clock: settled", () => {
    expect(settleVerdict(version(), stat(WALL), 1000, WALL, 1000).verdict).toBe("settled");
    expect(settleVerdict(version(), stat(WALL - 5000), 0, WALL, 1000).verdict).toBe("settled");
  });

  test("renamed into place (ctime after mtime): settled at once", () => {
    expect(settleVerdict(version(), stat(WALL - 10, WALL), 0, WALL, 1000).verdict).toBe("settled");
  });

  test("the bytes already acted on, or the last good ones (a revert), or a final failure: settled at once", () => {
    expect(settleVerdict(version({ acceptedHash: "h" }), stat(WALL), 0, WALL, 1000).verdict).toBe("settled");
    expect(settleVerdict(version({ goodHash: "h" }), stat(WALL), 0, WALL, 1000).verdict).toBe("settled");
    expect(settleVerdict(version({ final: true }), stat(WALL), 0, WALL, 1000).verdict).toBe("settled");
  });

  test("changed while it was read: waits, whatever its times say", () => {
    expect(settleVerdict(version({ statKey: "changing:k" }), stat(WALL - 10, WALL), 0, WALL, 1000).verdict).toBe("wait");
    expect(settleVerdict(version({ statKey: "changing:k" }), stat(WALL - 5000), 0, WALL, 1000).verdict).toBe("wait");
  });
});

describe("noteRead", () => {
  test("a new stat key restarts the stillness; new bytes are unsettled and reported as changed", () => {
    const v = version({ settled: true, statSince: 5 });
    expect(noteRead(v, { hash: "h", key: "k2" }, 50)).toBe(false);
    expect([v.statKey, v.statSince, v.settled]).toEqual(["k2", 50, true]);
    expect(noteRead(v, { hash: "h2", key: "k2", failure: "too large" }, 60)).toBe(true);
    expect([v.statSince, v.hash, v.settled, v.final]).toEqual([50, "h2", false, true]);
  });
});
