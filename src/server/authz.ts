// What the caller may do: the kubelet's authorizer (k/k 1.24 pkg/kubelet/server/auth.go BuildAuthz,
// staging apiserver pkg/authorization/authorizerfactory and plugin/pkg/authorizer/webhook). Modes:
//   Webhook      (--authorization-mode Webhook, the default with --kubeconfig) every decision is a
//                SubjectAccessReview (authorization.k8s.io/v1) on the API server for the request's
//                attributes (request-attributes.ts); an allowed answer is kept for cacheAuthorizedTTL
//                (5m), any other for cacheUnauthorizedTTL (30s), keyed by the review's spec.
//   AlwaysAllow  (explicit only) every authenticated caller may do everything.
//   PushTokenOnly (no --kubeconfig and no --authorization-mode: a standalone agent has no API server to
//                ask, where the kubelet refuses to start with "no client provided, cannot use webhook
//                authorization") nobody but the push token's user is allowed.
// In every mode the push token's user ("nodeagent:push-token") is allowed everything: it is the
// standalone agent's operator credential, already root on this host through POST /pods.
import type { SubjectAccessReview } from "kubernetes-types/authorization/v1";
import { type Clock, ExpiringCache } from "../util";
import { PUSH_TOKEN_USER } from "./authn";
import type { RequestAttributes } from "./request-attributes";

export const AUTHORIZATION_MODES = ["Webhook", "AlwaysAllow"] as const;
export type AuthorizationMode = (typeof AUTHORIZATION_MODES)[number] | "PushTokenOnly";

export type Decision = { decision: "allow" | "deny" | "no-opinion"; reason: string };

/** Asks the API server whether a user may do something (POST authorization.k8s.io/v1 subjectaccessreviews). */
export interface AccessReviewer {
  createSubjectAccessReview(review: SubjectAccessReview): Promise<SubjectAccessReview>;
}

export interface AuthorizerOptions {
  mode: AuthorizationMode;
  /** With mode Webhook. */
  webhook?: { reviewer: AccessReviewer; cacheAuthorizedTTLMs: number; cacheUnauthorizedTTLMs: number };
  clock: Pick<Clock, "now">;
}

/** The SubjectAccessReview the webhook authorizer sends for these attributes (webhook.go resourceAttributesFrom). */
export function subjectAccessReview(a: RequestAttributes): SubjectAccessReview {
  return {
    apiVersion: "authorization.k8s.io/v1",
    kind: "SubjectAccessReview",
    spec: {
      user: a.user.name,
      ...(a.user.uid ? { uid: a.user.uid } : {}),
      groups: a.user.groups,
      ...(a.user.extra ? { extra: a.user.extra } : {}),
      resourceAttributes: {
        namespace: a.namespace,
        verb: a.verb,
        group: a.apiGroup,
        version: a.apiVersion,
        resource: a.resource,
        subresource: a.subresource,
        name: a.name,
      },
    },
  };
}

export class Authorizer {
  private readonly answers: ExpiringCache<Decision>;

  constructor(private readonly o: AuthorizerOptions) {
    if (o.mode === "Webhook" && !o.webhook) throw new Error("no client provided, cannot use webhook authorization");
    this.answers = new ExpiringCache(o.clock);
  }

  get mode(): AuthorizationMode {
    return this.o.mode;
  }

  /** The decision for a request. Throws when the API server could not be asked (500 "Authorization error"). */
  async authorize(a: RequestAttributes): Promise<Decision> {
    if (a.user.name === PUSH_TOKEN_USER.name) return { decision: "allow", reason: "the push token may do everything" };
    if (this.o.mode === "AlwaysAllow") return { decision: "allow", reason: "" };
    if (this.o.mode === "PushTokenOnly")
      return { decision: "no-opinion", reason: "without --kubeconfig only the push token is authorized (or --authorization-mode AlwaysAllow)" };
    const w = this.o.webhook!;
    const review = subjectAccessReview(a);
    const key = JSON.stringify(review.spec);
    const cached = this.answers.get(key);
    if (cached) return cached;
    const s = (await w.reviewer.createSubjectAccessReview(review)).status;
    if (s?.allowed && s.denied) throw new Error("webhook subject access review returned both allow and deny");
    const d: Decision = { decision: s?.allowed ? "allow" : s?.denied ? "deny" : "no-opinion", reason: s?.reason ?? "" };
    this.answers.set(key, d, s?.allowed ? w.cacheAuthorizedTTLMs : w.cacheUnauthorizedTTLMs);
    return d;
  }
}
