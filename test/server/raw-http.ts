// Raw bytes to an HTTP server, for requests no client library would send (malformed heads, unknown
// methods): the unit tests of the agent's server and the e2e test through the binary share it.
import type { Socket } from "node:net";

/** Sends the bytes on a new connection and reads until the server closes it (or 5 s pass). */
export function rawRequest(open: () => Socket, data: string | Buffer): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve) => {
    const s = open();
    let text = "";
    const timer = setTimeout(() => {
      s.destroy();
      resolve({ text, closed: false });
    }, 5_000);
    s.on("data", (d: Buffer) => (text += d.toString("latin1")));
    s.on("error", () => undefined);
    s.on("close", () => {
      clearTimeout(timer);
      resolve({ text, closed: true });
    });
    s.write(data);
  });
}

/** The status line of a raw response ("HTTP/1.1 431 Request Header Fields Too Large"). */
export const statusLine = (text: string): string => text.split("\r\n")[0] ?? "";
