// The fields the agent cannot honour are refused at admission with a reason, never silently ignored.
import { describe, expect, test } from "bun:test";
import type { Pod, PodSpec } from "kubernetes-types/core/v1";
import { admitPod, FIELD_NOT_SUPPORTED_REASON, UnsupportedFieldsAdmitHandler } from "../../src/admission";

const pod = (spec: Partial<PodSpec> = {}): Pod => ({
  metadata: { name: "web", namespace: "default", uid: "u-1" },
  spec: { containers: [{ name: "app", image: "busybox" }], ...spec },
});
const admit = (p: Pod) => admitPod([new UnsupportedFieldsAdmitHandler()], { pod: p, otherPods: [] });

describe("UnsupportedFieldsAdmitHandler", () => {
  test("a pod without such fields is admitted, with their harmless values too", () => {
    expect(admit(pod())).toEqual({ admit: true });
    expect(admit(pod({ hostAliases: [], hostUsers: true, resourceClaims: [], setHostnameAsFQDN: true }))).toEqual({ admit: true });
  });

  test("hostAliases and setHostnameAsFQDN with a subdomain are admitted: the agent honours them (src/agent/etc-hosts.ts)", () => {
    expect(admit(pod({ hostAliases: [{ ip: "10.0.0.1", hostnames: ["db"] }] }))).toEqual({ admit: true });
    expect(admit(pod({ setHostnameAsFQDN: true, subdomain: "svc" }))).toEqual({ admit: true });
  });

  test("each unsupported field is refused with PodFieldNotSupported and a message naming it", () => {
    const cases: [Partial<PodSpec>, string][] = [
      [{ hostUsers: false }, "spec.hostUsers: false is not supported by nodeagent"],
      [{ resourceClaims: [{ name: "gpu" }] }, "spec.resourceClaims is not supported by nodeagent"],
      [
        { containers: [{ name: "app", image: "busybox", resources: { claims: [{ name: "gpu" }] } }] },
        'resources.claims of container "app" is not supported by nodeagent',
      ],
      [
        { initContainers: [{ name: "init", image: "busybox", volumeDevices: [{ name: "disk", devicePath: "/dev/xvda" }] }] },
        'volumeDevices of container "init" is not supported by nodeagent',
      ],
    ];
    for (const [spec, start] of cases) {
      const r = admit(pod(spec));
      expect(r.admit).toBe(false);
      if (!r.admit) {
        expect(r.reason).toBe(FIELD_NOT_SUPPORTED_REASON);
        expect(r.message).toStartWith(start);
      }
    }
  });
});
