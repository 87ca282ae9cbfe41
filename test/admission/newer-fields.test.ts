// The 1.31+ fields whose 1.36 gates are on and that the agent does not act on are refused at admission
// with a reason (docs/feature-gates.md), never read and then ignored.
import { describe, expect, test } from "bun:test";
import type { Pod } from "kubernetes-types/core/v1";
import { admitPod, FIELD_NOT_SUPPORTED_REASON, NewerFieldsAdmitHandler } from "../../src/admission";

const pod = (spec: Record<string, unknown> = {}, container: Record<string, unknown> = {}): Pod =>
  ({
    metadata: { name: "web", namespace: "default", uid: "u-1" },
    spec: { restartPolicy: "Always", containers: [{ name: "app", image: "busybox", ...container }], ...spec },
  }) as Pod;
const admit = (p: Pod) => admitPod([new NewerFieldsAdmitHandler()], { pod: p, otherPods: [] });

describe("NewerFieldsAdmitHandler", () => {
  test("a pod without them, or with their harmless values, is admitted", () => {
    expect(admit(pod())).toEqual({ admit: true });
    expect(admit(pod({ securityContext: { supplementalGroupsPolicy: "Merge" }, resources: {} }, { restartPolicy: "Always", restartPolicyRules: [] }))).toEqual({
      admit: true,
    });
    // A sidecar's restartPolicy Always is the native sidecar, honoured.
    expect(admit(pod({ restartPolicy: "Never", initContainers: [{ name: "side", image: "busybox", restartPolicy: "Always" }] }))).toEqual({ admit: true });
  });

  test("supplementalGroupsPolicy Strict and hostnameOverride are left to their owners", () => {
    // Strict is judged against the runtime's features (supplemental-groups-policy.ts); hostnameOverride
    // is honoured (the pod's hostname and /etc/hosts).
    expect(admit(pod({ securityContext: { supplementalGroupsPolicy: "Strict" } }))).toEqual({ admit: true });
    expect(admit(pod({ hostnameOverride: "db-0" }))).toEqual({ admit: true });
  });

  test("each other field is PodFieldNotSupported with a message naming it", () => {
    const cases: [Pod, string][] = [
      [pod({ resources: { limits: { cpu: "1" } } }), "spec.resources (pod-level resources) is not supported by nodeagent"],
      [pod({}, { restartPolicyRules: [{ action: "Restart", exitCodes: { operator: "In", values: [42] } }] }), 'restartPolicyRules of container "app"'],
      [pod({}, { restartPolicy: "Never" }), 'restartPolicy Never of container "app" is not supported by nodeagent'],
      [
        pod({}, { env: [{ name: "TOKEN", valueFrom: { fileKeyRef: { volumeName: "v", path: "env", key: "TOKEN" } } }] }),
        'env TOKEN of container "app": valueFrom.fileKeyRef',
      ],
    ];
    for (const [p, message] of cases) {
      const r = admit(p);
      expect(r.admit).toBe(false);
      if (r.admit) continue;
      expect(r.reason).toBe(FIELD_NOT_SUPPORTED_REASON);
      expect(r.message).toContain(message);
    }
  });
});
