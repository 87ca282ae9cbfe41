// The route table (route-table.ts) that routing and the auth filter share: every route has its
// authorization entry, the one the kubelet's prefix rule gives its paths, and the filter authorizes
// each route's requests as that entry says.
import { describe, expect, test } from "bun:test";
import { checkRequest } from "../../src/server/auth";
import { Authenticator } from "../../src/server/authn";
import { Authorizer } from "../../src/server/authz";
import { subresourceOf } from "../../src/server/request-attributes";
import { allowedMethods, findRoute, routeSubresource, ROUTES } from "../../src/server/route-table";
import { FakeClock } from "../../src/util/clock";

const SUBRESOURCES = ["proxy", "stats", "metrics", "log", "spec"];

describe("the route table", () => {
  test("every route has an authorization entry, the subresource the kubelet's prefix rule gives its paths", () => {
    expect(ROUTES.length).toBeGreaterThan(0);
    for (const r of ROUTES) {
      expect(SUBRESOURCES).toContain(r.subresource);
      expect(findRoute(r.example)?.name).toBe(r.name);
      expect([r.name, subresourceOf(r.example)]).toEqual([r.name, r.subresource]);
      expect(routeSubresource(r.example)).toBe(r.subresource);
    }
  });

  test("each route is one row, and no two rows serve the same path", () => {
    expect(new Set(ROUTES.map((r) => r.name)).size).toBe(ROUTES.length);
    for (const r of ROUTES) {
      const segments = r.example.split("/").slice(1);
      expect(ROUTES.filter((o) => o.match(r.example, segments)).map((o) => o.name)).toEqual([r.name]);
    }
  });

  test("a path no route serves is authorized by the prefix rule alone (then answered 404)", () => {
    for (const p of ["/nope", "/logs/syslog", "/spec/", "/stats/container", "/metrics/cadvisor", "/healthz/"]) {
      expect(findRoute(p)).toBeUndefined();
      expect(routeSubresource(p)).toBe(subresourceOf(p));
    }
  });

  test("GET brings HEAD into a route's Allow list", () => {
    expect(allowedMethods(ROUTES.find((r) => r.name === "pods")!)).toEqual(["GET", "HEAD", "POST"]);
    expect(allowedMethods(ROUTES.find((r) => r.name === "pod")!)).toEqual(["GET", "HEAD", "DELETE"]);
  });

  test("the auth filter asks the authorizer about each route's request as nodes/<its subresource>", async () => {
    const clock = new FakeClock();
    const asked: string[] = [];
    const authorizer = new Authorizer({
      mode: "Webhook",
      webhook: {
        reviewer: {
          createSubjectAccessReview: async (r) => {
            asked.push(r.spec.resourceAttributes?.subresource ?? "");
            return { ...r, status: { allowed: true } };
          },
        },
        cacheAuthorizedTTLMs: 0,
        cacheUnauthorizedTTLMs: 0,
      },
      clock,
    });
    const reviewer = {
      createTokenReview: async (r: { spec: { token?: string } }) => ({ ...r, status: { authenticated: true, user: { username: "bob", groups: [] } } }),
    };
    const authenticator = new Authenticator({ webhook: { reviewer, cacheTTLMs: 0 }, anonymous: false, clock });
    for (const r of ROUTES) {
      asked.length = 0;
      await checkRequest({ nodeName: "n", authenticator, authorizer }, "GET", r.example, { authorization: "Bearer t" });
      expect([r.name, asked]).toEqual([r.name, [r.subresource]]);
    }
  });
});
