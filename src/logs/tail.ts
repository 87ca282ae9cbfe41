// Where the last N lines of a log file begin: the kubelet's tail.FindTailLineStartIndex
// (k/k@1.24 pkg/util/tail/tail.go), which reads the file backwards in blocks so `tailLines=10` on a
// 10 MiB file reads a few KiB, not the file. One difference, on purpose: a line here is a *logical*
// line — P (partial) fragments end with the F that completes them — so `tailLines=1` after a 40 KiB
// line the runtime split in three gives that whole line, where the kubelet counts three lines and
// returns the last fragment. An incomplete last line (no newline yet) is not counted, and malformed
// lines are not counted either (the reader skips them).
import type { LogFile } from "./log-files";

const BLOCK = 64 * 1024;
/** Enough of a line's start to hold its time, stream and tag. */
const HEAD = 96;
const NL = 0x0a;
const SPACE = 0x20;

/** Whether a complete line (its first bytes) ends a logical line: a CRI F line, or any Docker JSON entry. */
function endsLogicalLine(head: Uint8Array): boolean {
  if (head[0] === 0x7b) return true;
  const a = head.indexOf(SPACE);
  const b = a < 0 ? -1 : head.indexOf(SPACE, a + 1);
  if (b < 0) return false;
  const tag = head[b + 1];
  // "F", "F:…" — the first tag only.
  return tag === 0x46 && (b + 2 >= head.length || head[b + 2] === SPACE || head[b + 2] === 0x3a || head[b + 2] === NL);
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** The offset to start reading at so that `n` logical lines follow (0 when the file has fewer). */
export async function findTailStart(file: LogFile, size: number, n: number): Promise<number> {
  if (n < 0) return 0;
  let count = 0;
  /** Where the newline that ends the line being looked at is (the last newline seen, scanning back). */
  let lineEnd = -1;
  /** The first bytes of the block after the current one, for a line that starts near a block's end. */
  let nextHead: Uint8Array = new Uint8Array(0);
  for (let end = size; end > 0; ) {
    const start = Math.max(0, end - BLOCK);
    const data = new Uint8Array(end - start);
    let got = 0;
    while (got < data.length) {
      const r = await file.read(data.subarray(got), start + got);
      if (r === 0) break;
      got += r;
    }
    for (let j = got - 1; j >= -1; j--) {
      // j = -1 stands for the start of the file (the line at offset 0), once the first block is read.
      if (j >= 0 && data[j] !== NL) continue;
      if (j < 0 && start > 0) break;
      if (lineEnd >= 0) {
        // The line [start+j+1, lineEnd] is complete: does it end a logical line?
        const from = j + 1;
        const head = from + HEAD <= got ? data.subarray(from, from + HEAD) : concat(data.subarray(from, got), nextHead).subarray(0, HEAD);
        if (endsLogicalLine(head)) {
          count++;
          if (count > n) return lineEnd + 1;
        }
      }
      if (j >= 0) lineEnd = start + j;
    }
    nextHead = concat(data.subarray(0, Math.min(HEAD, got)), nextHead).subarray(0, HEAD);
    end = start;
  }
  return 0;
}
