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
import { bitString, boolean, explicit, integer, octetString, oid, sequence, set, time, tlv, utf8String, ipBytes, pemBlock } from "../util";

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
  return createHash("sha1")
    .update(spkiDer.subarray(bits.start + 1, bits.end))
    .digest();
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
  return pemBlock("CERTIFICATE", der);
}
