import { describe, expect, test } from "bun:test";
import { driverName, expandSlice, parseCgroupfsName, parseSystemdName, toCgroupfs, toSystemd } from "../../src/cm/cgroup-name";

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
