import { describe, expect, test } from "bun:test";
import { isExtendedResourceName, isNativeResourceName } from "../../src/api";

// One answer for pod validation, the scheduler's fit check and the Node status. Before issue 25
// there were three copies: api/validation.ts called foo.kubernetes.io/x (and xkubernetes.io/y)
// extended, the scheduler's and the cluster's called Example.com/gpu and example.com/a/b extended.
describe("isExtendedResourceName", () => {
  test.each([
    ["example.com/gpu", true],
    ["nvidia.com/gpu", true],
    // Anything naming the kubernetes.io domain is native, subdomains included.
    ["foo.kubernetes.io/x", false],
    ["kubernetes.io/x", false],
    // No domain: native (cpu, memory, hugepages-*).
    ["cpu", false],
    ["hugepages-2Mi", false],
    // A quota name is never a resource.
    ["requests.example.com/x", false],
    // Must still be a qualified name once prefixed with "requests." for a quota.
    ["Example.com/gpu", false],
    ["example.com/a/b", false],
  ])("%s → %p", (name, extended) => {
    expect(isExtendedResourceName(name)).toBe(extended);
  });

  test("native names are the unprefixed ones and those in the kubernetes.io domain", () => {
    expect(["cpu", "hugepages-2Mi", "kubernetes.io/x", "foo.kubernetes.io/x"].every(isNativeResourceName)).toBe(true);
    expect(isNativeResourceName("example.com/gpu")).toBe(false);
  });
});
