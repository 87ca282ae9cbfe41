// The create-only review APIs a kubelet calls to guard its own API (issue 16): TokenReview
// (authentication.k8s.io/v1, pkg/registry/authentication/tokenreview/storage.go) and
// SubjectAccessReview (authorization.k8s.io/v1, pkg/registry/authorization/subjectaccessreview/rest.go).
// Nothing is stored: the answer is the request with its status filled in, 201 Created.
//   TokenReview          a token this server knows is authenticated as its user (username, groups);
//                        any other, an empty one included, is not, with no error (no authenticator
//                        had an opinion), status {authenticated: false, user: {}}.
//   SubjectAccessReview  spec.user or spec.groups must be set, and resourceAttributes or
//                        nonResourceAttributes ("at least one of user or group must be specified",
//                        422); the decision is the test's: kubeletAccess(spec) → allowed, denied, or
//                        no opinion (allowed false, denied absent), with the reason.
// Who may create them is authorize()'s rule (auth.ts): system:masters, and a node (its static rules are
// the system:node ClusterRole's, which grant create on both).
import type { TokenReview } from "kubernetes-types/authentication/v1";
import type { SubjectAccessReview, SubjectAccessReviewSpec } from "kubernetes-types/authorization/v1";
import type { User } from "./auth";
import { ApiError, badRequest } from "./status";

export type AccessDecision = { allowed: boolean; denied?: boolean; reason?: string };
/** The test's authorization policy for SubjectAccessReviews. */
export type AccessPolicy = (spec: SubjectAccessReviewSpec) => AccessDecision;

/** system:masters may do everything; nobody else anything, until the test says otherwise. */
export const DEFAULT_ACCESS_POLICY: AccessPolicy = (spec) =>
  (spec.groups ?? []).includes("system:masters") ? { allowed: true, reason: "system:masters" } : { allowed: false };

export function tokenReview(body: unknown, users: ReadonlyMap<string, User>): TokenReview {
  const review = body as TokenReview;
  if (review.kind !== undefined && review.kind !== "TokenReview") throw badRequest(`expected kind TokenReview, got ${String(review.kind)}`);
  const token = review.spec?.token ?? "";
  const user = token ? users.get(token) : undefined;
  return {
    apiVersion: "authentication.k8s.io/v1",
    kind: "TokenReview",
    metadata: { creationTimestamp: null as unknown as undefined },
    spec: review.spec ?? {},
    status: user ? { authenticated: true, user: { username: user.name, groups: user.groups }, audiences: review.spec?.audiences } : { user: {} },
  };
}

export function subjectAccessReview(body: unknown, policy: AccessPolicy): SubjectAccessReview {
  const review = body as SubjectAccessReview;
  const spec = review.spec;
  if (!spec || (!spec.user && !(spec.groups ?? []).length)) {
    throw new ApiError({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      reason: "Invalid",
      code: 422,
      message: 'SubjectAccessReview.authorization.k8s.io "" is invalid: spec.user: Invalid value: "": at least one of user or group must be specified',
    });
  }
  if (!spec.resourceAttributes && !spec.nonResourceAttributes) {
    throw new ApiError({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      reason: "Invalid",
      code: 422,
      message:
        'SubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
    });
  }
  const d = policy(spec);
  return {
    apiVersion: "authorization.k8s.io/v1",
    kind: "SubjectAccessReview",
    metadata: { creationTimestamp: null as unknown as undefined },
    spec,
    status: { allowed: d.allowed, ...(d.denied ? { denied: true } : {}), ...(d.reason ? { reason: d.reason } : {}) },
  };
}
