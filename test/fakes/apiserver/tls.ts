// A throwaway CA and a serving certificate for 127.0.0.1, made with the openssl CLI in a temp dir, so
// clients verify the server exactly as they verify a real kube-apiserver (CA data from the kubeconfig).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface ServingCert {
  caPem: string;
  certPem: string;
  keyPem: string;
}

function openssl(args: string[], cwd: string): void {
  const r = Bun.spawnSync(["openssl", ...args], { cwd, stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`openssl ${args[0]} failed: ${r.stderr.toString().trim()}`);
}

let cached: ServingCert | undefined;

/** One CA + cert per process: key generation costs ~100 ms and every server may share them. */
export function servingCert(): ServingCert {
  if (cached) return cached;
  const dir = mkdtempSync(join(tmpdir(), "test-apiserver-tls-"));
  try {
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
        "/CN=test-apiserver-ca",
        "-keyout",
        "ca.key",
        "-out",
        "ca.crt",
      ],
      dir,
    );
    openssl(
      [
        "req",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-subj",
        "/CN=kube-apiserver",
        "-keyout",
        "server.key",
        "-out",
        "server.csr",
      ],
      dir,
    );
    writeFileSync(join(dir, "ext.cnf"), "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n");
    openssl(
      ["x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-days", "2", "-extfile", "ext.cnf", "-out", "server.crt"],
      dir,
    );
    const read = (f: string) => readFileSync(join(dir, f), "utf8");
    cached = { caPem: read("ca.crt"), certPem: read("server.crt"), keyPem: read("server.key") };
    return cached;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
