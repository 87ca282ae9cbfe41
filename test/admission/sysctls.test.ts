// SysctlAdmitHandler: the kubelet's safe sysctls, --allowed-unsafe-sysctls names and prefixes, the
// host namespace rules, and the patterns refused at start.
import { describe, expect, test } from "bun:test";
import type { Pod } from "kubernetes-types/core/v1";
import { SysctlAdmitHandler, SysctlAllowlist } from "../../src/admission";
import { pod } from "./fixtures";

function withSysctls(names: string[], spec: Partial<NonNullable<Pod["spec"]>> = {}): Pod {
  return pod("s", { spec: { securityContext: { sysctls: names.map((name) => ({ name, value: "1" })) }, ...spec } });
}

describe("SysctlAdmitHandler", () => {
  test("the safe sysctls are allowed; any other is SysctlForbidden, the first one in spec order named", () => {
    const h = new SysctlAdmitHandler();
    expect(
      h.admit({
        pod: withSysctls([
          "kernel.shm_rmid_forced",
          "net.ipv4.ip_local_port_range",
          "net.ipv4.tcp_syncookies",
          "net.ipv4.ping_group_range",
          "net.ipv4.ip_unprivileged_port_start",
        ]),
        otherPods: [],
      }),
    ).toEqual({ admit: true });
    expect(h.admit({ pod: withSysctls(["net.ipv4.tcp_syncookies", "kernel.msgmax", "net.core.somaxconn"]), otherPods: [] })).toEqual({
      admit: false,
      reason: "SysctlForbidden",
      message: 'forbidden sysctl: "kernel.msgmax" not allowlisted',
    });
    expect(h.admit({ pod: pod("none"), otherPods: [] })).toEqual({ admit: true });
  });

  test("--allowed-unsafe-sysctls: names and prefixes ending in *", () => {
    const h = new SysctlAdmitHandler(["kernel.msg*", "net.core.somaxconn"]);
    expect(h.admit({ pod: withSysctls(["kernel.msgmax", "kernel.msgmnb", "net.core.somaxconn"]), otherPods: [] })).toEqual({ admit: true });
    expect(h.admit({ pod: withSysctls(["net.core.rmem_max"]), otherPods: [] })).toMatchObject({
      reason: "SysctlForbidden",
      message: 'forbidden sysctl: "net.core.rmem_max" not allowlisted',
    });
  });

  test("hostNetwork pods may not set net.*, hostIPC pods no ipc sysctls", () => {
    const h = new SysctlAdmitHandler(["kernel.sem", "fs.mqueue.*"]);
    expect(h.admit({ pod: withSysctls(["net.ipv4.tcp_syncookies"], { hostNetwork: true }), otherPods: [] })).toEqual({
      admit: false,
      reason: "SysctlForbidden",
      message: 'forbidden sysctl: "net.ipv4.tcp_syncookies" not allowed with host net enabled',
    });
    expect(h.admit({ pod: withSysctls(["kernel.shm_rmid_forced"], { hostNetwork: true }), otherPods: [] })).toEqual({ admit: true });
    for (const name of ["kernel.shm_rmid_forced", "kernel.sem", "fs.mqueue.msg_max"]) {
      expect(h.admit({ pod: withSysctls([name], { hostIPC: true }), otherPods: [] })).toMatchObject({
        message: `forbidden sysctl: "${name}" not allowed with host ipc enabled`,
      });
    }
    expect(h.admit({ pod: withSysctls(["net.ipv4.tcp_syncookies"], { hostIPC: true }), otherPods: [] })).toEqual({ admit: true });
  });

  test("a name written with slashes is read in its dotted form", () => {
    const h = new SysctlAdmitHandler();
    expect(h.admit({ pod: withSysctls(["net/ipv4/tcp_syncookies"]), otherPods: [] })).toEqual({ admit: true });
    expect(h.admit({ pod: withSysctls(["kernel/msgmax"]), otherPods: [] })).toMatchObject({ message: 'forbidden sysctl: "kernel.msgmax" not allowlisted' });
  });

  test("patterns that are malformed or not namespaced are refused, as the kubelet refuses to start with them", () => {
    expect(() => new SysctlAllowlist(["kernel.panic"])).toThrow('the sysctl "kernel.panic" are not known to be namespaced');
    expect(() => new SysctlAllowlist(["vm.*"])).toThrow('the sysctls "vm.*" are not known to be namespaced');
    expect(() => new SysctlAllowlist(["Net.Core"])).toThrow('sysctl "Net.Core" must have at most 253 characters and match regex');
    expect(() => new SysctlAllowlist(["net.*", "kernel.shm*", "net.core.somaxconn"])).not.toThrow();
  });
});
