// Building X.509 certificates without a shell-out or a dependency: node:crypto makes and signs with
// the keys, this file writes the DER (ITU-T X.690) of RFC 5280's TBSCertificate around them. Only
// what the kubelet's self-signed serving certificate needs is here (client-go util/cert
// GenerateSelfSignedCertKeyWithFixtures): a CA (basicConstraints CA:TRUE, keyUsage
// digitalSignature|keyEncipherment|keyCertSign) and a leaf it signs (keyUsage
// digitalSignature|keyEncipherment, extKeyUsage serverAuth, subjectAltName DNS names and IPs), RSA
// keys, sha256WithRSAEncryption. node:crypto's X509Certificate reads the result back (tests do), so
// the encoding is checked by a real parser, and by TLS clients verifying the chain.
import { createHash, randomBytes, sign, type KeyObject } from "node:crypto";
import { isIP } from "node:net";

// ---------------------------------------------------------------------------------------------
// DER

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function tlv(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), length(body.length), body]);
}

const sequence = (...items: Buffer[]) => tlv(0x30, ...items);
const set = (...items: Buffer[]) => tlv(0x31, ...items);
const octetString = (b: Buffer) => tlv(0x04, b);
const bitString = (b: Buffer, unusedBits = 0) => tlv(0x03, Buffer.from([unusedBits]), b);
const utf8String = (s: string) => tlv(0x0c, Buffer.from(s, "utf8"));
const boolean = (v: boolean) => tlv(0x01, Buffer.from([v ? 0xff : 0]));
const explicit = (n: number, inner: Buffer) => tlv(0xa0 | n, inner);

/** A non-negative INTEGER from its big-endian bytes: a leading 0 keeps it positive. */
function integer(bytes: Buffer): Buffer {
  let b = bytes;
  while (b.length > 1 && b[0] === 0 && b[1]! < 0x80) b = b.subarray(1);
  return tlv(0x02, b[0]! >= 0x80 ? Buffer.concat([Buffer.from([0]), b]) : b);
}

