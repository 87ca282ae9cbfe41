// supplementalGroupsPolicy at admission (1.36 rejectPodAdmissionBasedOnSupplementalGroupsPolicy, GA and
// locked on): Strict is refused on a node whose status.features does not say the runtime can do it,
// before the predicates; Merge and no policy are admitted everywhere.
import { expect, test } from "bun:test";
import type { Node, Pod } from "kubernetes-types/core/v1";
import { PredicateAdmitHandler } from "../../src/admission";
import { node, pod } from "./fixtures";

const withPolicy = (policy: string | undefined, requests: Record<string, string> = {}): Pod => {
  const p = pod("p", { requests });
  p.spec!.securityContext = { fsGroup: 1001, ...(policy ? { supplementalGroupsPolicy: policy } : {}) } as NonNullable<Pod["spec"]>["securityContext"];
  return p;
};
const withFeatures = (features: unknown): Node => {
  const n = node();
  (n.status as Record<string, unknown>).features = features;
  return n;
};
const admit = (p: Pod, n: Node) => new PredicateAdmitHandler({ node: () => n }).admit({ pod: p, otherPods: [] });

const REFUSED = { admit: false, reason: "SupplementalGroupsPolicyNotSupported", message: "SupplementalGroupsPolicy=Strict is not supported in this node" };

test("Strict on a node without features (containerd 1.6/1.7 report none) or with the feature false: refused with the kubelet's reason", () => {
  expect(admit(withPolicy("Strict"), node())).toEqual(REFUSED);
  expect(admit(withPolicy("Strict"), withFeatures({ supplementalGroupsPolicy: false }))).toEqual(REFUSED);
  // Before the predicates: a pod that would also be out of cpu gets this reason.
  expect(admit(withPolicy("Strict", { cpu: "1000" }), node())).toEqual(REFUSED);
});

test("Strict on a node whose runtime does it, Merge and no policy anywhere: admitted", () => {
  expect(admit(withPolicy("Strict"), withFeatures({ supplementalGroupsPolicy: true }))).toEqual({ admit: true });
  expect(admit(withPolicy("Merge"), node())).toEqual({ admit: true });
  expect(admit(withPolicy(undefined), node())).toEqual({ admit: true });
});
