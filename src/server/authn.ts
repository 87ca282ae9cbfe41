// Who is calling: the kubelet's authenticator (k/k 1.24 pkg/kubelet/server/auth.go BuildAuthn, built
// like staging apiserver pkg/authentication/authenticatorfactory DelegatingAuthenticatorConfig.New).
// A request is tried, in order, by:
//   1. its client certificate (x509), when --client-ca-file is set: the TLS layer verified the chain
//      against that CA; the user is the certificate's CN, the groups its O values
//      (x509.CommonNameUserConversion). A certificate that does not verify, or is not for client
//      authentication, is an error, not "anonymous".
//   2. its bearer token ("Authorization: Bearer <t>"): the push token of --push-token-file (nodeagent's
//      own user "nodeagent:push-token"), else, with the token webhook on (--kubeconfig), a
//      TokenReview (authentication.k8s.io/v1) on the API server, its answer cached for
//      authentication.webhook.cacheTTL (2m), authenticated or not. A token nobody accepts is an error.
// The first that says who it is wins, and "system:authenticated" is added to its groups
// (group.AuthenticatedGroupAdder). When none does and none failed, and only then, --anonymous-auth
// makes the caller "system:anonymous" in "system:unauthenticated" (union.NewFailOnError: a bad
// credential is never anonymous). Otherwise the caller is unauthenticated: 401 (auth.ts).
import { createHash, timingSafeEqual } from "node:crypto";
import type { TokenReview } from "kubernetes-types/authentication/v1";
import { type Clock, errorMessage, ExpiringCache } from "../util";
import type { UserInfo } from "./request-attributes";

export const ANONYMOUS_USER: UserInfo = { name: "system:anonymous", groups: ["system:unauthenticated"] };
export const PUSH_TOKEN_USER: UserInfo = { name: "nodeagent:push-token", groups: ["system:authenticated"] };
export const AUTHENTICATED_GROUP = "system:authenticated";
/** The TLS extended key usage a client certificate needs (x509 VerifyOptions.KeyUsages), and "any". */
const CLIENT_AUTH_EKU = "1.3.6.1.5.5.7.3.2";
const ANY_EKU = "2.5.29.37.0";

/** What the TLS layer learnt of the client's certificate. */
export interface PeerCertificate {
  /** The chain verified against --client-ca-file. */
  verified: boolean;
  /** Why it did not (OpenSSL's reason, e.g. "UNABLE_TO_VERIFY_LEAF_SIGNATURE"). */
  verifyError?: string;
  commonName?: string;
  organizations: string[];
  /** Extended key usage OIDs; undefined when the certificate has no such extension (any usage). */
  extKeyUsage?: string[];
  /** SHA-256 fingerprint (colon-separated hex), which certificate it was. */
  fingerprint?: string;
}

/** What authentication looks at: the Authorization header and the client certificate. */
export interface AuthnRequest {
  authorization: string | null;
  peer?: PeerCertificate;
}

/** A credential that was presented and is not valid: 401, never anonymous. */
export class AuthenticationError extends Error {
  override name = "AuthenticationError";
}

/** Asks the API server who a bearer token is (POST authentication.k8s.io/v1 tokenreviews). */
export interface TokenReviewer {
  createTokenReview(review: TokenReview): Promise<TokenReview>;
}

export interface AuthenticatorOptions {
  /** x509 client certificates are accepted (--client-ca-file was given; TLS verified them). */
  x509?: boolean;
  /** The push token of --push-token-file. */
  pushToken?: string;
  /** The token webhook (authentication.webhook.enabled with --kubeconfig). */
  webhook?: { reviewer: TokenReviewer; cacheTTLMs: number; audiences?: string[] };
  /** --anonymous-auth / authentication.anonymous.enabled. */
  anonymous: boolean;
  clock: Pick<Clock, "now">;
}

function sha256(s: string): Buffer {
  return createHash("sha256").update(s).digest();
}

/** Compares in constant time: hashing first makes both sides the same length whatever was sent. */
export function tokenMatches(expected: string, got: string): boolean {
  return timingSafeEqual(sha256(expected), sha256(got));
}

