// The one capped body reader (src/util/capped-body.ts), used by the manifest URL source and the push
// endpoint: a declared or streamed body past the limit is refused without holding more than the limit.
import { describe, expect, test } from "bun:test";
import { readBodyCapped } from "../../src/util/capped-body";

function streamOf(chunks: string[], onCancel?: () => void): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(c) {
      if (i < chunks.length) c.enqueue(enc.encode(chunks[i++]!));
      else c.close();
    },
    cancel() {
      onCancel?.();
    },
  });
}

describe("readBodyCapped", () => {
  test("a body within the limit is read whole, from one chunk or several", async () => {
    const one = await readBodyCapped(new Response("hello"), 5);
    expect(one.ok && new TextDecoder().decode(one.bytes)).toBe("hello");
    const many = await readBodyCapped(new Response(streamOf(["ab", "cd", "e"])), 5);
    expect(many.ok && new TextDecoder().decode(many.bytes)).toBe("abcde");
  });

  test("no body is an empty one", async () => {
    const r = await readBodyCapped(new Response(null), 5);
    expect(r.ok && r.bytes.byteLength).toBe(0);
  });

  test("a Content-Length over the limit is refused before reading, and the caller's abort is called", async () => {
    let aborted = 0;
    const res = new Response(streamOf(["x"]), { headers: { "content-length": "100" } });
    const r = await readBodyCapped(res, 10, () => aborted++);
    expect(r).toEqual({ ok: false, message: "Content-Length 100 is over the 10-byte limit: not read" });
    expect(aborted).toBe(1);
  });

  test("a streamed body that passes the limit is cut off there: the stream is cancelled, the rest never read", async () => {
    let cancelled = false;
    let aborted = 0;
    const r = await readBodyCapped(new Response(streamOf(["12345", "67890", "never"], () => (cancelled = true))), 8, () => aborted++);
    expect(r).toEqual({ ok: false, message: "the body is over the 8-byte limit: stopped reading after 10 bytes" });
    expect(cancelled).toBe(true);
    expect(aborted).toBe(1);
  });

  test("a Request's body is read the same way (the push endpoint)", async () => {
    const req = new Request("http://127.0.0.1/pods", { method: "POST", body: "kind: Pod" });
    const r = await readBodyCapped(req, 100);
    expect(r.ok && new TextDecoder().decode(r.bytes)).toBe("kind: Pod");
    const big = new Request("http://127.0.0.1/pods", { method: "POST", body: "x".repeat(101) });
    expect((await readBodyCapped(big, 100)).ok).toBe(false);
  });
});
