// certificates.k8s.io/v1 for the test API server (issue 18): what the API server does with a
// CertificateSigningRequest on create (pkg/registry/certificates/certificates/strategy.go
// PrepareForCreate + validation: the requester's name and groups written into the spec, status
// cleared, the request must be a PKCS#10 PEM with a valid signature, a signer and usages), and what
// kube-controller-manager's controllers do afterwards:
//   csrapproving (pkg/controller/certificates/approver/sarapprove.go): a kubelet client request
//     (signer kubernetes.io/kube-apiserver-client-kubelet, O exactly [system:nodes], CN system:node:*,
//     no SANs, usages exactly {digital signature, key encipherment, client auth}) is approved when the
//     requester may create certificatesigningrequests/nodeclient (here: a member of
//     system:bootstrappers, as RBAC's binding of the nodeclient ClusterRole does) or, when it is the
//     node itself (username == CN), certificatesigningrequests/selfnodeclient (members of system:nodes).
//     Condition Approved, reason AutoApproved. Serving requests are never auto-approved (as upstream).
//   csrsigning: an approved request for one of the kubelet's signers gets status.certificate, signed
//     by the test client CA (the CA the server's x509 authentication trusts), for `days`.
// Parsing and signing go through the openssl CLI, so the agent's DER is read by a real parser.
import type { CertificateSigningRequest } from "kubernetes-types/certificates/v1";
import type { TestClientCA } from "../client-certs";
import type { User } from "./auth";
import type { AnyObject } from "./objects";
import type { Registry } from "./registry";
import { invalid } from "./status";

export interface ParsedCsr {
  commonName: string;
  organizations: string[];
  dnsNames: string[];
  ipAddresses: string[];
  /** Emails and URIs: a kubelet never asks for them. */
  otherNames: string[];
}

const CLIENT_KUBELET = "kubernetes.io/kube-apiserver-client-kubelet";
const SERVING = "kubernetes.io/kubelet-serving";
const CLIENT = "kubernetes.io/kube-apiserver-client";
const NODE_CLIENT_USAGES = ["client auth", "digital signature", "key encipherment"];

/** Reads a PEM request with `openssl req -verify`; throws with openssl's words. */
export function parseCsrPem(pem: string): ParsedCsr {
  const r = Bun.spawnSync(["openssl", "req", "-noout", "-text", "-verify", "-nameopt", "sep_multiline,sname,utf8"], {
    stdin: Buffer.from(pem),
    stdout: "pipe",
    stderr: "pipe",
  });
  const err = r.stderr.toString();
  if (r.exitCode !== 0 || /verify fail/i.test(err)) throw new Error(err.trim() || "openssl req failed");
  const text = r.stdout.toString();
  const subject = /Subject:\s*\n((?:\s{8,}\S.*\n)+)/.exec(text)?.[1] ?? "";
  const attr = (k: string) => [...subject.matchAll(new RegExp(`^\\s+${k}=(.*)$`, "gm"))].map((m) => m[1]!.trim());
  const san = /X509v3 Subject Alternative Name:.*\n\s*(.*)\n/.exec(text)?.[1] ?? "";
  const entries = san ? san.split(/,\s*/) : [];
  const of = (p: string) => entries.filter((e) => e.startsWith(p)).map((e) => e.slice(p.length));
  return {
    commonName: attr("CN")[0] ?? "",
    organizations: attr("O"),
    dnsNames: of("DNS:"),
    ipAddresses: of("IP Address:"),
    otherNames: entries.filter((e) => !e.startsWith("DNS:") && !e.startsWith("IP Address:")),
  };
}

const pemOf = (csr: CertificateSigningRequest) => Buffer.from(csr.spec?.request ?? "", "base64").toString("utf8");

/** PrepareForCreate and validation of a new request: the requester recorded, the request readable. */
export function prepareCsrCreate(body: AnyObject, user: User): AnyObject {
  const csr = body as unknown as CertificateSigningRequest;
  const name = csr.metadata?.name;
  const fail = (field: string, message: string) =>
    invalid(
      { qualified: "certificatesigningrequests.certificates.k8s.io", resource: "certificatesigningrequests", group: "certificates.k8s.io", name },
      "CertificateSigningRequest",
      [{ field, type: "FieldValueInvalid", message }],
    );
  if (!csr.spec?.signerName) throw fail("spec.signerName", "Required value");
  if (!csr.spec.usages?.length) throw fail("spec.usages", "Required value");
  try {
    parseCsrPem(pemOf(csr));
  } catch (err) {
    throw fail("spec.request", `Invalid value: []byte{...}: ${(err as Error).message}`);
  }
  const spec = { ...csr.spec, username: user.name, groups: user.groups };
  return { ...body, spec, status: {} } as AnyObject;
}

