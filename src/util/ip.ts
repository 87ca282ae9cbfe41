// IP addresses as Go's net.IP sees them: one parse (an IPv4-mapped IPv6 address is IPv4, as ip.To4()
// makes it), the canonical spelling ip.String() prints, and the classes the kubelet's node-IP rules
// test (IsLoopback, IsMulticast, IsLinkLocalUnicast, IsUnspecified, IsGlobalUnicast).
import { isIP } from "node:net";

export interface ParsedIP {
  family: 4 | 6;
  /** 4 bytes for IPv4 (and IPv4-mapped IPv6), 16 for IPv6. */
  bytes: number[];
  /** Go's ip.String(): dotted quad, or the compressed lower-case IPv6 form. */
  text: string;
}

/** Parses an address (surrounding spaces allowed, as netutils.ParseIPSloppy); undefined when it is none. */
export function parseIP(text: string): ParsedIP | undefined {
  const s = text.trim();
  const kind = isIP(s);
  if (kind === 4) {
    const bytes = s.split(".").map(Number);
    return { family: 4, bytes, text: bytes.join(".") };
  }
  if (kind !== 6) return undefined;
  const bytes = ipv6Bytes(s);
  const mapped = bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
  if (mapped) {
    const v4 = bytes.slice(12);
    return { family: 4, bytes: v4, text: v4.join(".") };
  }
  // The URL parser prints the RFC 5952 form (what Go prints too): "0:0::1" → "::1".
  return { family: 6, bytes, text: new URL(`http://[${s}]`).hostname.slice(1, -1) };
}

function ipv6Bytes(s: string): number[] {
  let text = s;
  // A trailing dotted quad (::ffff:1.2.3.4) becomes two groups.
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes("::") ? text.split("::") : [text, undefined];
  const groups = (g: string | undefined) => (g ? g.split(":").filter((x) => x !== "") : []);
  const h = groups(head);
  const t = groups(tail);
  const all = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill("0"), ...t];
  return all.flatMap((g) => {
    const n = parseInt(g, 16);
    return [n >> 8, n & 0xff];
  });
}

export const isUnspecifiedIP = (ip: ParsedIP): boolean => ip.bytes.every((b) => b === 0);

export const isLoopbackIP = (ip: ParsedIP): boolean =>
  ip.family === 4 ? ip.bytes[0] === 127 : ip.bytes.slice(0, 15).every((b) => b === 0) && ip.bytes[15] === 1;

export const isMulticastIP = (ip: ParsedIP): boolean => (ip.family === 4 ? (ip.bytes[0]! & 0xf0) === 0xe0 : ip.bytes[0] === 0xff);

/** 169.254.0.0/16 and fe80::/10. */
export const isLinkLocalUnicastIP = (ip: ParsedIP): boolean =>
  ip.family === 4 ? ip.bytes[0] === 169 && ip.bytes[1] === 254 : ip.bytes[0] === 0xfe && (ip.bytes[1]! & 0xc0) === 0x80;

/** Go's IsGlobalUnicast: any unicast address but the limited broadcast, unspecified, loopback and link-local (private ranges count). */
export function isGlobalUnicastIP(ip: ParsedIP): boolean {
  const broadcast = ip.family === 4 && ip.bytes.every((b) => b === 255);
  return !broadcast && !isUnspecifiedIP(ip) && !isLoopbackIP(ip) && !isMulticastIP(ip) && !isLinkLocalUnicastIP(ip);
}
