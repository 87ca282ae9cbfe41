// StatusManager against the test API server with the node's own token (Node authorizer, NodeRestriction)
// and a FakeClock for the 10 s batch.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { Pod } from "kubernetes-types/core/v1";
import type { ApiPodView } from "../../src/cluster/api-pods";
import { MirrorPods } from "../../src/cluster/mirror-pods";
import { StatusManager } from "../../src/status/status-manager";
import { count } from "../cluster/node-heartbeat-env";
import { agentPod, pendingStatus, podsEnv, runningStatus, staticPod, type PodsEnv } from "../cluster/pods-env";

let env: PodsEnv;
let mirrors: MirrorPods;
let manager: StatusManager;

beforeEach(async () => {
  env = await podsEnv();
  mirrors = new MirrorPods({ client: env.recording, apiPods: env.view, nodeName: "n1", nodeUid: async () => env.nodeUid, log: env.log });
  manager = new StatusManager({ client: env.recording, apiPods: env.view, mirrorPods: mirrors, clock: env.clock, log: env.log });
  manager.start();
});

afterEach(async () => {
  manager.stop();
  await env.close();
});

const patches = () => env.writes.filter((w) => w.verb === "patch");
const statusPatches = () => count(env.api, "patch", "pods", "status");

/** The running status of pod "web", whose first status patch is answered `code` (`times` times). */
async function firstPatchAnswered(code: number, times = 1): Promise<Pod> {
  const pod = await apiPod("web");
  env.api.failNext({ verb: "patch", resource: "pods", subresource: "status" }, code, times);
  manager.setPodStatus(pod, runningStatus());
  await env.until(() => statusPatches() === 1, "the first patch");
  expect(env.api.requests.find((r) => r.subresource === "status")?.code).toBe(code);
  return pod;
}

/** Creates an API pod and waits until the informer has it, as the API source would hand it to the agent. */
async function apiPod(name: string): Promise<Pod> {
  const pod = env.createApiPod(name);
  await env.until(() => env.view.get(name, "default")?.metadata?.uid === pod.metadata?.uid, `informer to see ${name}`);
  return agentPod(pod);
}

