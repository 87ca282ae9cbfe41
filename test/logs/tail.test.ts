// findTailStart against a naive forward count, on files whose lines straddle the 64 KiB read blocks
// in every way (seeded lengths around the block size, partial lines, a trailing incomplete line).
import { describe, expect, test } from "bun:test";
import { findTailStart } from "../../src/logs";
import { FakeLogFiles } from "../fakes/log-files";

function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Offsets where each logical line (ended by an F line) ends, +1: the naive answer's building block. */
function naive(text: string, n: number): number {
  const ends: number[] = [];
  let off = 0;
  for (const l of text.split("\n").slice(0, -1)) {
    off += Buffer.byteLength(l) + 1;
    if (l.split(" ")[2] === "F") ends.push(off);
  }
  return ends.length > n ? ends[ends.length - n - 1]! : 0;
}

describe("findTailStart", () => {
  for (const seed of [1, 2, 3, 4, 5, 6]) {
    test(`seed ${seed}: the same start as counting forward, for tail 0…6`, async () => {
      const rnd = seeded(seed);
      let text = "";
      for (let i = 0; i < 12; i++) {
        const len = Math.floor(rnd() * 40_000) + (rnd() < 0.3 ? 60_000 : 0);
        const tag = rnd() < 0.3 ? "P" : "F";
        text += `2026-01-01T00:00:00.000000000Z ${rnd() < 0.5 ? "stdout" : "stderr"} ${tag} ${"x".repeat(len)}\n`;
      }
      if (seed % 2) text += "2026-01-01T00:00:00.000000000Z stdout F incomplete";
      const files = new FakeLogFiles();
      files.append("/f", text);
      const f = await files.open("/f");
      for (let n = 0; n <= 6; n++) expect(await findTailStart(f, await f.size(), n)).toBe(naive(text, n));
    });
  }

  test("a line whose time, stream and tag straddle a block boundary is still told F or P", async () => {
    for (const cut of [1, 10, 33, 38, 40]) {
      const head = "2026-01-01T00:00:00.000000000Z stdout P ";
      // The second line starts 44 - cut bytes before the last block (64 KiB from the end): its head crosses into it.
      const second = `${head}${"y".repeat(65_536 - cut - head.length)}`;
      const first = `2026-01-01T00:00:00.000000000Z stdout F first\n`;
      const text = `${first}${"2026-01-01T00:00:00.000000000Z stdout F ".padEnd(1000, "z")}\n${second}\n2026-01-01T00:00:00.000000000Z stdout F end\n`;
      const files = new FakeLogFiles();
      files.append("/f", text);
      const f = await files.open("/f");
      expect(await findTailStart(f, await f.size(), 1)).toBe(naive(text, 1));
      expect(await findTailStart(f, await f.size(), 2)).toBe(naive(text, 2));
    }
  });
});
