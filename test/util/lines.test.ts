// streamLines: lines split across chunks, a character split across chunks, the last line without a newline.
import { expect, test } from "bun:test";
import { streamLines } from "../../src/util/lines";

test("lines across chunk boundaries, UTF-8 split mid-character, and a last line without its newline", async () => {
  const bytes = new TextEncoder().encode("one\ntw€o\n\nthree");
  const cuts = [2, 7, 9, bytes.length];
  let at = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(c) {
      const end = cuts.shift();
      if (end === undefined) return c.close();
      c.enqueue(bytes.slice(at, end));
      at = end;
    },
  });
  const out: string[] = [];
  for await (const l of streamLines(stream)) out.push(l);
  expect(out).toEqual(["one", "tw€o", "", "three"]);
});
