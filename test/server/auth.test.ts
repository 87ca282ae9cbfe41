// The gate every request passes (auth.ts): the kubelet's 401/403/500 texts, --anonymous-read-only's
// redacted reads, and where plain HTTP may listen.
import { describe, expect, test } from "bun:test";
import { checkRequest, isLoopbackAddress, isRefusal, servingExposureError, type AuthGateOptions } from "../../src/server/auth";
import { Authenticator } from "../../src/server/authn";
import { Authorizer } from "../../src/server/authz";
import { FakeClock } from "../../src/util/clock";

const clock = new FakeClock();
const reviewer = {
  createTokenReview: async (r: { spec: { token?: string } }) => ({
    ...r,
    status: r.spec.token === "bob-token" ? { authenticated: true, user: { username: "bob", groups: [] } } : { authenticated: false },
  }),
};
function gate(o: { anonymous?: boolean; anonymousReadOnly?: boolean; sar?: "allow" | "deny" | "error" } = {}): AuthGateOptions {
  const authenticator = new Authenticator({ pushToken: "s3cret", webhook: { reviewer, cacheTTLMs: 0 }, anonymous: o.anonymous ?? false, clock });
  const authorizer = new Authorizer({
    mode: "Webhook",
    webhook: {
      reviewer: {
        createSubjectAccessReview: async (r) => {
          if (o.sar === "error") throw new Error("API server down");
          return { ...r, status: { allowed: o.sar === "allow" } };
        },
      },
      cacheAuthorizedTTLMs: 0,
      cacheUnauthorizedTTLMs: 0,
    },
    clock,
  });
  return { nodeName: "node-a", authenticator, authorizer, anonymousReadOnly: o.anonymousReadOnly };
}

describe("checkRequest", () => {
  test("no credentials: 401 Unauthorized, on every path, /healthz included", async () => {
    for (const path of ["/healthz", "/pods", "/nope"]) {
      expect(await checkRequest(gate(), "GET", path, { authorization: null })).toEqual({ code: 401, body: "Unauthorized", reason: "no credentials" });
    }
  });
  test("a token nobody accepts: 401", async () => {
    expect(await checkRequest(gate({ anonymous: true }), "GET", "/pods", { authorization: "Bearer nope" })).toMatchObject({ code: 401, body: "Unauthorized" });
  });
  test("denied: 403 with the kubelet's text", async () => {
    expect(await checkRequest(gate({ sar: "deny" }), "GET", "/pods", { authorization: "Bearer bob-token" })).toMatchObject({
      code: 403,
      body: "Forbidden (user=bob, verb=get, resource=nodes, subresource=proxy)",
    });
    expect(await checkRequest(gate({ sar: "deny" }), "POST", "/exec/default/web/main", { authorization: "Bearer bob-token" })).toMatchObject({
      code: 403,
      body: "Forbidden (user=bob, verb=create, resource=nodes, subresource=proxy)",
    });
    expect(await checkRequest(gate({ sar: "deny", anonymous: true }), "GET", "/metrics", { authorization: null })).toMatchObject({
      code: 403,
      body: "Forbidden (user=system:anonymous, verb=get, resource=nodes, subresource=metrics)",
    });
  });
  test("the authorizer failing: 500 Authorization error", async () => {
    expect(await checkRequest(gate({ sar: "error" }), "GET", "/stats/summary", { authorization: "Bearer bob-token" })).toMatchObject({
      code: 500,
      body: "Authorization error (user=bob, verb=get, resource=nodes, subresource=stats)",
    });
  });
  test("allowed: the caller, unredacted; the push token without asking", async () => {
    expect(await checkRequest(gate({ sar: "allow" }), "GET", "/pods", { authorization: "Bearer bob-token" })).toEqual({
      user: { name: "bob", groups: ["system:authenticated"] },
      redacted: false,
    });
    const push = await checkRequest(gate({ sar: "error" }), "POST", "/pods", { authorization: "Bearer s3cret" });
    expect(isRefusal(push) ? push : push.user.name).toBe("nodeagent:push-token");
  });
  test("--anonymous-read-only: reads without credentials see the redacted view; writes and bad tokens do not", async () => {
    const g = gate({ anonymousReadOnly: true, sar: "deny" });
    expect(await checkRequest(g, "GET", "/pods", { authorization: null })).toMatchObject({ user: { name: "system:anonymous" }, redacted: true });
    expect(await checkRequest(g, "HEAD", "/pods", { authorization: null })).toMatchObject({ redacted: true });
    expect(await checkRequest(g, "POST", "/pods", { authorization: null })).toMatchObject({ code: 401 });
    expect(await checkRequest(g, "GET", "/pods", { authorization: "Bearer nope" })).toMatchObject({ code: 401 });
    // With --anonymous-auth too, an anonymous caller the authorizer refuses still gets the redacted read.
    expect(await checkRequest(gate({ anonymousReadOnly: true, anonymous: true, sar: "deny" }), "GET", "/pods", { authorization: null })).toMatchObject({
      redacted: true,
    });
    expect(await checkRequest(gate({ anonymousReadOnly: true, anonymous: true, sar: "allow" }), "GET", "/pods", { authorization: null })).toMatchObject({
      redacted: false,
    });
  });
});

describe("where the API may listen", () => {
  test("loopback addresses", () => {
    for (const a of ["127.0.0.1", "127.1.2.3", "::1", "[::1]", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1", "localhost"])
      expect({ a, loop: isLoopbackAddress(a) }).toEqual({ a, loop: true });
    for (const a of ["0.0.0.0", "::", "10.0.0.1", "::2", "example.com"]) expect({ a, loop: isLoopbackAddress(a) }).toEqual({ a, loop: false });
  });
  test("HTTPS anywhere; --insecure-http on loopback only", () => {
    expect(servingExposureError("0.0.0.0", false)).toBeUndefined();
    expect(servingExposureError("127.0.0.1", true)).toBeUndefined();
    expect(servingExposureError("0.0.0.0", true)).toContain("--insecure-http serves the API without TLS");
  });
});
