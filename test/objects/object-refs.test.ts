// The objects a pod uses (as the sync loop's resync on an object change sees them), and the
// standalone refusal to read any.
import { describe, expect, test } from "bun:test";
import type { Pod } from "kubernetes-types/core/v1";
import { NoObjectSource } from "../../src/objects/no-object-source";
import { podObjectRefs, usesObject } from "../../src/objects/object-refs";
import { ObjectSourceError } from "../../src/objects/types";

const pod: Pod = { metadata: { name: "p", namespace: "ns", uid: "u" }, spec: { containers: [] } };

describe("the objects a pod uses", () => {
  test("volumes (projected included, the token naming the service account), env, envFrom and pull secrets, once each", () => {
    const p: Pod = {
      metadata: { name: "p", namespace: "ns" },
      spec: {
        serviceAccountName: "robot",
        imagePullSecrets: [{ name: "regcred" }],
        volumes: [
          { name: "a", configMap: { name: "cm" } },
          { name: "b", secret: { secretName: "s" } },
          {
            name: "c",
            projected: { sources: [{ serviceAccountToken: { path: "token" } }, { configMap: { name: "kube-root-ca.crt" } }, { secret: { name: "s" } }] },
          },
        ],
        containers: [
          { name: "x", envFrom: [{ configMapRef: { name: "env-cm" } }], env: [{ name: "K", valueFrom: { secretKeyRef: { name: "env-s", key: "k" } } }] },
        ],
      },
    };
    expect(podObjectRefs(p).map((r) => `${r.kind}/${r.namespace}/${r.name}`)).toEqual([
      "Secret/ns/regcred",
      "ConfigMap/ns/env-cm",
      "Secret/ns/env-s",
      "ConfigMap/ns/cm",
      "Secret/ns/s",
      "ServiceAccount/ns/robot",
      "ConfigMap/ns/kube-root-ca.crt",
    ]);
    expect(usesObject(p, { kind: "Secret", namespace: "ns", name: "env-s" })).toBe(true);
    expect(usesObject(p, { kind: "Secret", namespace: "other", name: "env-s" })).toBe(false);
  });

  test("standalone without --local-objects: every read is refused with the kubelet's rule and the way out", async () => {
    const none = new NoObjectSource();
    const err = await none.getConfigMap("ns", "cm").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ObjectSourceError);
    expect((err as Error).message).toBe(
      `the pod names configmap "cm" (namespace ns), an API object, and this agent runs without an API server: run it with --kubeconfig, or with --local-objects DIR holding a ConfigMap manifest named "cm"`,
    );
    await expect(none.getServiceAccountToken(pod, { serviceAccountName: "default", audience: "", expirationSeconds: 3600 })).rejects.toThrow(
      `the pod needs a token of serviceaccount "default" (namespace ns), an API object, and this agent runs without an API server: run it with --kubeconfig`,
    );
  });
});
