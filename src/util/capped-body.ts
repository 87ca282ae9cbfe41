// Reading an HTTP body (a fetched manifest URL's response, a pushed manifest's request) without ever
// holding more than a limit of it: the peer decides how much it sends, so an oversized body must be
// refused as it streams in, not after it has been buffered whole.

/** A Response or a Request: what a body is read from. */
export interface BodySource {
  readonly headers: Headers;
  readonly body: ReadableStream<Uint8Array> | null;
}

export type CappedBody = { ok: true; bytes: Uint8Array } | { ok: false; message: string };

/**
 * Reads a body of at most `limit` bytes. A Content-Length over the limit is refused before anything
 * is read; a body that turns out longer is cut off as soon as it passes the limit (`abort` ends a
 * fetch, so the connection stops delivering). Chunks are held only up to the limit.
 */
export async function readBodyCapped(res: BodySource, limit: number, abort: () => void = () => {}): Promise<CappedBody> {
  const length = res.headers.get("content-length");
  if (length !== null && Number(length) > limit) {
    abort();
    await res.body?.cancel().catch(() => {});
    return { ok: false, message: `Content-Length ${length} is over the ${limit}-byte limit: not read` };
  }
  const reader = res.body?.getReader();
  if (!reader) return { ok: true, bytes: new Uint8Array(0) };
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > limit) {
        chunks.length = 0;
        abort();
        await reader.cancel().catch(() => {});
        return { ok: false, message: `the body is over the ${limit}-byte limit: stopped reading after ${total} bytes` };
      }
      chunks.push(value);
    }
  } finally {
    try {
      reader.releaseLock();
    } catch {
      // cancelled: nothing left to release
    }
  }
  if (chunks.length === 1) return { ok: true, bytes: chunks[0]! };
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.byteLength;
  }
  return { ok: true, bytes };
}
