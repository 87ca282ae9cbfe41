import { describe, expect, test } from "bun:test";
import { decodePodFields, fieldPathChild } from "../../src/api/pod-decode";

describe("decodePodFields", () => {
  test("fields the Pod does not have are listed, with the ones it has there, and kept in the value", () => {
    const d = decodePodFields({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "x", label: { a: "b" } },
      spec: { containers: [{ name: "a", imagePullPolcy: "Always" }], affinity: { nodeAffinity: { requiredDuringScheduling: {} } } },
    });
    expect(d.typeErrors).toEqual([]);
    expect(d.unknownFields.map((u) => u.field)).toEqual([
      "metadata.label",
      "spec.containers[0].imagePullPolcy",
      "spec.affinity.nodeAffinity.requiredDuringScheduling",
    ]);
    expect(d.unknownFields[1]!.known).toContain("imagePullPolicy");
    expect((d.value as { metadata: Record<string, unknown> }).metadata.label).toEqual({ a: "b" });
  });

  test("newer fields than kubernetes-types 1.30 are known", () => {
    const d = decodePodFields({
      spec: {
        resources: { requests: { cpu: "1" } },
        hostnameOverride: "h",
        containers: [{ name: "a", lifecycle: { stopSignal: "SIGTERM" }, resources: { claims: [{ name: "c", request: "r" }] } }],
        volumes: [{ name: "i", image: { reference: "r", pullPolicy: "Always" } }],
        securityContext: { supplementalGroupsPolicy: "Strict", seLinuxChangePolicy: "Recursive" },
        resourceClaims: [{ name: "c", resourceClaimTemplateName: "t" }],
      },
    });
    expect(d.unknownFields).toEqual([]);
    expect(d.typeErrors).toEqual([]);
  });

  test("wrong types are decode errors; map keys with dots are bracketed", () => {
    const d = decodePodFields({ metadata: { labels: { "app.kubernetes.io/name": 1 } }, spec: { hostNetwork: "yes", containers: {} } });
    expect(d.typeErrors).toEqual([
      { field: "metadata.labels[app.kubernetes.io/name]", message: "must be a string, not a number (the kubelet cannot decode the pod)" },
      { field: "spec.hostNetwork", message: "must be a boolean (true or false), not a string (the kubelet cannot decode the pod)" },
      { field: "spec.containers", message: "must be a list, not a mapping (the kubelet cannot decode the pod)" },
    ]);
  });

  test("fieldPathChild", () => {
    expect(fieldPathChild("", "spec")).toBe("spec");
    expect(fieldPathChild("spec", "containers")).toBe("spec.containers");
    expect(fieldPathChild("metadata.annotations", "a.b/c")).toBe("metadata.annotations[a.b/c]");
  });
});
