// The test API server's pod generations as kube-apiserver 1.36 keeps them: metadata.generation 1 at
// create, bumped by a change of the spec and by the first graceful deletion, never by a status write;
// a status write that leaves observedGeneration unset (the status's or a condition's) keeps the stored one.
import { describe, expect, test } from "bun:test";
import type { Pod } from "kubernetes-types/core/v1";
import type { KubernetesObject } from "../fakes/apiserver";
import { admin, api, pod, SMP, useApiServer } from "./apiserver-harness";

useApiServer();

const stored = (name: string) => api.store.get("pods", "default", name) as unknown as Pod & { status: { observedGeneration?: number } };
type Condition = { type: string; observedGeneration?: number };

describe("pod generations", () => {
  test("a spec change bumps metadata.generation; a status write does not", async () => {
    api.store.create("pods", pod("gen-1", { nodeName: "n1" }) as KubernetesObject);
    expect(stored("gen-1").metadata?.generation).toBe(1);
    api.store.patchStatus("pods", "default", "gen-1", { status: { phase: "Running", observedGeneration: 1 } });
    expect(stored("gen-1").metadata?.generation).toBe(1);
    await admin.core.patchNamespacedPod({ name: "gen-1", namespace: "default", body: { spec: { activeDeadlineSeconds: 600 } } }, SMP);
    expect(stored("gen-1").metadata?.generation).toBe(2);
    // The same spec again changes nothing.
    await admin.core.patchNamespacedPod({ name: "gen-1", namespace: "default", body: { spec: { activeDeadlineSeconds: 600 } } }, SMP);
    expect(stored("gen-1").metadata?.generation).toBe(2);
  });

  test("the first graceful deletion bumps it; a later delete does not", async () => {
    api.store.create("pods", pod("gen-2", { nodeName: "n1", terminationGracePeriodSeconds: 30 }) as KubernetesObject);
    await admin.core.deleteNamespacedPod({ name: "gen-2", namespace: "default" });
    expect(stored("gen-2").metadata?.deletionTimestamp).toBeDefined();
    expect(stored("gen-2").metadata?.generation).toBe(2);
    await admin.core.deleteNamespacedPod({ name: "gen-2", namespace: "default", body: { gracePeriodSeconds: 10 } });
    expect(stored("gen-2").metadata?.generation).toBe(2);
  });

  test("a status write without observedGeneration keeps the stored values; one with it is kept as written", async () => {
    api.store.create("pods", pod("gen-3", { nodeName: "n1" }) as KubernetesObject);
    api.store.patchStatus("pods", "default", "gen-3", {
      status: { observedGeneration: 1, conditions: [{ type: "Ready", status: "True", observedGeneration: 1 }] },
    });
    // The kubelet's patch deletes what it does not send (null): the server keeps the stored value.
    api.store.patchStatus("pods", "default", "gen-3", {
      status: { observedGeneration: null, conditions: [{ type: "Ready", status: "False", observedGeneration: null }] },
    });
    const s = stored("gen-3").status;
    expect(s.observedGeneration).toBe(1);
    expect((s.conditions as Condition[] | undefined)?.find((c) => c.type === "Ready")).toMatchObject({ status: "False", observedGeneration: 1 });
    api.store.patchStatus("pods", "default", "gen-3", { status: { observedGeneration: 3 } });
    expect(stored("gen-3").status.observedGeneration).toBe(3);
  });
});
