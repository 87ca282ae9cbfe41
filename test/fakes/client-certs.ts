// A throwaway client CA and certificates it signs (CN = user, O = groups), made with the openssl CLI as
// test/fakes/apiserver/tls.ts makes the API server's: what a kubelet's --client-ca-file trusts and what
// the API server presents as its kubelet client certificate.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface ClientCert {
  certPem: string;
  keyPem: string;
}

function openssl(args: string[], cwd: string): void {
  const r = Bun.spawnSync(["openssl", ...args], { cwd, stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`openssl ${args[0]} failed: ${r.stderr.toString().trim()}`);
}

export class TestClientCA {
  readonly caPem: string;
  private readonly dir: string;
  private n = 0;

  constructor(commonName = "test-client-ca") {
    this.dir = mkdtempSync(join(tmpdir(), "test-client-ca-"));
    openssl(
      [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-days",
        "2",
        "-subj",
        `/CN=${commonName}`,
        "-keyout",
        "ca.key",
        "-out",
        "ca.crt",
      ],
      this.dir,
    );
    this.caPem = readFileSync(join(this.dir, "ca.crt"), "utf8");
  }

  /** A client certificate for `user` in `groups` (extendedKeyUsage clientAuth unless told otherwise). */
  issue(user: string, groups: string[] = [], extKeyUsage = "clientAuth"): ClientCert {
    const id = `c${++this.n}`;
    const subj = `/CN=${user}${groups.map((g) => `/O=${g}`).join("")}`;
    openssl(
      ["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-subj", subj, "-keyout", `${id}.key`, "-out", `${id}.csr`],
      this.dir,
    );
    writeFileSync(join(this.dir, `${id}.ext`), `extendedKeyUsage=${extKeyUsage}\n`);
    openssl(
      ["x509", "-req", "-in", `${id}.csr`, "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-days", "2", "-extfile", `${id}.ext`, "-out", `${id}.crt`],
      this.dir,
    );
    return { certPem: readFileSync(join(this.dir, `${id}.crt`), "utf8"), keyPem: readFileSync(join(this.dir, `${id}.key`), "utf8") };
  }

  /**
   * Signs a PKCS#10 request (PEM) as a CSR signer would: the subject and any subjectAltName taken from
   * the request, `extensions` (openssl x509v3 config lines such as keyUsage=… and extendedKeyUsage=…)
   * added, valid for `days` from now. Returns the certificate PEM.
   */
  signRequest(csrPem: string, extensions: string[], days: number): string {
    const id = `s${++this.n}`;
    writeFileSync(join(this.dir, `${id}.csr`), csrPem);
    writeFileSync(join(this.dir, `${id}.ext`), extensions.join("\n") + "\n");
    openssl(
      [
        "x509",
        "-req",
        "-in",
        `${id}.csr`,
        "-CA",
        "ca.crt",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-days",
        String(days),
        "-copy_extensions",
        "copy",
        "-extfile",
        `${id}.ext`,
        "-out",
        `${id}.crt`,
      ],
      this.dir,
    );
    return readFileSync(join(this.dir, `${id}.crt`), "utf8");
  }

  /** Writes the CA bundle to a file (for --client-ca-file) and returns its path. */
  writeCA(path: string): string {
    writeFileSync(path, this.caPem);
    return path;
  }

  /** Writes a client certificate and its key (0600) as <prefix>.crt and <prefix>.key, for the CLI's flags. */
  writeClient(prefix: string, c: ClientCert): { cert: string; key: string } {
    writeFileSync(`${prefix}.crt`, c.certPem);
    writeFileSync(`${prefix}.key`, c.keyPem, { mode: 0o600 });
    return { cert: `${prefix}.crt`, key: `${prefix}.key` };
  }

  cleanup(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
