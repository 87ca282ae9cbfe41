// The serviceaccounts/<name>/token subresource: TokenREST.Create (k/k@1.24.1
// pkg/registry/core/serviceaccount/storage/token.go) with its validation
// (pkg/apis/authentication/validation ValidateTokenRequest) and claims (pkg/serviceaccount/claims.go).
// The token is a JWT whose payload carries the real claims (iss, sub, aud, exp, iat, nbf and the
// kubernetes.io private claims binding it to the service account and the pod) but is not signed
// (alg "none"): tests decode it to check what it is bound to, nothing verifies it.
import type { BoundObjectReference, TokenRequest } from "kubernetes-types/authentication/v1";
import type { Pod, ServiceAccount } from "kubernetes-types/core/v1";
import { isPlainObject } from "./objects";
import { timestamp, type Registry } from "./registry";
import { badRequest, conflict, invalid, notFound } from "./status";

export interface TokenIssuer {
  /** --service-account-issuer: the tokens' `iss`. */
  issuer: string;
  /** --api-audiences: what an empty spec.audiences means (the apiserver defaults it to the issuer). */
  audiences: string[];
  /** --service-account-max-token-expiration, 0 for none. */
  maxExpirationSeconds: number;
  /** --service-account-extend-token-expiration (default true). */
  extendExpiration: boolean;
}

/** The claims a test can read back from a token this server issued. */
export interface TokenClaims {
  iss: string;
  sub: string;
  aud: string[];
  exp: number;
  iat: number;
  nbf: number;
  "kubernetes.io": {
    namespace: string;
    serviceaccount: { name: string; uid: string };
    pod?: { name: string; uid: string };
    warnafter?: number;
  };
}

/** token.WarnOnlyBoundTokenExpirationSeconds and ExpirationExtensionSeconds (pkg/serviceaccount/claims.go). */
const WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS = 3600 + 7;
const EXPIRATION_EXTENSION_SECONDS = 24 * 365 * 3600;
const MIN_TOKEN_SECONDS = 10 * 60;

const b64url = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");

/** Decodes a token this server issued (test helper). */
export function decodeToken(token: string): TokenClaims {
  const [, payload] = token.split(".");
  return JSON.parse(Buffer.from(payload ?? "", "base64url").toString()) as TokenClaims;
}

const tokenTarget = (name: string) => ({ qualified: "TokenRequest.authentication.k8s.io", resource: "TokenRequest", group: "authentication.k8s.io", name });

/** POST .../serviceaccounts/<name>/token: the TokenRequest back with status.token and status.expirationTimestamp. */
export function createToken(registry: Registry, issuer: TokenIssuer, namespace: string, name: string, body: unknown, now: number): TokenRequest {
  if (!isPlainObject(body)) throw badRequest("the body of the request is not a JSON object");
  const req = structuredClone(body) as unknown as TokenRequest;
  if (req.metadata?.name && req.metadata.name !== name) {
    throw invalid(tokenTarget(name), "TokenRequest.authentication.k8s.io", [
      { field: "metadata.name", type: "FieldValueInvalid", message: `Invalid value: "${req.metadata.name}": must match the service account name if specified` },
    ]);
  }
  if (req.metadata?.namespace && req.metadata.namespace !== namespace) {
    throw invalid(tokenTarget(name), "TokenRequest.authentication.k8s.io", [
      {
        field: "metadata.namespace",
        type: "FieldValueInvalid",
        message: `Invalid value: "${req.metadata.namespace}": must match the service account namespace if specified`,
      },
    ]);
  }
  const sa = registry.get("serviceaccounts", namespace, name) as ServiceAccount | undefined;
  if (!sa) throw notFound({ qualified: "serviceaccounts", resource: "serviceaccounts", group: "", name });
  // authentication/v1 defaults: expirationSeconds 3600; empty audiences are the server's.
  const spec = { ...req.spec, expirationSeconds: req.spec?.expirationSeconds ?? 3600 };
  if (!spec.audiences?.length) spec.audiences = [...issuer.audiences];
  const seconds = spec.expirationSeconds;
  if (seconds < MIN_TOKEN_SECONDS || seconds > 2 ** 32) {
    const why = seconds < MIN_TOKEN_SECONDS ? "may not specify a duration less than 10 minutes" : "may not specify a duration larger than 2^32 seconds";
    throw invalid(tokenTarget(""), "TokenRequest.authentication.k8s.io", [
      { field: "spec.expirationSeconds", type: "FieldValueInvalid", message: `Invalid value: ${seconds}: ${why}` },
    ]);
  }
  let pod: Pod | undefined;
  const ref: BoundObjectReference | undefined = spec.boundObjectRef;
  if (ref) {
    if ((ref.apiVersion ?? "").includes("/") || ref.kind !== "Pod") throw badRequest(`cannot bind token to object of type ${gvkString(ref)}`);
    pod = registry.get("pods", namespace, ref.name ?? "") as Pod | undefined;
    if (!pod) throw notFound({ qualified: "pods", resource: "pods", group: "", name: ref.name });
    if (name !== pod.spec?.serviceAccountName)
      throw badRequest(`cannot bind token for serviceaccount "${name}" to pod running with different serviceaccount name.`);
    if (ref.uid && ref.uid !== pod.metadata?.uid) {
      // GroupResource{Resource: gvk.Kind}: the real message names "Pod", not "pods".
      throw conflict(
        { qualified: "Pod", resource: "Pod", group: "", name: ref.name },
        `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`,
      );
    }
  }
  let shortened = seconds;
  if (issuer.maxExpirationSeconds > 0 && shortened > issuer.maxExpirationSeconds) shortened = issuer.maxExpirationSeconds;
  spec.expirationSeconds = shortened;
  // The transition of projected tokens: a pod-bound token asked for 3607 s with the server's audiences
  // is valid for a year, and the claims say when it should have expired (warnafter).
  let exp = shortened;
  let warnAfter = 0;
  const kubeAudiences = spec.audiences.length === issuer.audiences.length && spec.audiences.every((a) => issuer.audiences.includes(a));
  if (issuer.extendExpiration && pod && shortened === WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS && kubeAudiences) {
    warnAfter = shortened;
    exp = EXPIRATION_EXTENSION_SECONDS;
  }
  const iat = Math.floor(now / 1000);
  const claims: TokenClaims = {
    aud: spec.audiences,
    exp: iat + exp,
    iat,
    iss: issuer.issuer,
    "kubernetes.io": {
      namespace,
      ...(pod ? { pod: { name: pod.metadata?.name ?? "", uid: pod.metadata?.uid ?? "" } } : {}),
      serviceaccount: { name, uid: sa.metadata?.uid ?? "" },
      ...(warnAfter ? { warnafter: iat + warnAfter } : {}),
    },
    nbf: iat,
    sub: `system:serviceaccount:${namespace}:${name}`,
  };
  const token = `${b64url({ alg: "none", kid: "nodeagent-test" })}.${b64url(claims)}.`;
  return {
    kind: "TokenRequest",
    apiVersion: "authentication.k8s.io/v1",
    metadata: { name, namespace, creationTimestamp: timestamp(now) },
    spec,
    // Status expiry is the (possibly shortened) requested one, never the extension: the kubelet
    // refreshes on it.
    status: { token, expirationTimestamp: timestamp(now + shortened * 1000) },
  };
}

function gvkString(ref: BoundObjectReference): string {
  const [group, version] = (ref.apiVersion ?? "").includes("/") ? ref.apiVersion!.split("/") : ["", ref.apiVersion ?? ""];
  return `${group}/${version}, Kind=${ref.kind ?? ""}`;
}
