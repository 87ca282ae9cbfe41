// The HTTP/2 wire vocabulary (RFC 9113) the connection speaks: the preface, frame types and flags,
// settings, error codes, and the small payload helpers (padding, SETTINGS, 32-bit fields).

/** The client connection preface (RFC 9113 §3.4), before the first SETTINGS. */
export const PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "latin1");

/** Frame types (§6). */
export const Frame = {
  DATA: 0x0,
  HEADERS: 0x1,
  PRIORITY: 0x2,
  RST_STREAM: 0x3,
  SETTINGS: 0x4,
  PUSH_PROMISE: 0x5,
  PING: 0x6,
  GOAWAY: 0x7,
  WINDOW_UPDATE: 0x8,
  CONTINUATION: 0x9,
} as const;
/** Frame flags (§6): ACK is SETTINGS' and PING's use of bit 0x1. */
export const END_STREAM = 0x1;
export const ACK = 0x1;
export const END_HEADERS = 0x4;
export const PADDED = 0x8;
export const PRIORITY_FLAG = 0x20;

/** SETTINGS parameters (§6.5.2) this side sends or applies. */
export const Setting = {
  HEADER_TABLE_SIZE: 0x1,
  ENABLE_PUSH: 0x2,
  MAX_CONCURRENT_STREAMS: 0x3,
  INITIAL_WINDOW_SIZE: 0x4,
  MAX_FRAME_SIZE: 0x5,
} as const;

/** HTTP/2 error codes (RFC 9113 §7) this side sends or reads. */
export const H2Error = {
  NO_ERROR: 0x0,
  PROTOCOL_ERROR: 0x1,
  INTERNAL_ERROR: 0x2,
  FLOW_CONTROL_ERROR: 0x3,
  FRAME_SIZE_ERROR: 0x6,
  REFUSED_STREAM: 0x7,
  CANCEL: 0x8,
  COMPRESSION_ERROR: 0x9,
  ENHANCE_YOUR_CALM: 0xb,
  INADEQUATE_SECURITY: 0xc,
} as const;

/** A protocol error from the peer: the connection ends with GOAWAY carrying `code`. */
export class ConnectionError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** A 32-bit big-endian field. */
export function u32(n: number): Buffer {
  const b = Buffer.allocUnsafe(4);
  b.writeUInt32BE(n >>> 0, 0);
  return b;
}

/** A SETTINGS frame's payload: 16-bit id, 32-bit value, per setting. */
export function settingsPayload(settings: [number, number][]): Buffer {
  const b = Buffer.allocUnsafe(6 * settings.length);
  settings.forEach(([id, value], i) => {
    b.writeUInt16BE(id, 6 * i);
    b.writeUInt32BE(value, 6 * i + 2);
  });
  return b;
}

/** The content of a PADDED frame: the pad length byte and the padding removed. */
export function unpad(payload: Buffer): Buffer {
  const pad = payload[0] ?? 0;
  if (pad >= payload.length) throw new ConnectionError(H2Error.PROTOCOL_ERROR, "padding exceeds the frame");
  return payload.subarray(1, payload.length - pad);
}