/** The bearer token of an Authorization header, as bearertoken.Authenticator reads it; undefined when there is none. */
export function bearerToken(authorization: string | null): string | undefined {
  if (authorization === null) return undefined;
  const parts = authorization.trim().split(" ");
  if (parts.length < 2 || parts[0]!.toLowerCase() !== "bearer") return undefined;
  return parts[1] || undefined;
}

/** x509.CommonNameUserConversion over a verified chain: undefined without a certificate (or without a CN). */
export function x509User(peer: PeerCertificate | undefined): UserInfo | undefined {
  if (!peer) return undefined;
  if (!peer.verified) throw new AuthenticationError(`verifying certificate failed: ${peer.verifyError ?? "not signed by the client CA"}`);
  if (peer.extKeyUsage && !peer.extKeyUsage.includes(CLIENT_AUTH_EKU) && !peer.extKeyUsage.includes(ANY_EKU)) {
    throw new AuthenticationError("verifying certificate failed: x509: certificate specifies an incompatible key usage");
  }
  if (!peer.commonName) return undefined;
  return { name: peer.commonName, groups: [...peer.organizations] };
}

type Review = { user: UserInfo } | { user: undefined };

export class Authenticator {
  private readonly reviews: ExpiringCache<Review>;

  constructor(private readonly o: AuthenticatorOptions) {
    this.reviews = new ExpiringCache(o.clock);
  }

  /** Whether any credential can be accepted at all (else every caller is anonymous or refused). */
  get acceptsCredentials(): boolean {
    return !!(this.o.x509 || this.o.pushToken || this.o.webhook);
  }

  /** The caller, or undefined when unauthenticated (401). Throws AuthenticationError for a bad credential. */
  async authenticate(r: AuthnRequest): Promise<UserInfo | undefined> {
    const errors: string[] = [];
    let user: UserInfo | undefined;
    if (this.o.x509) {
      try {
        user = x509User(r.peer);
      } catch (e) {
        errors.push(errorMessage(e));
      }
    }
    if (!user) {
      const token = bearerToken(r.authorization);
      if (token !== undefined) {
        try {
          user = await this.tokenUser(token);
          if (!user) errors.push("invalid bearer token");
        } catch (e) {
          errors.push(errorMessage(e));
        }
      }
    }
    if (user) return user.groups.includes(AUTHENTICATED_GROUP) ? user : { ...user, groups: [...user.groups, AUTHENTICATED_GROUP] };
    if (errors.length) throw new AuthenticationError(errors.join("; "));
    return this.o.anonymous ? ANONYMOUS_USER : undefined;
  }

  private async tokenUser(token: string): Promise<UserInfo | undefined> {
    if (this.o.pushToken && tokenMatches(this.o.pushToken, token)) return PUSH_TOKEN_USER;
    const w = this.o.webhook;
    if (!w) return undefined;
    // Keyed by the token's hash: the cache never holds a credential.
    const key = sha256(token).toString("hex");
    const cached = this.reviews.get(key);
    if (cached) return cached.user;
    const answer = await w.reviewer.createTokenReview({
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenReview",
      spec: { token, ...(w.audiences?.length ? { audiences: w.audiences } : {}) },
    });
    const s = answer.status;
    // A review that failed on the server's side (status.error without an answer) is an error, not cached.
    if (!s?.authenticated && s?.error) throw new AuthenticationError(`token review: ${s.error}`);
    const review: Review =
      s?.authenticated && s.user?.username
        ? {
            user: {
              name: s.user.username,
              groups: s.user.groups ?? [],
              ...(s.user.uid ? { uid: s.user.uid } : {}),
              ...(s.user.extra ? { extra: s.user.extra } : {}),
            },
          }
        : { user: undefined };
    // cache.New(tokenAuth, false, cacheTTL, cacheTTL): successes and failures alike.
    this.reviews.set(key, review, w.cacheTTLMs);
    return review.user;
  }
}
