// The kubelet's authorizer: the SubjectAccessReview it sends, the decisions, the cache TTLs
// (cacheAuthorizedTTL 5m, cacheUnauthorizedTTL 30s), AlwaysAllow, and the push token.
import { describe, expect, test } from "bun:test";
import type { SubjectAccessReview } from "kubernetes-types/authorization/v1";
import { PUSH_TOKEN_USER } from "../../src/server/authn";
import { Authorizer, subjectAccessReview } from "../../src/server/authz";
import { requestAttributes } from "../../src/server/request-attributes";
import { FakeClock } from "../../src/util/clock";

const alice = { name: "alice", groups: ["ops", "system:authenticated"] };

class FakeSar {
  calls: SubjectAccessReview[] = [];
  constructor(public answer: (r: SubjectAccessReview) => SubjectAccessReview["status"]) {}
  async createSubjectAccessReview(r: SubjectAccessReview): Promise<SubjectAccessReview> {
    this.calls.push(r);
    return { ...r, status: this.answer(r) };
  }
}

test("the review sent: user, groups and the node's resource attributes", () => {
  expect(subjectAccessReview(requestAttributes("node-a", alice, "GET", "/stats/summary"))).toEqual({
    apiVersion: "authorization.k8s.io/v1",
    kind: "SubjectAccessReview",
    spec: {
      user: "alice",
      groups: ["ops", "system:authenticated"],
      resourceAttributes: { namespace: "", verb: "get", group: "", version: "v1", resource: "nodes", subresource: "stats", name: "node-a" },
    },
  });
});

describe("Authorizer", () => {
  test("Webhook: allowed kept 5m, denied and no-opinion kept 30s", async () => {
    const clock = new FakeClock();
    const sar = new FakeSar((r) =>
      r.spec.resourceAttributes?.subresource === "metrics"
        ? { allowed: true }
        : r.spec.resourceAttributes?.subresource === "proxy"
          ? { allowed: false, denied: true, reason: "no" }
          : { allowed: false },
    );
    const z = new Authorizer({ mode: "Webhook", webhook: { reviewer: sar, cacheAuthorizedTTLMs: 300_000, cacheUnauthorizedTTLMs: 30_000 }, clock });
    const ask = (path: string) => z.authorize(requestAttributes("node-a", alice, "GET", path));
    expect(await ask("/metrics")).toEqual({ decision: "allow", reason: "" });
    expect(await ask("/pods")).toEqual({ decision: "deny", reason: "no" });
    expect(await ask("/stats/summary")).toEqual({ decision: "no-opinion", reason: "" });
    expect(sar.calls).toHaveLength(3);
    await clock.advance(30_000);
    await ask("/metrics");
    await ask("/pods");
    await ask("/stats/summary");
    expect(sar.calls).toHaveLength(5); // the two refusals asked again, the allowance kept
    await clock.advance(270_000);
    await ask("/metrics");
    expect(sar.calls).toHaveLength(6);
  });

  test("Webhook: a review that cannot be sent is an error (500), and is not cached", async () => {
    const clock = new FakeClock();
    const z = new Authorizer({
      mode: "Webhook",
      webhook: {
        reviewer: { createSubjectAccessReview: () => Promise.reject(new Error("connection refused")) },
        cacheAuthorizedTTLMs: 300_000,
        cacheUnauthorizedTTLMs: 30_000,
      },
      clock,
    });
    await expect(z.authorize(requestAttributes("n", alice, "GET", "/pods"))).rejects.toThrow("connection refused");
  });

  test("AlwaysAllow allows; PushTokenOnly allows only the push token; the push token is allowed in every mode", async () => {
    const clock = new FakeClock();
    const sar = new FakeSar(() => ({ allowed: false, denied: true }));
    expect((await new Authorizer({ mode: "AlwaysAllow", clock }).authorize(requestAttributes("n", alice, "POST", "/exec/a/b/c"))).decision).toBe("allow");
    const only = new Authorizer({ mode: "PushTokenOnly", clock });
    expect((await only.authorize(requestAttributes("n", alice, "GET", "/pods"))).decision).toBe("no-opinion");
    expect((await only.authorize(requestAttributes("n", PUSH_TOKEN_USER, "GET", "/pods"))).decision).toBe("allow");
    const webhook = new Authorizer({ mode: "Webhook", webhook: { reviewer: sar, cacheAuthorizedTTLMs: 1, cacheUnauthorizedTTLMs: 1 }, clock });
    expect((await webhook.authorize(requestAttributes("n", PUSH_TOKEN_USER, "DELETE", "/pods/a/b"))).decision).toBe("allow");
    expect(sar.calls).toHaveLength(0);
    expect(() => new Authorizer({ mode: "Webhook", clock })).toThrow("no client provided, cannot use webhook authorization");
  });
});
