// The kubelet's path → attributes table (pkg/kubelet/server/auth.go GetRequestAttributes), one row a path.
import { describe, expect, test } from "bun:test";
import { apiVerb, isSubpath, requestAttributes, subresourceOf } from "../../src/server/request-attributes";

describe("request attributes", () => {
  test.each([
    ["/stats", "stats"],
    ["/stats/", "stats"],
    ["/stats/summary", "stats"],
    ["/statsx", "proxy"],
    ["/metrics", "metrics"],
    ["/metrics/cadvisor", "metrics"],
    ["/metrics/resource", "metrics"],
    ["/metricsfoo", "proxy"],
    ["/logs", "log"],
    ["/logs/syslog", "log"],
    ["/spec", "spec"],
    ["/spec/", "spec"],
    // A container's logs are pods' data: proxy, not the node's log files.
    ["/containerLogs/default/web/main", "proxy"],
    ["/pods", "proxy"],
    ["/pods/default/web", "proxy"],
    ["/healthz", "proxy"],
    ["/node", "proxy"],
    ["/configz", "proxy"],
    ["/exec/default/web/main", "proxy"],
    ["/run/default/web/main", "proxy"],
    ["/attach/default/web/main", "proxy"],
    ["/portForward/default/web", "proxy"],
    ["/", "proxy"],
    ["/nope", "proxy"],
  ])("%s → nodes/%s", (path, sub) => {
    expect(subresourceOf(path)).toBe(sub);
  });

  test("verbs: the kubelet's switch; HEAD and any other method are the empty verb", () => {
    expect(
      [
        ["GET", "get"],
        ["POST", "create"],
        ["PUT", "update"],
        ["PATCH", "patch"],
        ["DELETE", "delete"],
        ["HEAD", ""],
        ["OPTIONS", ""],
      ].map(([m]) => [m, apiVerb(m!)]),
    ).toEqual([
      ["GET", "get"],
      ["POST", "create"],
      ["PUT", "update"],
      ["PATCH", "patch"],
      ["DELETE", "delete"],
      ["HEAD", ""],
      ["OPTIONS", ""],
    ]);
  });

  test("isSubpath: the path itself or below it at a slash", () => {
    expect(isSubpath("/stats", "/stats/")).toBe(true);
    expect(isSubpath("/stats/x", "/stats/")).toBe(true);
    expect(isSubpath("/statsx", "/stats/")).toBe(false);
    expect(isSubpath("/st", "/stats/")).toBe(false);
  });

  test("every request is on the node's Node object, apiVersion v1, cluster-scoped", () => {
    const user = { name: "alice", groups: ["system:authenticated"] };
    expect(requestAttributes("node-a", user, "POST", "/exec/ns/p/c")).toEqual({
      user,
      verb: "create",
      namespace: "",
      apiGroup: "",
      apiVersion: "v1",
      resource: "nodes",
      subresource: "proxy",
      name: "node-a",
      path: "/exec/ns/p/c",
    });
  });
});