describe("StatusManager", () => {
  test("a status change reaches the API at once, and the next patch carries only what changed", async () => {
    const pod = await apiPod("web");
    // A condition someone else owns (a readiness gate's controller) must survive the kubelet's writes.
    env.api.store.patchStatus("pods", "default", "web", { status: { conditions: [{ type: "example.com/gate", status: "True" }] } });
    await env.until(() => env.view.get("web", "default")?.status?.conditions?.length === 1, "informer to see the gate");

    manager.setPodStatus(pod, pendingStatus());
    await env.until(() => env.storedPod("web")?.status?.phase === "Pending" && !!env.storedPod("web")?.status?.containerStatuses, "the pending status");
    const first = patches()[0]!.body as { metadata: { uid: string } };
    expect(first.metadata.uid).toBe(pod.metadata!.uid!);

    manager.setPodStatus(pod, runningStatus());
    await env.until(() => env.storedPod("web")?.status?.phase === "Running", "the running status");
    const second = patches()[1]!.body as { status: Record<string, unknown> };
    // podIPs is new, so it is sent whole; hostIP, startTime, qosClass did not change, so they are absent.
    expect(Object.keys(second.status).sort()).toEqual(["$setElementOrder/conditions", "conditions", "containerStatuses", "phase", "podIP", "podIPs"].sort());
    // Only the conditions that changed, by merge key.
    expect((second.status.conditions as Array<{ type: string }>).map((c) => c.type).sort()).toEqual(["ContainersReady", "PodReadyToStartContainers", "Ready"]);

    const stored = env.storedPod("web")!.status!;
    expect(stored.containerStatuses?.[0]?.state).toEqual({ running: { startedAt: "2026-01-01T00:00:05Z" } });
    expect(stored.conditions?.find((c) => c.type === "Ready")?.status).toBe("True");
    expect(stored.conditions?.find((c) => c.type === "example.com/gate")?.status).toBe("True");
    expect(stored.hostIP).toBe("10.0.0.1");

    // The same status again, and a batch later: nothing to write. The batch compares with the
    // informer's copy, so it must have seen the running status first (under load it lags the store).
    await env.until(() => env.view.get("web", "default")?.status?.phase === "Running", "informer to see the running status");
    manager.setPodStatus(pod, runningStatus());
    await env.clock.advance(10_000);
    await env.clock.advance(10_000);
    expect(statusPatches()).toBe(2);
  });

  test("a 409 on the patch is retried at the next batch and succeeds", async () => {
    await firstPatchAnswered(409);
    expect(env.storedPod("web")?.status?.phase).not.toBe("Running");

    await env.clock.advance(10_000);
    await env.until(() => env.storedPod("web")?.status?.phase === "Running", "the retried patch");
    expect(statusPatches()).toBe(2);
  });

  test("a 404 forgets the pod: no retries", async () => {
    const pod = await firstPatchAnswered(404);
    await env.until(() => manager.status(pod.metadata!.uid!) === undefined, "the pod to be forgotten");
    await env.clock.advance(10_000);
    await env.clock.advance(10_000);
    expect(statusPatches()).toBe(1);
  });

  test("a 403 is logged once and not retried in a loop", async () => {
    const pod = await firstPatchAnswered(403, 5);
    for (let i = 0; i < 3; i++) await env.clock.advance(10_000);
    expect(statusPatches()).toBe(1);
    // A new status is tried again, but the warning is not repeated.
    manager.setPodStatus(pod, pendingStatus());
    await env.until(() => statusPatches() === 2, "the second patch");
    expect(env.warnings.filter((w) => w.startsWith("status of a pod: forbidden (not retried until the status changes) pod=default/web ")).length).toBe(1);
  });

  test("a pod deleted and created again under the same name is never patched with the old status", async () => {
    const old = await apiPod("web");
    manager.setPodStatus(old, pendingStatus());
    await env.until(() => env.storedPod("web")?.status?.phase === "Pending", "the first status");

    env.api.store.delete("pods", "default", "web", { gracePeriodSeconds: 0 });
    const fresh = env.createApiPod("web");
    await env.until(() => env.view.get("web", "default")?.metadata?.uid === fresh.metadata?.uid, "informer to see the new pod");
    const before = statusPatches();

    manager.setPodStatus(old, runningStatus());
    await env.clock.advance(10_000);
    await env.until(() => manager.status(old.metadata!.uid!) === undefined, "the old pod's status to be dropped");
    expect(statusPatches()).toBe(before);
    expect(env.storedPod("web")?.metadata?.uid).toBe(fresh.metadata!.uid!);
    expect(env.storedPod("web")?.status?.containerStatuses).toBeUndefined();
  });

  test("a terminal phase in the API is never moved back", async () => {
    const pod = await apiPod("job");
    env.api.store.patchStatus("pods", "default", "job", { status: { phase: "Succeeded" } });
    await env.until(() => env.view.get("job", "default")?.status?.phase === "Succeeded", "informer to see Succeeded");
    manager.setPodStatus(pod, runningStatus());
    await env.until(() => !!env.storedPod("job")?.status?.containerStatuses, "the patch");
    expect(env.storedPod("job")?.status?.phase).toBe("Succeeded");
    // Never reported ready once terminal (kubelet #108594).
    expect(env.storedPod("job")?.status?.conditions?.find((c) => c.type === "Ready")?.status).toBe("False");
  });

  test("after podTerminated the final status is written, then the pod is deleted with grace 0 and its uid", async () => {
    const pod = await apiPod("web");
    manager.setPodStatus(pod, runningStatus());
    await env.until(() => env.storedPod("web")?.status?.phase === "Running", "the running status");

    env.api.store.delete("pods", "default", "web", { gracePeriodSeconds: 30 });
    await env.until(() => !!env.view.get("web", "default")?.metadata?.deletionTimestamp, "informer to see the deletion");
    // The agent's status of a killed restartPolicy=Always pod still says Running: the final one is terminal.
    const final = {
      ...runningStatus(),
      containerStatuses: [
        {
          name: "app",
          image: "busybox",
          imageID: "sha256:abc",
          containerID: "containerd://c1",
          ready: false,
          started: false,
          restartCount: 0,
          state: { terminated: { exitCode: 137, reason: "Error" } },
        },
      ],
    };
    manager.podTerminated(pod, final);

    await env.until(() => env.storedPod("web") === undefined, "the final delete");
    const del = env.writes.find((w) => w.verb === "delete");
    expect(del?.body).toEqual({ gracePeriodSeconds: 0, preconditions: { uid: pod.metadata!.uid! } });
    const lastPatch = patches().at(-1)!.body as { status: { phase?: string; conditions?: Array<{ type: string; status: string }> } };
    expect(lastPatch.status.phase).toBe("Failed");
    expect(lastPatch.status.conditions?.find((c) => c.type === "Ready")?.status).toBe("False");
    expect(env.writes.map((w) => w.verb)).toEqual(["patch", "patch", "delete"]);
    expect(manager.status(pod.metadata!.uid!)).toBeUndefined();
  });

  test("after the final delete nothing more is written for the pod, even while the informer still has it (no 404)", async () => {
    const pod = await apiPod("web");
    // A view that never sees the pod go: the informer's delete event has not arrived yet.
    let frozen: Pod | undefined;
    const lagging: ApiPodView = {
      get: (name, namespace) => frozen ?? env.view.get(name, namespace),
      list: () => env.view.list(),
      onChange: (cb) => env.view.onChange((event, p) => (frozen && event === "delete" ? undefined : cb(event, p))),
    };
    manager.stop();
    manager = new StatusManager({ client: env.recording, apiPods: lagging, mirrorPods: mirrors, clock: env.clock, log: env.log });
    manager.start();
    manager.setPodStatus(pod, runningStatus());
    await env.until(() => env.storedPod("web")?.status?.phase === "Running", "the running status");
    env.api.store.delete("pods", "default", "web", { gracePeriodSeconds: 30 });
    await env.until(() => !!env.view.get("web", "default")?.metadata?.deletionTimestamp, "informer to see the deletion");
    frozen = env.view.get("web", "default");
    const final = { ...runningStatus(), phase: "Failed" };
    manager.podTerminated(pod, final);
    await env.until(() => env.storedPod("web") === undefined, "the final delete");
    await env.until(() => manager.status(pod.metadata!.uid!) === undefined, "the status forgotten");
    // The pod worker's last report (its removal) computes the status once more: other than the final one here.
    manager.setPodStatus(pod, { ...final, message: "removed" });
    manager.podTerminated(pod, { ...final, message: "removed" });
    for (let i = 0; i < 3; i++) await env.clock.advance(10_000);
    await Bun.sleep(50);
    expect(env.writes.map((w) => w.verb)).toEqual(["patch", "patch", "delete"]);
    expect(env.api.requests.filter((r) => r.code === 404)).toEqual([]);
    // Once the agent forgets the pod, so does the manager.
    manager.removePod(pod.metadata!.uid!);
    expect(manager.status(pod.metadata!.uid!)).toBeUndefined();
  });

  test("a static pod's status waits for its mirror pod, then lands on it", async () => {
    const sp = staticPod("etcd", "hash-1");
    manager.setPodStatus(sp, runningStatus());
    await env.clock.advance(10_000);
    expect(statusPatches()).toBe(0);

    await mirrors.syncStaticPod(sp);
    await env.until(() => env.storedPod("etcd-n1", "kube-system")?.status?.phase === "Running", "the mirror pod's status");
    const mirror = env.storedPod("etcd-n1", "kube-system")!;
    const patch = patches()[0]!.body as { metadata: { uid: string } };
    expect(patch.metadata.uid).toBe(mirror.metadata!.uid!);
    expect(mirror.metadata!.uid).not.toBe("hash-1");
  });
});