function oid(dotted: string): Buffer {
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
function time(ms: number): Buffer {
  const iso = new Date(Math.floor(ms / 1000) * 1000).toISOString(); // 2026-01-01T00:00:00.000Z
  const digits = iso.slice(0, 19).replace(/[-T:]/g, "") + "Z"; // 20260101000000Z
  const year = Number(iso.slice(0, 4));
  return year < 2050 ? tlv(0x17, Buffer.from(digits.slice(2), "ascii")) : tlv(0x18, Buffer.from(digits, "ascii"));
}

// ---------------------------------------------------------------------------------------------
// Certificates

const OID = {
  commonName: "2.5.4.3",
  sha256WithRSA: "1.2.840.113549.1.1.11",
  subjectKeyIdentifier: "2.5.29.14",
  keyUsage: "2.5.29.15",
  subjectAltName: "2.5.29.17",
  basicConstraints: "2.5.29.19",
  authorityKeyIdentifier: "2.5.29.35",
  extKeyUsage: "2.5.29.37",
  serverAuth: "1.3.6.1.5.5.7.3.1",
};

/** keyUsage bits (RFC 5280 4.2.1.3), as the first byte of the BIT STRING: bit 0 is 0x80. */
const DIGITAL_SIGNATURE = 0x80;
const KEY_ENCIPHERMENT = 0x20;
const KEY_CERT_SIGN = 0x04;

function name(commonName: string): Buffer {
  return sequence(set(sequence(oid(OID.commonName), utf8String(commonName))));
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return sequence(oid(id), ...(critical ? [boolean(true)] : []), octetString(value));
}

/** The SubjectKeyIdentifier of RFC 5280 4.2.1.2 method 1 (as Go computes it): SHA-1 of the key's bits. */
function keyIdentifier(spkiDer: Buffer): Buffer {
  // SubjectPublicKeyInfo ::= SEQUENCE { algorithm, subjectPublicKey BIT STRING }: hash the BIT STRING's
  // content after its unused-bits byte. Walk the outer SEQUENCE and skip the algorithm.
  const skip = (b: Buffer, at: number): { start: number; end: number } => {
    let i = at + 1;
    let len = b[i]!;
    i++;
    if (len & 0x80) {
      const n = len & 0x7f;
      len = 0;
      for (let k = 0; k < n; k++) len = len * 256 + b[i + k]!;
      i += n;
    }
    return { start: i, end: i + len };
  };
  const outer = skip(spkiDer, 0);
  const alg = skip(spkiDer, outer.start);
  const bits = skip(spkiDer, alg.end);
  return createHash("sha1").update(spkiDer.subarray(bits.start + 1, bits.end)).digest();
}

export interface CertificateRequest {
  commonName: string;
  /** The key the certificate is for. */
  publicKey: KeyObject;
  /** Signs the certificate: the issuer's key (the subject's own for a self-signed CA). */
  signingKey: KeyObject;
  /** The issuer's common name and public key (for the authority key identifier); the subject's when absent. */
  issuer?: { commonName: string; publicKey: KeyObject };
  notBefore: number;
  notAfter: number;
  isCA: boolean;
  /** subjectAltName entries: IP addresses become iPAddress, anything else dNSName. */
  hosts?: string[];
}

function ipBytes(ip: string): Buffer {
  if (isIP(ip) === 4) return Buffer.from(ip.split(".").map(Number));
  // IPv6: expand "::" then write the eight groups.
  const [head, tail] = ip.includes("::") ? ip.split("::") : [ip, undefined];
  const h = head ? head.split(":") : [];
  const t = tail ? tail.split(":") : [];
  const groups = tail === undefined ? h : [...h, ...Array(8 - h.length - t.length).fill("0"), ...t];
  return Buffer.concat(groups.map((g) => {
    const b = Buffer.alloc(2);
    b.writeUInt16BE(parseInt(g || "0", 16));
    return b;
  }));
}

/** A DER X.509 v3 certificate, signed with sha256WithRSAEncryption by `signingKey` (an RSA private key). */
export function createCertificate(r: CertificateRequest): Buffer {
  const spki = r.publicKey.export({ type: "spki", format: "der" });
  const issuerSpki = r.issuer ? r.issuer.publicKey.export({ type: "spki", format: "der" }) : spki;
  const algorithm = sequence(oid(OID.sha256WithRSA), tlv(0x05));
  const extensions: Buffer[] = [
    extension(OID.keyUsage, true, bitString(Buffer.from([DIGITAL_SIGNATURE | KEY_ENCIPHERMENT | (r.isCA ? KEY_CERT_SIGN : 0)]), r.isCA ? 2 : 5)),
  ];
  if (r.isCA) {
    extensions.push(extension(OID.basicConstraints, true, sequence(boolean(true))));
  } else {
    extensions.push(extension(OID.extKeyUsage, false, sequence(oid(OID.serverAuth))));
    extensions.push(extension(OID.basicConstraints, true, sequence()));
  }
  extensions.push(extension(OID.subjectKeyIdentifier, false, octetString(keyIdentifier(spki))));
  if (r.issuer) extensions.push(extension(OID.authorityKeyIdentifier, false, sequence(tlv(0x80, keyIdentifier(issuerSpki)))));
  if (r.hosts?.length) {
    const names = r.hosts.map((h) => (isIP(h) ? tlv(0x87, ipBytes(h)) : tlv(0x82, Buffer.from(h, "ascii"))));
    extensions.push(extension(OID.subjectAltName, false, sequence(...names)));
  }
  // A random positive serial (RFC 5280 allows up to 20 octets); Go's template uses 1 and 2, which two
  // regenerated certificates from the same issuer name would share.
  const serial = randomBytes(16);
  serial[0] = serial[0]! & 0x7f;
  const tbs = sequence(
    explicit(0, integer(Buffer.from([2]))),
    integer(serial),
    algorithm,
    name(r.issuer?.commonName ?? r.commonName),
    sequence(time(r.notBefore), time(r.notAfter)),
    name(r.commonName),
    spki,
    explicit(3, sequence(...extensions)),
  );
  return sequence(tbs, algorithm, bitString(sign("sha256", tbs, r.signingKey)));
}

/** PEM of a DER certificate ("CERTIFICATE" block, 64-column base64). */
export function certificatePem(der: Buffer): string {
  const b64 = der.toString("base64").replace(/(.{64})/g, "$1\n").replace(/\n$/, "");
  return `-----BEGIN CERTIFICATE-----\n${b64}\n-----END CERTIFICATE-----\n`;
}
