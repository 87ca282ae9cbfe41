// The answer to a request the HTTP parser refuses before any handler sees it. Bun's node:http (llhttp)
// reports such a request as a "clientError" with the parser's code and the bytes it had (rawPacket), and
// a CONNECT as a "connect" event; left alone, both close the connection with no status at all, which
// tells a client nothing. The kubelet (Go's net/http under go-restful) answers, and so does the agent:
//
//   head over the limit (Bun: 16 KiB, or too many header lines)   431 Request Header Fields Too Large
//                                                                  (Go's errTooLarge answer; Go's own
//                                                                  limit is 1 MiB, Bun's is smaller)
//   a method that is an HTTP token but not one the parser knows    405 (the kubelet's go-restful container
//   (`get`, `FOO`) and CONNECT                                     routes no such method: "405: Method
//                                                                  Not Allowed")
//   a version Go does not serve: HTTP/0.9 / another major          400 / 505 HTTP Version Not Supported
//   anything else malformed (request line, header line, URL)       400 Bad Request (Go's answer)
//
// The parser's error carries the bytes it had, not where it stopped: a bad request pipelined after a
// good one is judged by the first request line of the chunk (405 rather than 400 at worst).
//
// Over TLS the parser Bun uses for a socket handed to http.Server is lenient about the version: a
// request line without one arrives as HTTP/0.9, and HTTP/2.0 is taken as is. Go refuses both (a
// missing version is a malformed request, 400; another major version is 505 HTTP Version Not
// Supported, http1ServerSupportsRequest), so the listener checks the version before any handler
// runs (requestVersionStatus).
//
// The answer is plain text with `Connection: close`, and the connection is closed after it: the
// parser has given up on the stream, so nothing after the bad request can be read. No handler runs,
// so neither authentication nor the route is looked at: the answer says only what the bytes were.
import type { Duplex } from "node:stream";

/** What Bun's (and Node's) parser error carries: llhttp's code and the bytes it was given. */
export interface ParserError {
  code?: string;
  rawPacket?: Uint8Array;
}

/** RFC 9110 token characters: what a method may be made of. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** The version of the chunk's first request line when its parts are well formed: `<token> <target> HTTP/<d>.<d>`. */
function requestLine(raw: Uint8Array | undefined): { major: number; minor: number } | undefined {
  if (!raw) return undefined;
  const text = Buffer.from(raw.subarray(0, 8192)).toString("latin1");
  const end = text.search(/\r?\n/);
  const parts = (end < 0 ? text : text.slice(0, end)).split(" ");
  const version = parts.length === 3 ? /^HTTP\/(\d)\.(\d)$/.exec(parts[2]!) : null;
  if (!version || !TOKEN.test(parts[0]!) || !/^[\x21-\x7e]+$/.test(parts[1]!)) return undefined;
  return { major: Number(version[1]), minor: Number(version[2]) };
}

/**
 * A parsed request of a version the kubelet does not serve: 400 for HTTP/0.9 (what a request line
 * without a version parses as), 505 for a major version other than 1; undefined for HTTP/1.x.
 */
export function requestVersionStatus(major: number, minor: number): 400 | 505 | undefined {
  if (major === 1) return undefined;
  return major === 0 && minor === 9 ? 400 : 505;
}

/** The status a refused request gets (see the header). */
export function malformedRequestStatus(err: ParserError): 400 | 405 | 431 | 505 {
  if (err.code === "HPE_HEADER_OVERFLOW") return 431;
  const line = requestLine(err.rawPacket);
  if (err.code === "HPE_INVALID_METHOD" && line) return 405;
  if (err.code === "HPE_INVALID_VERSION" && line) return requestVersionStatus(line.major, line.minor) ?? 400;
  return 400;
}

const TEXT: Record<400 | 405 | 431 | 505, { status: string; body: string }> = {
  400: { status: "400 Bad Request", body: "400 Bad Request" },
  505: { status: "505 HTTP Version Not Supported", body: "505 HTTP Version Not Supported: unsupported protocol version" },
  405: { status: "405 Method Not Allowed", body: "405: Method Not Allowed" },
  431: { status: "431 Request Header Fields Too Large", body: "431 Request Header Fields Too Large" },
};

/** The whole response, head and body, as written on the socket. */
export function malformedRequestResponse(status: 400 | 405 | 431 | 505): string {
  const t = TEXT[status];
  return `HTTP/1.1 ${t.status}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${t.body.length}\r\nConnection: close\r\n\r\n${t.body}`;
}

/**
 * Answers and closes. Only a parser's refusal (an llhttp HPE_* code) is answered; a connection that
 * broke (reset, timed out) gets none: there is nobody to read it. Returns the status written, if any.
 */
export function answerMalformedRequest(err: ParserError, socket: Duplex): number | undefined {
  if (!err.code?.startsWith("HPE_") || !socket.writable) {
    socket.destroy();
    return undefined;
  }
  const status = malformedRequestStatus(err);
  socket.end(malformedRequestResponse(status));
  return status;
}

/** Answers a parsed request of an unsupported version (requestVersionStatus) and closes; false for HTTP/1.x. */
export function answerUnsupportedVersion(major: number, minor: number, socket: Duplex): boolean {
  const status = requestVersionStatus(major, minor);
  if (status === undefined) return false;
  socket.end(malformedRequestResponse(status));
  return true;
}

/** CONNECT (a proxy's method): the agent is no proxy, and routes no such method. */
export function answerConnect(socket: Duplex): void {
  socket.end(malformedRequestResponse(405));
}
