// PKCS#10 certificate signing requests (RFC 2986), as the kubelet makes them with client-go's
// util/cert.MakeCSR (k/k@1.24.1 staging/src/k8s.io/client-go/util/certificate/csr/csr.go): a subject
// of CN and O, the node's DNS names and IPs as a subjectAltName extension request (serving
// certificates only), the public key, signed by the private key. Keys are ECDSA P-256 (the kubelet's
// certificate manager and TLS bootstrap both make P-256 keys), so the signature is ecdsa-with-SHA256.
// The DER is written here (src/util/der.ts) and checked by `openssl req` in the tests.
import { createPublicKey, generateKeyPairSync, sign, type KeyObject } from "node:crypto";
import { isIP } from "node:net";
import { bitString, explicit, integer, ipBytes, octetString, oid, pemBlock, sequence, set, tlv, utf8String } from "../util";

const OID = {
  commonName: "2.5.4.3",
  organization: "2.5.4.10",
  ecdsaWithSHA256: "1.2.840.10045.4.3.2",
  sha256WithRSA: "1.2.840.113549.1.1.11",
  extensionRequest: "1.2.840.113549.1.9.14",
  subjectAltName: "2.5.29.17",
};

export interface CsrSubject {
  commonName: string;
  organizations: string[];
}

export interface CsrOptions extends CsrSubject {
  /** subjectAltName dNSName entries (serving certificates). */
  dnsNames?: string[];
  /** subjectAltName iPAddress entries (serving certificates). */
  ipAddresses?: string[];
  privateKey: KeyObject;
}

/** A new P-256 private key (crypto.GenerateKey in the kubelet's certificate manager: elliptic.P256()). */
export function newPrivateKey(): KeyObject {
  return generateKeyPairSync("ec", { namedCurve: "prime256v1" }).privateKey;
}

/** Name ::= SEQUENCE OF RelativeDistinguishedName: O first, then CN, as Go's pkix.Name marshals them. */
function distinguishedName(s: CsrSubject): Buffer {
  const rdn = (type: string, value: string) => set(sequence(oid(type), utf8String(value)));
  return sequence(...s.organizations.map((o) => rdn(OID.organization, o)), rdn(OID.commonName, s.commonName));
}

/** The request, DER. Throws when a name cannot go into the request. */
export function createCertificateRequest(o: CsrOptions): Buffer {
  const spki = createPublicKey(o.privateKey).export({ type: "spki", format: "der" });
  const names = [
    ...(o.dnsNames ?? []).map((d) => tlv(0x82, Buffer.from(d, "ascii"))),
    ...(o.ipAddresses ?? []).map((ip) => {
      if (!isIP(ip)) throw new Error(`${JSON.stringify(ip)} is not an IP address`);
      return tlv(0x87, ipBytes(ip));
    }),
  ];
  // attributes [0] IMPLICIT SET OF Attribute: the extensionRequest (PKCS#9) carrying subjectAltName.
  const attributes = names.length
    ? explicit(0, sequence(oid(OID.extensionRequest), set(sequence(sequence(oid(OID.subjectAltName), octetString(sequence(...names)))))))
    : tlv(0xa0);
  const info = sequence(integer(Buffer.from([0])), distinguishedName(o), spki, attributes);
  const rsa = o.privateKey.asymmetricKeyType === "rsa";
  const algorithm = rsa ? sequence(oid(OID.sha256WithRSA), tlv(0x05)) : sequence(oid(OID.ecdsaWithSHA256));
  return sequence(info, algorithm, bitString(sign("sha256", info, o.privateKey)));
}

/** The request as the CSR object's spec.request carries it: "CERTIFICATE REQUEST" PEM. */
export function certificateRequestPem(o: CsrOptions): string {
  return pemBlock("CERTIFICATE REQUEST", createCertificateRequest(o));
}

/** The private key as the kubelet writes it next to the certificate: "EC PRIVATE KEY" (SEC 1) PEM. */
export function privateKeyPem(key: KeyObject): string {
  return key.asymmetricKeyType === "ec" ? key.export({ type: "sec1", format: "pem" }).toString() : key.export({ type: "pkcs8", format: "pem" }).toString();
}
