// The API's serving certificate, as the kubelet chooses it (cmd/kubelet/app/server.go InitializeTLS):
//   --tls-cert-file and --tls-private-key-file given   serve those.
//   neither                                            <cert-dir>/kubelet.crt and kubelet.key (the kubelet's
//                                                      --cert-dir, /var/lib/kubelet/pki; ours <root-dir>/pki):
//                                                      kept and reused when both can be read, otherwise made
//                                                      once, self-signed, and written there.
// The self-signed pair is client-go's GenerateSelfSignedCertKey: a CA "CN=<host>-ca@<unix time>" and a
// serving certificate "CN=<host>@<unix time>" it signs, RSA 2048, valid from an hour ago for a year;
// kubelet.crt holds the serving certificate then the CA (a client that trusts kubelet.crt trusts the
// chain), kubelet.key the serving key. Where we go past the kubelet: its certificate names only the
// hostname; ours also names the node's IP and the listen address when it is one IP, so a client
// dialling the address it was given can verify the certificate (the kubelet's users pass
// --kubelet-insecure-tls or bootstrap a certificate instead).
import { generateKeyPairSync, X509Certificate } from "node:crypto";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { isIP } from "node:net";
import { join } from "node:path";
import { errorMessage, writeFileAtomic } from "../util";
import { certificatePem, createCertificate } from "./x509";

export interface ServingCertificate {
  certFile: string;
  keyFile: string;
  /** PEM: the certificate chain, and the key. */
  cert: string;
  key: string;
  /** Made now (and written), rather than read. */
  generated: boolean;
}

export interface ServingCertificateOptions {
  /** --tls-cert-file / --tls-private-key-file, both or neither. */
  certFile?: string;
  keyFile?: string;
  /** Where the self-signed pair lives (<root-dir>/pki). */
  certDir: string;
  /** The node's name: the certificate's subject and first name. */
  hostname: string;
  /** Other names and addresses to put in subjectAltName (wildcards such as 0.0.0.0 are left out). */
  alternateNames?: string[];
  /** Unix milliseconds now. */
  now?: number;
}

const HOUR = 3600_000;
const YEAR = 365 * 24 * HOUR;

function read(path: string, what: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    throw new Error(`cannot read the TLS ${what} ${path}: ${errorMessage(err)}`);
  }
}

/** The serving certificate and key, read or made (see the file's comment). Throws with the file and reason. */
export function servingCertificate(o: ServingCertificateOptions): ServingCertificate {
  if (o.certFile && o.keyFile)
    return { certFile: o.certFile, keyFile: o.keyFile, cert: read(o.certFile, "certificate"), key: read(o.keyFile, "key"), generated: false };
  const certFile = join(o.certDir, "kubelet.crt");
  const keyFile = join(o.certDir, "kubelet.key");
  // certutil.CanReadCertAndKey: both present and readable; the kubelet does not look inside them.
  if (existsSync(certFile) && existsSync(keyFile)) {
    try {
      return { certFile, keyFile, cert: readFileSync(certFile, "utf8"), key: readFileSync(keyFile, "utf8"), generated: false };
    } catch {
      /* unreadable: made again below, as the kubelet does */
    }
  }
  const { cert, key } = selfSignedServingCertificate(o.hostname, o.alternateNames ?? [], o.now ?? Date.now());
  try {
    mkdirSync(o.certDir, { recursive: true, mode: 0o755 });
    writeFileAtomic(certFile, cert, 0o644);
    writeFileAtomic(keyFile, key, 0o600);
  } catch (err) {
    throw new Error(`cannot write the self-signed serving certificate to ${o.certDir}: ${errorMessage(err)}`);
  }
  return { certFile, keyFile, cert, key, generated: true };
}

/** The names a certificate for this node should carry: the hostname first, then each other name once, no wildcards. */
export function certificateHosts(hostname: string, alternateNames: string[]): string[] {
  const hosts: string[] = [];
  for (const h of [hostname, ...alternateNames]) {
    const n = h.trim().replace(/^\[(.*)\]$/, "$1");
    if (!n || n === "0.0.0.0" || n === "::" || hosts.includes(n)) continue;
    hosts.push(n);
  }
  return hosts;
}

/** client-go GenerateSelfSignedCertKey: a CA and a serving certificate it signs, PEM (chain) and PEM key. */
export function selfSignedServingCertificate(hostname: string, alternateNames: string[], now: number): { cert: string; key: string } {
  const unix = Math.floor(now / 1000);
  const notBefore = now - HOUR;
  const ca = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const caName = `${hostname}-ca@${unix}`;
  const caDer = createCertificate({ commonName: caName, publicKey: ca.publicKey, signingKey: ca.privateKey, notBefore, notAfter: now + YEAR, isCA: true });
  const leaf = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const leafDer = createCertificate({
    commonName: `${hostname}@${unix}`,
    publicKey: leaf.publicKey,
    signingKey: ca.privateKey,
    issuer: { commonName: caName, publicKey: ca.publicKey },
    notBefore,
    notAfter: now + YEAR,
    isCA: false,
    hosts: certificateHosts(hostname, alternateNames),
  });
  const key = leaf.privateKey.export({ type: "pkcs1", format: "pem" }).toString();
  return { cert: certificatePem(leafDer) + certificatePem(caDer), key };
}

/** Reads --client-ca-file: one or more PEM certificates, each parsed so a bad file fails at start. */
export function readClientCA(path: string): string {
  const pem = read(path, "client CA file");
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) throw new Error(`--client-ca-file ${path}: no PEM certificate in it`);
  for (const b of blocks) {
    try {
      new X509Certificate(b);
    } catch (err) {
      throw new Error(`--client-ca-file ${path}: not a valid certificate: ${errorMessage(err)}`);
    }
  }
  return pem;
}

/** Whether `address` names one IP (not a wildcard): worth putting in the certificate. */
export function isSpecificIP(address: string): boolean {
  const a = address.replace(/^\[(.*)\]$/, "$1");
  return isIP(a) !== 0 && a !== "0.0.0.0" && a !== "::";
}
