// The one walker of a pod's references to API objects (src/api/pod-references.ts): every kind of
// reference the kubelet's VisitPodSecretNames / VisitPodConfigmapNames visit, plus projected tokens,
// in the visitors' order, with field paths; and the name lists the object sources register.
import { describe, expect, test } from "bun:test";
import type { Pod } from "kubernetes-types/core/v1";
import { podConfigMapNames, podReferences, podSecretNames, podServiceAccountName, volumeReferences } from "../../src/api/pod-references";

const pod: Pod = {
  metadata: { name: "p", namespace: "ns" },
  spec: {
    serviceAccountName: "robot",
    imagePullSecrets: [{ name: "pull" }, {}],
    initContainers: [
      {
        name: "i",
        envFrom: [{ secretRef: { name: "init-envfrom-s" } }],
        env: [{ name: "A", valueFrom: { configMapKeyRef: { name: "init-env-cm", key: "k" } } }],
      },
    ],
    containers: [
      {
        name: "c",
        envFrom: [{ configMapRef: { name: "app-envfrom-cm" } }, { secretRef: { name: "app-envfrom-s" } }],
        env: [
          { name: "B", valueFrom: { secretKeyRef: { name: "app-env-s", key: "k" } } },
          { name: "C", value: "plain" },
          { name: "D", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
        ],
      },
    ],
    ephemeralContainers: [
      {
        name: "e",
        envFrom: [{ configMapRef: { name: "eph-envfrom-cm" } }],
        env: [{ name: "E", valueFrom: { secretKeyRef: { name: "eph-env-s", key: "k" } } }],
      },
    ],
    volumes: [
      { name: "v0", configMap: { name: "vol-cm" } },
      { name: "v1", secret: { secretName: "vol-s" } },
      {
        name: "v2",
        projected: {
          sources: [
            { configMap: { name: "proj-cm" } },
            { secret: { name: "proj-s" } },
            { serviceAccountToken: { path: "token" } },
            { downwardAPI: { items: [] } },
          ],
        },
      },
      { name: "v3", azureFile: { secretName: "azure-s", shareName: "x" } },
      { name: "v4", csi: { driver: "d", nodePublishSecretRef: { name: "csi-s" } } },
      { name: "v5", cephfs: { monitors: [], secretRef: { name: "ceph-s" } } },
      { name: "v6", emptyDir: {} },
      { name: "v7", secret: { secretName: "vol-s" } },
    ],
  },
};

describe("podReferences", () => {
  test("every kind, in the visitors' order (pull secrets, init/app/ephemeral containers' envFrom then env, volumes), with field paths", () => {
    expect(podReferences(pod).map((r) => `${r.kind} ${r.name} ${r.field}`)).toEqual([
      "Secret pull spec.imagePullSecrets[0]",
      "Secret  spec.imagePullSecrets[1]",
      "Secret init-envfrom-s spec.initContainers[0].envFrom[0].secretRef",
      "ConfigMap init-env-cm spec.initContainers[0].env[0].valueFrom.configMapKeyRef",
      "ConfigMap app-envfrom-cm spec.containers[0].envFrom[0].configMapRef",
      "Secret app-envfrom-s spec.containers[0].envFrom[1].secretRef",
      "Secret app-env-s spec.containers[0].env[0].valueFrom.secretKeyRef",
      "ConfigMap eph-envfrom-cm spec.ephemeralContainers[0].envFrom[0].configMapRef",
      "Secret eph-env-s spec.ephemeralContainers[0].env[0].valueFrom.secretKeyRef",
      "ConfigMap vol-cm spec.volumes[0].configMap",
      "Secret vol-s spec.volumes[1].secret",
      "ConfigMap proj-cm spec.volumes[2].projected.sources[0].configMap",
      "Secret proj-s spec.volumes[2].projected.sources[1].secret",
      "ServiceAccount robot spec.volumes[2].projected.sources[2].serviceAccountToken",
      "Secret azure-s spec.volumes[3].azureFile.secretName",
      "Secret csi-s spec.volumes[4].csi.nodePublishSecretRef",
      "Secret ceph-s spec.volumes[5].cephfs.secretRef",
      "Secret vol-s spec.volumes[7].secret",
    ]);
  });

  test("a pod without a spec names nothing", () => {
    expect(podReferences({ metadata: { name: "p" } })).toEqual([]);
  });

  test("one volume's references carry its index; a token source names the pod's service account (the deprecated field too, else default)", () => {
    const volumes = pod.spec!.volumes!;
    expect(volumeReferences(pod, volumes[2]!).map((r) => r.field)).toEqual([
      "spec.volumes[2].projected.sources[0].configMap",
      "spec.volumes[2].projected.sources[1].secret",
      "spec.volumes[2].projected.sources[2].serviceAccountToken",
    ]);
    expect(volumeReferences(pod, volumes[6]!)).toEqual([]);
    const token = { name: "t", projected: { sources: [{ serviceAccountToken: { path: "t" } }] } };
    expect(volumeReferences({ spec: { containers: [], serviceAccount: "old", volumes: [token] } }, token)[0]!.name).toBe("old");
    expect(volumeReferences({ spec: { containers: [], volumes: [token] } }, token)[0]!.name).toBe("default");
    expect(podServiceAccountName({ spec: { containers: [] } })).toBe("default");
  });
});

describe("the names the object sources register", () => {
  test("secrets: every named secret once, empty names left out", () => {
    expect(podSecretNames(pod)).toEqual(["pull", "init-envfrom-s", "app-envfrom-s", "app-env-s", "eph-env-s", "vol-s", "proj-s", "azure-s", "csi-s", "ceph-s"]);
  });

  test("config maps: every named config map once", () => {
    expect(podConfigMapNames(pod)).toEqual(["init-env-cm", "app-envfrom-cm", "eph-envfrom-cm", "vol-cm", "proj-cm"]);
  });
});