export interface CertificateControllerOptions {
  ca: TestClientCA;
  /** Auto-approve kubelet client requests, as kube-controller-manager's csrapproving controller. */
  autoApprove: boolean;
  /** Validity of the certificates signed. */
  days: number;
}

/** The controller manager's approver and signer, run after each change to a request. */
export class CertificateController {
  constructor(
    private readonly registry: Registry,
    private readonly o: CertificateControllerOptions,
  ) {}

  /** Approves and signs what is due, a moment after the call (the controllers run asynchronously). */
  kick(): void {
    setTimeout(() => this.reconcile(), 5);
  }

  reconcile(): void {
    for (const o of this.registry.list("certificatesigningrequests") as unknown as CertificateSigningRequest[]) {
      const conditions = o.status?.conditions ?? [];
      const has = (t: string) => conditions.some((c) => c.type === t);
      if (has("Denied") || has("Failed")) continue;
      if (!has("Approved") && this.o.autoApprove) {
        const message = this.approvalMessage(o);
        if (message) {
          this.write(o, "approval", {
            ...o.status,
            conditions: [...conditions, { type: "Approved", status: "True", reason: "AutoApproved", message, lastUpdateTime: new Date().toISOString() }],
          });
          continue; // signed on the next round, after the approval's own change
        }
      }
      if (has("Approved") && !o.status?.certificate && [CLIENT_KUBELET, SERVING, CLIENT].includes(o.spec.signerName)) this.sign(o);
    }
  }

  private write(o: CertificateSigningRequest, subresource: string, status: CertificateSigningRequest["status"]): void {
    this.registry.update("certificatesigningrequests", { ...o, status } as unknown as AnyObject, subresource);
    this.kick();
  }

  /** sarapprove's recognizers: the message of the approval, undefined when no recognizer applies. */
  private approvalMessage(o: CertificateSigningRequest): string | undefined {
    if (o.spec.signerName !== CLIENT_KUBELET) return undefined;
    let x: ParsedCsr;
    try {
      x = parseCsrPem(pemOf(o));
    } catch {
      return undefined;
    }
    const usages = [...(o.spec.usages ?? [])].sort();
    const isNodeClient =
      x.organizations.length === 1 &&
      x.organizations[0] === "system:nodes" &&
      x.commonName.startsWith("system:node:") &&
      !x.dnsNames.length &&
      !x.ipAddresses.length &&
      !x.otherNames.length &&
      usages.join(",") === NODE_CLIENT_USAGES.join(",");
    if (!isNodeClient) return undefined;
    const groups = o.spec.groups ?? [];
    if (groups.includes("system:bootstrappers")) return "Auto approving kubelet client certificate after SubjectAccessReview.";
    if (o.spec.username === x.commonName && groups.includes("system:nodes")) return "Auto approving self kubelet client certificate after SubjectAccessReview.";
    return undefined;
  }

  private sign(o: CertificateSigningRequest): void {
    const usages = o.spec.usages ?? [];
    const keyUsage = [usages.includes("digital signature") ? "digitalSignature" : "", usages.includes("key encipherment") ? "keyEncipherment" : ""].filter(
      Boolean,
    );
    const eku = [usages.includes("client auth") ? "clientAuth" : "", usages.includes("server auth") ? "serverAuth" : ""].filter(Boolean);
    const ext = [
      "basicConstraints=critical,CA:FALSE",
      ...(keyUsage.length ? [`keyUsage=critical,${keyUsage.join(",")}`] : []),
      ...(eku.length ? [`extendedKeyUsage=${eku.join(",")}`] : []),
    ];
    try {
      const cert = this.o.ca.signRequest(pemOf(o), ext, this.o.days);
      this.write(o, "status", { ...o.status, certificate: Buffer.from(cert).toString("base64") });
    } catch (err) {
      const conditions = [
        ...(o.status?.conditions ?? []),
        { type: "Failed", status: "True", reason: "SigningError", message: (err as Error).message, lastUpdateTime: new Date().toISOString() },
      ];
      this.write(o, "status", { ...o.status, conditions });
    }
  }
}
