// DER (ITU-T X.690) encoding of the few ASN.1 types X.509 certificates and PKCS#10 requests are made
// of: the server's self-signed certificate (src/server/x509.ts) and the kubelet's certificate signing
// requests (src/certificate/csr.ts) are written with these, node:crypto signing the bytes.
import { isIP } from "node:net";
export function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

export function tlv(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), length(body.length), body]);
}

export const sequence = (...items: Buffer[]) => tlv(0x30, ...items);
export const set = (...items: Buffer[]) => tlv(0x31, ...items);
export const octetString = (b: Buffer) => tlv(0x04, b);
export const bitString = (b: Buffer, unusedBits = 0) => tlv(0x03, Buffer.from([unusedBits]), b);
export const utf8String = (s: string) => tlv(0x0c, Buffer.from(s, "utf8"));
export const boolean = (v: boolean) => tlv(0x01, Buffer.from([v ? 0xff : 0]));
export const explicit = (n: number, inner: Buffer) => tlv(0xa0 | n, inner);

/** A non-negative INTEGER from its big-endian bytes: a leading 0 keeps it positive. */
export function integer(bytes: Buffer): Buffer {
  let b = bytes;
  while (b.length > 1 && b[0] === 0 && b[1]! < 0x80) b = b.subarray(1);
  return tlv(0x02, b[0]! >= 0x80 ? Buffer.concat([Buffer.from([0]), b]) : b);
}

export function oid(dotted: string): Buffer {
  const parts = dotted.split(".").map(Number);
  const out = [40 * parts[0]! + parts[1]!];
  for (const p of parts.slice(2)) {
    const groups: number[] = [];
    for (let v = p; ; v = Math.floor(v / 128)) {
      groups.unshift(v & 0x7f);
      if (v < 128) break;
    }
    out.push(...groups.map((g, i) => (i < groups.length - 1 ? g | 0x80 : g)));
  }
  return tlv(0x06, Buffer.from(out));
}

/** RFC 5280 4.1.2.5: UTCTime through 2049, GeneralizedTime after; seconds, always Zulu. */
export function time(ms: number): Buffer {
  const iso = new Date(Math.floor(ms / 1000) * 1000).toISOString(); // 2026-01-01T00:00:00.000Z
  const digits = iso.slice(0, 19).replace(/[-T:]/g, "") + "Z"; // 20260101000000Z
  const year = Number(iso.slice(0, 4));
  return year < 2050 ? tlv(0x17, Buffer.from(digits.slice(2), "ascii")) : tlv(0x18, Buffer.from(digits, "ascii"));
}

/** The bytes of an IP address (4 or 16), as subjectAltName iPAddress entries hold them. */
export function ipBytes(ip: string): Buffer {
  if (isIP(ip) === 4) return Buffer.from(ip.split(".").map(Number));
  // IPv6: expand "::" then write the eight groups.
  const [head, tail] = ip.includes("::") ? ip.split("::") : [ip, undefined];
  const h = head ? head.split(":") : [];
  const t = tail ? tail.split(":") : [];
  const groups = tail === undefined ? h : [...h, ...Array(8 - h.length - t.length).fill("0"), ...t];
  return Buffer.concat(
    groups.map((g) => {
      const b = Buffer.alloc(2);
      b.writeUInt16BE(parseInt(g || "0", 16));
      return b;
    }),
  );
}

/** PEM of a DER block with the given label, 64-column base64. */
export function pemBlock(label: string, der: Buffer): string {
  const b64 = der
    .toString("base64")
    .replace(/(.{64})/g, "$1\n")
    .replace(/\n$/, "");
  return `-----BEGIN ${label}-----\n${b64}\n-----END ${label}-----\n`;
}
