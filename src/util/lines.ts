// The lines of a byte stream (a child process's stdout), as they arrive: decoded as UTF-8 across chunk
// boundaries, without their newline; a last line without one is given at the end.
export async function* streamLines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string, void, undefined> {
  const dec = new TextDecoder();
  let buf = "";
  for await (const chunk of stream) {
    buf += dec.decode(chunk, { stream: true });
    const lines = buf.split("\n");
    buf = lines.pop()!;
    yield* lines;
  }
  buf += dec.decode();
  if (buf) yield buf;
}
