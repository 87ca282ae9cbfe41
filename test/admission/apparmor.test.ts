// The kubelet's AppArmor admit handler: a profile the host cannot enforce refuses the pod (reason
// AppArmor, "Cannot enforce AppArmor: ..."), rather than run it unconfined.
import { describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod } from "kubernetes-types/core/v1";
import { admitPod, AppArmorAdmitHandler, appArmorHostProblem } from "../../src/admission";

const NOT_ENABLED = "AppArmor is not enabled on the host";
const pod = (extra: (p: Pod) => void = () => {}): Pod => {
  const p: Pod = {
    metadata: { name: "web", namespace: "default", uid: "u-1" },
    spec: { containers: [{ name: "app", image: "busybox" }], initContainers: [{ name: "init", image: "busybox" }] },
  };
  extra(p);
  return p;
};
const admit = (p: Pod, host: string | null) => admitPod([new AppArmorAdmitHandler(host)], { pod: p, otherPods: [] });

describe("AppArmorAdmitHandler", () => {
  const asking: [string, (p: Pod) => void][] = [
    ["pod RuntimeDefault", (p) => (p.spec!.securityContext = { appArmorProfile: { type: "RuntimeDefault" } })],
    ["container Localhost", (p) => (p.spec!.containers[0]!.securityContext = { appArmorProfile: { type: "Localhost", localhostProfile: "k8s-x" } })],
    ["init container RuntimeDefault", (p) => (p.spec!.initContainers![0]!.securityContext = { appArmorProfile: { type: "RuntimeDefault" } })],
    ["annotation runtime/default", (p) => (p.metadata!.annotations = { "container.apparmor.security.beta.kubernetes.io/app": "runtime/default" })],
    ["annotation localhost/x", (p) => (p.metadata!.annotations = { "container.apparmor.security.beta.kubernetes.io/app": "localhost/x" })],
  ];

  test("on a host without AppArmor, any profile but Unconfined is refused with the kubelet's reason and message", () => {
    for (const [what, set] of asking) {
      expect({ what, r: admit(pod(set), NOT_ENABLED) }).toEqual({
        what,
        r: { admit: false, reason: "AppArmor", message: "Cannot enforce AppArmor: AppArmor is not enabled on the host" },
      });
    }
  });

  test("nothing asked, or Unconfined everywhere, is admitted on any host", () => {
    expect(admit(pod(), NOT_ENABLED)).toEqual({ admit: true });
    expect(
      admit(
        pod((p) => {
          p.spec!.securityContext = { appArmorProfile: { type: "Unconfined" } };
          p.spec!.containers[0]!.securityContext = { appArmorProfile: { type: "Unconfined" } };
          p.metadata!.annotations = { "container.apparmor.security.beta.kubernetes.io/app": "unconfined" };
        }),
        NOT_ENABLED,
      ),
    ).toEqual({ admit: true });
  });

  test("on a host with AppArmor, profiles are admitted; an empty Localhost name is not", () => {
    for (const [what, set] of asking) expect({ what, r: admit(pod(set), null) }).toEqual({ what, r: { admit: true } });
    const r = admit(
      pod((p) => (p.metadata!.annotations = { "container.apparmor.security.beta.kubernetes.io/app": "localhost/ " })),
      null,
    );
    expect(r.admit).toBe(false);
    if (!r.admit) expect(r.message).toStartWith("Cannot enforce AppArmor: invalid empty AppArmor profile name:");
  });

  test("a pod already running is not checked again", () => {
    const p: Pod = { ...pod(asking[0]![1]), status: { phase: "Running" } };
    expect(admit(p, NOT_ENABLED)).toEqual({ admit: true });
  });

  test("the host check reads /sys/module/apparmor/parameters/enabled: Y is enabled; N or no file is not", () => {
    const dir = mkdtempSync(join(tmpdir(), "apparmor-"));
    writeFileSync(join(dir, "y"), "Y\n");
    writeFileSync(join(dir, "n"), "N\n");
    expect(appArmorHostProblem(join(dir, "y"))).toBeUndefined();
    expect(appArmorHostProblem(join(dir, "n"))).toBe(NOT_ENABLED);
    expect(appArmorHostProblem(join(dir, "missing"))).toBe(NOT_ENABLED);
  });
});
