// Where the kubelet keeps the certificates it was issued (client-go util/certificate
// certificate_store.go, k/k@1.24.1): one file per issued pair, `<cert-dir>/<prefix>-<2006-01-02-15-04-05>.pem`
// holding the certificate chain then the private key, mode 0600, and the symlink `<prefix>-current.pem`
// pointing at the newest, swapped atomically (a new link renamed over the old) so a reader never sees
// a missing file. Prefixes: kubelet-client (the API client's identity) and kubelet-server (the serving
// certificate). The kubeconfig written by the bootstrap names the -current.pem path for both
// client-certificate and client-key, so a rotation needs no new kubeconfig.
import { X509Certificate, createPrivateKey, type KeyObject } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync } from "node:fs";
import { basename, join } from "node:path";
import { errorMessage, writeFileAtomic } from "../util";

export interface CertificatePair {
  /** PEM: the certificate, then any intermediates, as issued. */
  certPem: string;
  keyPem: string;
  /** The leaf certificate, parsed. */
  cert: X509Certificate;
  key: KeyObject;
  notBefore: number;
  notAfter: number;
}

const CERT_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/g;
const KEY_BLOCK = /-----BEGIN (?:EC |RSA )?PRIVATE KEY-----[\s\S]+?-----END (?:EC |RSA )?PRIVATE KEY-----\n?/;

/** Parses a certificate PEM and its key PEM into a pair; throws saying what is wrong. */
export function parsePair(certPem: string, keyPem: string): CertificatePair {
  const certs = certPem.match(CERT_BLOCK) ?? [];
  if (certs.length === 0) throw new Error("no PEM certificate");
  const keyBlock = KEY_BLOCK.exec(keyPem)?.[0];
  if (!keyBlock) throw new Error("no PEM private key");
  let cert: X509Certificate;
  let key: KeyObject;
  try {
    cert = new X509Certificate(certs[0]!);
  } catch (err) {
    throw new Error(`the certificate does not parse: ${errorMessage(err)}`);
  }
  try {
    key = createPrivateKey(keyBlock);
  } catch (err) {
    throw new Error(`the private key does not parse: ${errorMessage(err)}`);
  }
  if (!cert.checkPrivateKey(key)) throw new Error("the private key does not match the certificate");
  return { certPem: certs.join(""), keyPem: keyBlock, cert, key, notBefore: Date.parse(cert.validFrom), notAfter: Date.parse(cert.validTo) };
}

/** Parses one file holding certificate(s) and key (the store's format; also a kubeconfig's cert/key pair). */
export function parsePairFile(pem: string): CertificatePair {
  return parsePair(pem, pem);
}

/** Go's "2006-01-02-15-04-05" layout of a time, UTC. */
export function pairTimestamp(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace(/[T:]/g, "-");
}

export class CertificateStore {
  constructor(
    readonly certDir: string,
    /** "kubelet-client" or "kubelet-server". */
    readonly prefix: string,
  ) {}

  /** The path the kubeconfig and the server read: the symlink to the newest pair. */
  get currentPath(): string {
    return join(this.certDir, `${this.prefix}-current.pem`);
  }

  /** The current pair, undefined when there is none; throws when the file is there but unusable. */
  current(): CertificatePair | undefined {
    let pem: string;
    try {
      pem = readFileSync(this.currentPath, "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw new Error(`cannot read ${this.currentPath}: ${errorMessage(err)}`);
    }
    try {
      return parsePairFile(pem);
    } catch (err) {
      throw new Error(`${this.currentPath}: ${errorMessage(err)}`);
    }
  }

  /** Writes a newly issued pair and points the symlink at it; returns it parsed. */
  update(certPem: string, keyPem: string, now: number): CertificatePair {
    const pair = parsePair(certPem, keyPem);
    const file = join(this.certDir, `${this.prefix}-${pairTimestamp(now)}.pem`);
    try {
      mkdirSync(this.certDir, { recursive: true, mode: 0o755 });
      writeFileAtomic(file, pair.certPem + pair.keyPem, 0o600);
      chmodSync(file, 0o600);
      const link = `${this.currentPath}.updating`;
      rmSync(link, { force: true });
      // Relative, as the kubelet's: the directory can move as a whole.
      symlinkSync(basename(file), link);
      renameSync(link, this.currentPath);
    } catch (err) {
      throw new Error(`cannot store the ${this.prefix} certificate in ${this.certDir}: ${errorMessage(err)}`);
    }
    return pair;
  }
}
