// The pod's supplementary groups and their policy (src/api/supplemental-groups.ts), and validation of
// fsGroupChangePolicy and supplementalGroupsPolicy values as the API server's ValidatePodSecurityContext.
import { expect, test } from "bun:test";
import type { Pod } from "kubernetes-types/core/v1";
import { podSupplementalGroups, podSupplementalGroupsPolicy, validatePod } from "../../src/api";

const pod = (sc: Record<string, unknown>): Pod => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "web", namespace: "default", uid: "3c2d7c4e-1b3a-4c5d-9e6f-0a1b2c3d4e5f" },
  spec: {
    securityContext: sc as NonNullable<Pod["spec"]>["securityContext"],
    containers: [{ name: "app", image: "busybox", imagePullPolicy: "IfNotPresent", terminationMessagePolicy: "File" }],
    restartPolicy: "Always",
    dnsPolicy: "ClusterFirst",
    terminationGracePeriodSeconds: 30,
  },
});
const messages = (p: Pod) => validatePod(p).map((e) => e.message);

test("fsGroup first, then supplementalGroups; the policy as written", () => {
  expect(podSupplementalGroups(pod({ fsGroup: 1001, supplementalGroups: [5, 6] }))).toEqual([1001, 5, 6]);
  expect(podSupplementalGroups(pod({ fsGroup: 0 }))).toEqual([0]);
  expect(podSupplementalGroups(pod({}))).toEqual([]);
  expect(podSupplementalGroupsPolicy(pod({ supplementalGroupsPolicy: "Strict" }))).toBe("Strict");
  expect(podSupplementalGroupsPolicy(pod({}))).toBeUndefined();
});

test("fsGroupChangePolicy and supplementalGroupsPolicy: only the API's values", () => {
  expect(messages(pod({ fsGroupChangePolicy: "OnRootMismatch", supplementalGroupsPolicy: "Strict" }))).toEqual([]);
  expect(messages(pod({ fsGroupChangePolicy: "Always", supplementalGroupsPolicy: "Merge" }))).toEqual([]);
  expect(messages(pod({ fsGroupChangePolicy: "Sometimes" }))).toEqual([
    'spec.securityContext.fsGroupChangePolicy: Unsupported value: "Sometimes": supported values: "Always", "OnRootMismatch"',
  ]);
  expect(messages(pod({ supplementalGroupsPolicy: "Loose" }))).toEqual([
    'spec.securityContext.supplementalGroupsPolicy: Unsupported value: "Loose": supported values: "Merge", "Strict"',
  ]);
});
