// The seccomp, AppArmor, SELinux and /proc masking options of the CRI configs, as the kubelet's
// determineEffectiveSecurityContext and generatePodSandboxLinuxConfig build them (issue 24: these
// fields were accepted and dropped).
import { describe, expect, test } from "bun:test";
import type { Container, Pod } from "kubernetes-types/core/v1";
import { containerConfig, sandboxConfig, type RuntimeConfigOptions } from "../../src/agent/runtime-config";
import { DEFAULT_MASKED_PATHS, DEFAULT_READONLY_PATHS, seccompProfileToCri } from "../../src/agent/security-context";

const o: RuntimeConfigOptions = {
  podLogsRoot: "/var/log/pods",
  podsDir: "/var/lib/nodeagent/pods",
  cgroupRoot: "/nodeagent",
  nodeName: "node1",
  hostIP: "192.0.2.10",
};
const pod = (): Pod => ({
  metadata: { name: "web-node1", namespace: "prod", uid: "u-1" },
  spec: { containers: [{ name: "app", image: "busybox" }] },
});
const sc = (p: Pod, c: Container = p.spec!.containers[0]!, options: RuntimeConfigOptions = o) =>
  containerConfig({ pod: p, container: c, init: false, restartCount: 0, podIP: "", imageRef: "x", options, volumePath: () => undefined }).linux!
    .securityContext!;

describe("seccomp", () => {
  test("unset is Unconfined (the kubelet's seccompDefault is off)", () => {
    expect(sc(pod()).seccomp).toEqual({ profileType: "Unconfined" });
  });

  test("the pod's profile applies to a container without one; the container's wins", () => {
    const p = pod();
    p.spec!.securityContext = { seccompProfile: { type: "RuntimeDefault" } };
    expect(sc(p).seccomp).toEqual({ profileType: "RuntimeDefault" });
    p.spec!.containers[0]!.securityContext = { seccompProfile: { type: "Unconfined" } };
    expect(sc(p).seccomp).toEqual({ profileType: "Unconfined" });
  });

  test("Localhost is a file below <root-dir>/seccomp, or the given root", () => {
    const p = pod();
    p.spec!.containers[0]!.securityContext = { seccompProfile: { type: "Localhost", localhostProfile: "profiles/./audit.json" } };
    expect(sc(p).seccomp).toEqual({ profileType: "Localhost", localhostRef: "/var/lib/nodeagent/seccomp/profiles/audit.json" });
    expect(sc(p, undefined, { ...o, seccompProfileRoot: "/etc/seccomp" }).seccomp).toEqual({
      profileType: "Localhost",
      localhostRef: "/etc/seccomp/profiles/audit.json",
    });
  });

  test("a Localhost name that would leave the folder, or none, is an error (CreateContainerConfigError), never another file", () => {
    for (const name of ["../../etc/passwd", "/etc/passwd", "a/../../b", "", "."]) {
      expect(() => seccompProfileToCri({ type: "Localhost", localhostProfile: name }, "/var/lib/nodeagent/seccomp")).toThrow();
    }
    const p = pod();
    p.spec!.containers[0]!.securityContext = { seccompProfile: { type: "Localhost", localhostProfile: "../x.json" } };
    expect(() => sc(p)).toThrow("must be a relative path inside /var/lib/nodeagent/seccomp without '..'");
    p.spec!.containers[0]!.securityContext = { seccompProfile: { type: "Localhost" } };
    expect(() => sc(p)).toThrow("localhostProfile must be set if seccompProfile type is Localhost.");
  });

  test("the sandbox always runs RuntimeDefault, with the pod's SELinux options", () => {
    const p = pod();
    expect(sandboxConfig(p, 0, o).linux!.securityContext!.seccomp).toEqual({ profileType: "RuntimeDefault" });
    expect(sandboxConfig(p, 0, o).linux!.securityContext!.selinuxOptions).toBeNull();
    p.spec!.securityContext = { seccompProfile: { type: "Unconfined" }, seLinuxOptions: { level: "s0:c1,c2" } };
    const s = sandboxConfig(p, 0, o).linux!.securityContext!;
    expect(s.seccomp).toEqual({ profileType: "RuntimeDefault" });
    expect(s.selinuxOptions).toEqual({ user: "", role: "", type: "", level: "s0:c1,c2" });
  });
});

describe("AppArmor", () => {
  test("nothing asked: no profile", () => {
    const s = sc(pod());
    expect(s.apparmor).toBeUndefined();
    expect(s.apparmorProfile).toBeUndefined();
  });

  test("container field, then the annotation, then the pod field; structured and deprecated forms", () => {
    const p = pod();
    p.spec!.securityContext = { appArmorProfile: { type: "RuntimeDefault" } };
    expect(sc(p)).toMatchObject({ apparmor: { profileType: "RuntimeDefault" }, apparmorProfile: "runtime/default" });
    p.metadata!.annotations = { "container.apparmor.security.beta.kubernetes.io/app": "localhost/k8s-deny-write" };
    expect(sc(p)).toMatchObject({ apparmor: { profileType: "Localhost", localhostRef: "k8s-deny-write" }, apparmorProfile: "localhost/k8s-deny-write" });
    p.spec!.containers[0]!.securityContext = { appArmorProfile: { type: "Unconfined" } };
    expect(sc(p)).toMatchObject({ apparmor: { profileType: "Unconfined" }, apparmorProfile: "unconfined" });
  });

  test("an annotation for another container does not apply", () => {
    const p = pod();
    p.metadata!.annotations = { "container.apparmor.security.beta.kubernetes.io/other": "runtime/default" };
    expect(sc(p).apparmor).toBeUndefined();
  });
});

describe("SELinux", () => {
  test("the container's options, else the pod's, passed as they are", () => {
    const p = pod();
    expect(sc(p).selinuxOptions).toBeNull();
    p.spec!.securityContext = { seLinuxOptions: { type: "spc_t" } };
    expect(sc(p).selinuxOptions).toEqual({ user: "", role: "", type: "spc_t", level: "" });
    p.spec!.containers[0]!.securityContext = { seLinuxOptions: { user: "system_u", role: "system_r", type: "container_t", level: "s0:c5" } };
    expect(sc(p).selinuxOptions).toEqual({ user: "system_u", role: "system_r", type: "container_t", level: "s0:c5" });
  });
});

describe("procMount", () => {
  test("Default (or unset) sends the kubelet's masked and read-only paths: containerd masks only what it is given", () => {
    const p = pod();
    for (const procMount of [undefined, "Default"]) {
      p.spec!.containers[0]!.securityContext = procMount ? { procMount } : {};
      const s = sc(p);
      expect(s.maskedPaths).toEqual([...DEFAULT_MASKED_PATHS]);
      expect(s.readonlyPaths).toEqual([...DEFAULT_READONLY_PATHS]);
    }
    expect(DEFAULT_MASKED_PATHS).toContain("/proc/kcore");
    expect(DEFAULT_READONLY_PATHS).toContain("/proc/sysrq-trigger");
  });

  test("Unmasked sends none", () => {
    const p = pod();
    p.spec!.containers[0]!.securityContext = { procMount: "Unmasked" };
    expect(sc(p)).toMatchObject({ maskedPaths: [], readonlyPaths: [] });
  });
});
