// The PKCS#10 bytes the agent writes, read back by `openssl req -text -noout -verify` (a real parser
// checking the signature), and the bootstrap request's digested name.
import { describe, expect, test } from "bun:test";
import { createPublicKey } from "node:crypto";
import { digestedName } from "../../src/certificate/bootstrap";
import { certificateRequestPem, newPrivateKey } from "../../src/certificate/csr";
import { CLIENT_USAGES, nodeSubject } from "../../src/certificate/usages";
import { parseCsrPem } from "../fakes/apiserver/certificates";

function opensslText(pem: string): { text: string; stderr: string; code: number } {
  const r = Bun.spawnSync(["openssl", "req", "-text", "-noout", "-verify"], { stdin: Buffer.from(pem), stdout: "pipe", stderr: "pipe" });
  return { text: r.stdout.toString(), stderr: r.stderr.toString(), code: r.exitCode };
}

describe("certificate signing requests", () => {
  test("a client request: subject O=system:nodes, CN=system:node:<name>, P-256 key, ecdsa-with-SHA256, signature verifies, no SANs", () => {
    const key = newPrivateKey();
    const pem = certificateRequestPem({ ...nodeSubject("node-1"), privateKey: key });
    expect(pem).toStartWith("-----BEGIN CERTIFICATE REQUEST-----\n");
    const r = opensslText(pem);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("verify OK");
    expect(r.text).toContain("Subject: O = system:nodes, CN = system:node:node-1");
    expect(r.text).toContain("NIST CURVE: P-256");
    expect(r.text).toContain("Signature Algorithm: ecdsa-with-SHA256");
    expect(r.text).not.toContain("Subject Alternative Name");
    // The request's key is the key's public half.
    const spki = createPublicKey(key).export({ type: "spki", format: "pem" }).toString();
    const fromCsr = Bun.spawnSync(["openssl", "req", "-noout", "-pubkey"], { stdin: Buffer.from(pem), stdout: "pipe" }).stdout.toString();
    expect(fromCsr).toBe(spki);
  });

  test("a serving request carries the DNS names and IPs (v4 and v6) as a requested subjectAltName", () => {
    const pem = certificateRequestPem({
      ...nodeSubject("node-1"),
      dnsNames: ["node-1", "node-1.example"],
      ipAddresses: ["10.0.0.5", "fd00::1:2"],
      privateKey: newPrivateKey(),
    });
    const r = opensslText(pem);
    expect(r.code).toBe(0);
    expect(r.text).toContain("Requested Extensions:");
    expect(parseCsrPem(pem)).toEqual({
      commonName: "system:node:node-1",
      organizations: ["system:nodes"],
      dnsNames: ["node-1", "node-1.example"],
      ipAddresses: ["10.0.0.5", "FD00:0:0:0:0:0:1:2"],
      otherNames: [],
    });
  });

  test("a name that is not an IP cannot go in as one", () => {
    expect(() => certificateRequestPem({ ...nodeSubject("n"), ipAddresses: ["not-an-ip"], privateKey: newPrivateKey() })).toThrow(
      '"not-an-ip" is not an IP address',
    );
  });

  test("the bootstrap request's name digests key, subject and usages: stable for the same inputs, different otherwise", () => {
    const key = createPublicKey(newPrivateKey());
    const name = digestedName(key, nodeSubject("n1"), [...CLIENT_USAGES]);
    expect(name).toMatch(/^node-csr-[A-Za-z0-9_-]{43}$/);
    expect(digestedName(key, nodeSubject("n1"), [...CLIENT_USAGES])).toBe(name);
    expect(digestedName(key, nodeSubject("n2"), [...CLIENT_USAGES])).not.toBe(name);
    expect(digestedName(createPublicKey(newPrivateKey()), nodeSubject("n1"), [...CLIENT_USAGES])).not.toBe(name);
    // The delimiter keeps "CN:ab,O:c" apart from "CN:a,O:bc".
    expect(digestedName(key, { commonName: "ab", organizations: ["c"] }, [])).not.toBe(digestedName(key, { commonName: "a", organizations: ["bc"] }, []));
  });
});
