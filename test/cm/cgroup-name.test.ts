import { describe, expect, test } from "bun:test";
import { cgroupPathProblem, driverName, expandSlice, parseCgroupfsName, parseSystemdName, toCgroupfs, toSystemd } from "../../src/cm/cgroup-name";

describe("cgroup names in each driver's spelling (CgroupName.ToCgroupfs, ToSystemd)", () => {
  const uid = "0c2f7d1e-5b7a-4c1e-9a61-2f3c4d5e6f70";
  test("cgroupfs: the components joined as a path", () => {
    expect(toCgroupfs(["kubepods", "burstable", `pod${uid}`])).toBe(`/kubepods/burstable/pod${uid}`);
    expect(toCgroupfs([])).toBe("/");
    expect(parseCgroupfsName("/nodeagent/x")).toEqual(["nodeagent", "x"]);
    expect(parseCgroupfsName("/")).toEqual([]);
  });

  test("systemd: '-' written '_', joined with '-', expanded into the parent slices", () => {
    const u = uid.replaceAll("-", "_");
    expect(toSystemd(["kubepods"])).toBe("/kubepods.slice");
    expect(toSystemd(["kubepods", "burstable", `pod${uid}`])).toBe(`/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${u}.slice`);
    expect(toSystemd(["kubepods", `pod${uid}`])).toBe(`/kubepods.slice/kubepods-pod${u}.slice`);
    expect(toSystemd(["kubepods", "besteffort", `pod${uid}`])).toBe(`/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod${u}.slice`);
    // A cgroup root of nodeagent's (--cgroup-root /nodeagent-e2e) is one component, escaped.
    expect(toSystemd(["nodeagent-e2e", "kubepods"])).toBe("/nodeagent_e2e.slice/nodeagent_e2e-kubepods.slice");
    expect(toSystemd([])).toBe("/");
    expect(driverName(["a", "b"], "systemd")).toBe("/a.slice/a-b.slice");
    expect(driverName(["a", "b"], "cgroupfs")).toBe("/a/b");
  });

  test("ExpandSlice refuses what is not a slice name", () => {
    expect(expandSlice("-.slice")).toBe("/");
    expect(() => expandSlice("a--b.slice")).toThrow("invalid slice name: a--b.slice");
    expect(() => expandSlice("-a.slice")).toThrow("invalid slice name");
    expect(() => expandSlice("a/b.slice")).toThrow("invalid slice name");
    expect(() => expandSlice("kubepods")).toThrow("invalid slice name");
  });

  test("a systemd name back to its components (ParseSystemdToCgroupName)", () => {
    expect(parseSystemdName("/system.slice")).toEqual(["system"]);
    expect(parseSystemdName("/kube.slice/kube-reserved_x.slice")).toEqual(["kube", "reserved-x"]);
    expect(toSystemd(parseSystemdName("/kube.slice/kube-reserved.slice"))).toBe("/kube.slice/kube-reserved.slice");
  });
});

describe("--cgroup-root and the reserved cgroups: a clean absolute cgroup path (issue 24)", () => {
  test("/ and plain names below it are clean", () => {
    for (const ok of ["/", "/nodeagent", "/kubepods.slice", "/a/b-c/d_e", "/system.slice"]) expect(cgroupPathProblem(ok)).toBeUndefined();
  });

  test("relative, empty segments, . and .., NUL and newline are refused, saying why", () => {
    expect(cgroupPathProblem("")).toBe("must be an absolute cgroup path, e.g. /nodeagent");
    expect(cgroupPathProblem("nodeagent")).toBe("must be an absolute cgroup path, e.g. /nodeagent");
    expect(cgroupPathProblem("/../../etc")).toBe(`must not have a ".." segment: a cgroup path names a cgroup below the root, e.g. /nodeagent`);
    expect(cgroupPathProblem("/a/./b")).toContain(`a "." segment`);
    expect(cgroupPathProblem("/a/..")).toContain(`a ".." segment`);
    expect(cgroupPathProblem("/a//b")).toContain("empty segment");
    expect(cgroupPathProblem("/a/")).toContain("empty segment");
    expect(cgroupPathProblem("//")).toContain("empty segment");
    expect(cgroupPathProblem("/a\0b")).toContain("NUL");
    expect(cgroupPathProblem("/a\nb")).toContain("newline");
  });
});
