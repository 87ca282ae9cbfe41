// The certificates.k8s.io/v1 calls of a certificate request, as client-go's util/certificate/csr
// (k/k@1.24.1 staging/src/k8s.io/client-go/util/certificate/csr/csr.go) makes them:
//   RequestCertificate   POST a CertificateSigningRequest (a fixed name for the bootstrap request, so
//                        a restarted kubelet finds its own pending request again; generateName "csr-"
//                        for rotations). An existing object of that name is reused when it holds the
//                        same request (ensureCompatible), an error otherwise.
//   WaitForCertificate   until the object (the same uid) is Approved and has status.certificate, or is
//                        Denied or Failed, or the time is up.
// client-go waits with a watch on the one object; this waits by polling it (GET each second on the
// agent's clock), which the tests drive with a fake clock and which costs the API server one small GET
// a second while a request is pending.
import type { CertificateSigningRequest, CertificateSigningRequestCondition } from "kubernetes-types/certificates/v1";
import type { KubeClient } from "../kube";
import { type Clock, errorMessage } from "../util";

export const CSR_PATH = "/apis/certificates.k8s.io/v1/certificatesigningrequests";

/** The kubelet's two signers (certificates.k8s.io well-known signers). */
export const KUBELET_CLIENT_SIGNER = "kubernetes.io/kube-apiserver-client-kubelet";
export const KUBELET_SERVING_SIGNER = "kubernetes.io/kubelet-serving";

/** The API calls this needs: a KubeClient's getJson/postJson. */
export type CsrApi = Pick<KubeClient, "getJson" | "postJson">;

export interface CertificateRequestSpec {
  /** metadata.name; without it generateName "csr-". */
  name?: string;
  /** "CERTIFICATE REQUEST" PEM. */
  requestPem: string;
  signerName: string;
  usages: string[];
}

export interface RequestedCsr {
  name: string;
  uid: string;
}

/** HTTP status of an API error from KubeClient (client-node's ApiException carries `code`). */
function statusOf(err: unknown): number | undefined {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === "number" ? code : undefined;
}

/** The API server's message of an error answer, else the error's own. */
function apiMessage(err: unknown): string {
  const body = (err as { body?: unknown } | undefined)?.body;
  if (typeof body === "string") {
    try {
      const m = (JSON.parse(body) as { message?: string }).message;
      if (m) return m;
    } catch {
      /* not a Status */
    }
  }
  return errorMessage(err);
}

/** Creates the CertificateSigningRequest (or finds the same one already there). */
export async function requestCertificate(api: CsrApi, spec: CertificateRequestSpec): Promise<RequestedCsr> {
  const request = Buffer.from(spec.requestPem).toString("base64");
  const body: CertificateSigningRequest = {
    apiVersion: "certificates.k8s.io/v1",
    kind: "CertificateSigningRequest",
    metadata: spec.name ? { name: spec.name } : { generateName: "csr-" },
    spec: { request, signerName: spec.signerName, usages: spec.usages as CertificateSigningRequest["spec"]["usages"] },
  };
  try {
    const created = await api.postJson<CertificateSigningRequest>(CSR_PATH, body);
    return { name: created.metadata?.name ?? spec.name ?? "", uid: created.metadata?.uid ?? "" };
  } catch (err) {
    if (statusOf(err) !== 409 || !spec.name) throw new Error(`cannot create the certificate signing request: ${apiMessage(err)}`);
  }
  // A request of this name exists: ours from before a restart (the bootstrap name digests the key,
  // subject and usages), unless its content says otherwise.
  let existing: CertificateSigningRequest;
  try {
    existing = await api.getJson<CertificateSigningRequest>(`${CSR_PATH}/${encodeURIComponent(spec.name)}`);
  } catch (err) {
    throw new Error(`certificate signing request ${spec.name} exists but cannot be read: ${apiMessage(err)}`);
  }
  const same =
    existing.spec.request === request &&
    existing.spec.signerName === spec.signerName &&
    [...(existing.spec.usages ?? [])].sort().join(",") === [...spec.usages].sort().join(",");
  if (!same) throw new Error(`certificate signing request ${spec.name} exists with a different request, signer or usages`);
  return { name: spec.name, uid: existing.metadata?.uid ?? "" };
}

const condition = (csr: CertificateSigningRequest, type: string): CertificateSigningRequestCondition | undefined =>
  csr.status?.conditions?.find((c) => c.type === type && (c.status ?? "True") === "True");

/** The PEM certificate once issued; throws when denied, failed, replaced, or not issued in time. */
export async function waitForCertificate(api: CsrApi, csr: RequestedCsr, clock: Clock, timeoutMs: number, signal?: AbortSignal): Promise<string> {
  const deadline = clock.now() + timeoutMs;
  const path = `${CSR_PATH}/${encodeURIComponent(csr.name)}`;
  let lastError = "";
  for (;;) {
    let got: CertificateSigningRequest | undefined;
    try {
      got = await api.getJson<CertificateSigningRequest>(path);
    } catch (err) {
      // A NotFound is final (someone deleted it); anything else is retried until the deadline.
      if (statusOf(err) === 404) throw new Error(`certificate signing request ${csr.name} was deleted while waiting for it`);
      lastError = apiMessage(err);
    }
    if (got) {
      if (csr.uid && got.metadata?.uid && got.metadata.uid !== csr.uid)
        throw new Error(`certificate signing request ${csr.name} was replaced (uid ${got.metadata.uid}, ours ${csr.uid})`);
      const denied = condition(got, "Denied");
      if (denied) throw new Error(`certificate signing request ${csr.name} is denied, reason: ${denied.reason ?? ""}, message: ${denied.message ?? ""}`);
      const failed = condition(got, "Failed");
      if (failed) throw new Error(`certificate signing request ${csr.name} failed, reason: ${failed.reason ?? ""}, message: ${failed.message ?? ""}`);
      if (condition(got, "Approved") && got.status?.certificate) return Buffer.from(got.status.certificate, "base64").toString("utf8");
    }
    if (clock.now() >= deadline) {
      throw new Error(
        `timed out after ${Math.round(timeoutMs / 1000)}s waiting for certificate signing request ${csr.name} to be approved and issued${lastError ? ` (last error: ${lastError})` : got ? (condition(got, "Approved") ? " (approved, not yet signed)" : " (still pending approval)") : ""}`,
      );
    }
    await clock.sleep(Math.min(POLL_MS, Math.max(0, deadline - clock.now())), signal);
  }
}

const POLL_MS = 1000;
