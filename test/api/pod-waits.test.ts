// What `pleg watch --agent` reports of a pod that the runtime cannot show: its waits, and their changes.
import { expect, test } from "bun:test";
import type { Pod } from "kubernetes-types/core/v1";
import { podWaits, PodWaitTracker } from "../../src/api/pod-waits";

const MOUNT =
  'Unable to attach or mount volumes: unmounted volumes=[cfg], unattached volumes=[cfg]: MountVolume.SetUp failed for volume "cfg" : configmap "app" not found';

function pod(status: Pod["status"]): Pod {
  return { metadata: { name: "web", namespace: "default", uid: "u1" }, spec: { containers: [{ name: "app" }, { name: "side" }] }, status };
}

const mountWait = pod({
  phase: "Pending",
  conditions: [{ type: "PodReadyToStartContainers", status: "False", reason: "FailedMount", message: MOUNT }],
  containerStatuses: [
    { name: "app", image: "", imageID: "", ready: false, restartCount: 0, state: { waiting: { reason: "ContainerCreating", message: MOUNT } } },
    { name: "side", image: "", imageID: "", ready: false, restartCount: 0, state: { waiting: { reason: "ContainerCreating", message: MOUNT } } },
  ],
});

test("a volume wait is the pod's, once, not repeated per container", () => {
  expect(podWaits(mountWait)).toEqual([{ pod: { namespace: "default", name: "web", uid: "u1" }, reason: "FailedMount", message: MOUNT }]);
});

test("a container's own wait (a missing secret key) is reported with its container", () => {
  const p = pod({
    phase: "Pending",
    containerStatuses: [
      {
        name: "app",
        image: "",
        imageID: "",
        ready: false,
        restartCount: 0,
        state: { waiting: { reason: "CreateContainerConfigError", message: 'secret "db" not found' } },
      },
      { name: "side", image: "", imageID: "", ready: true, restartCount: 0, state: { running: { startedAt: "2026-11-23T00:00:00Z" } } },
    ],
  });
  expect(podWaits(p)).toEqual([
    { pod: { namespace: "default", name: "web", uid: "u1" }, container: "app", reason: "CreateContainerConfigError", message: 'secret "db" not found' },
  ]);
});

test("the tracker reports a wait when it starts or changes, and its end; an unchanged wait once", () => {
  const t = new PodWaitTracker();
  expect(t.update([mountWait]).map((c) => [c.type, c.wait.reason])).toEqual([["Waiting", "FailedMount"]]);
  expect(t.update([mountWait])).toEqual([]);
  const other = structuredClone(mountWait);
  other.status!.conditions![0]!.message = "secret missing";
  for (const c of other.status!.containerStatuses!) c.state!.waiting!.message = "secret missing";
  expect(t.update([other]).map((c) => [c.type, c.wait.message])).toEqual([["Waiting", "secret missing"]]);
  const running = pod({ phase: "Running", conditions: [{ type: "PodReadyToStartContainers", status: "True" }] });
  expect(t.update([running]).map((c) => [c.type, c.wait.reason])).toEqual([["WaitEnded", "FailedMount"]]);
  expect(t.update([])).toEqual([]);
});
