// The two-way strategic merge patch of PodStatus, checked against what strategicpatch.CreateTwoWayMergePatch
// produces for the same old and new status.
import { describe, expect, test } from "bun:test";
import { podStatusPatch, wireJson } from "../../src/status/pod-status-patch";

describe("podStatusPatch", () => {
  test("equal statuses give no patch, even when one side holds Dates (client-node models)", () => {
    const old = { phase: "Running", startTime: new Date(Date.UTC(2026, 0, 1)) as unknown as string };
    expect(podStatusPatch("u1", old, { phase: "Running", startTime: "2026-01-01T00:00:00Z" })).toBeUndefined();
  });

  test("changed scalars, removed fields as null, the uid in metadata", () => {
    const patch = podStatusPatch("u1", { phase: "Pending", reason: "Evicted", hostIP: "10.0.0.1" }, { phase: "Running", hostIP: "10.0.0.1" });
    expect(patch).toEqual({ metadata: { uid: "u1" }, status: { phase: "Running", reason: null } });
  });

  test("conditions merge by type: changed fields of changed ones, deleted ones, and the order", () => {
    const t = "2026-01-01T00:00:00Z";
    const patch = podStatusPatch(
      "u1",
      {
        conditions: [
          { type: "Ready", status: "False", reason: "ContainersNotReady", lastTransitionTime: t },
          { type: "Gone", status: "True" },
          { type: "PodScheduled", status: "True" },
        ],
      },
      {
        conditions: [
          { type: "Ready", status: "True", lastTransitionTime: t },
          { type: "PodScheduled", status: "True" },
        ],
      },
    );
    expect(patch?.status).toEqual({
      "$setElementOrder/conditions": [{ type: "Ready" }, { type: "PodScheduled" }],
      conditions: [
        { type: "Ready", status: "True", reason: null },
        { type: "Gone", $patch: "delete" },
      ],
    });
  });

  test("container statuses go whole, with null for what the same container had before", () => {
    const patch = podStatusPatch(
      "u1",
      { containerStatuses: [{ name: "app", image: "i", imageID: "", ready: false, restartCount: 0, state: { waiting: { reason: "ContainerCreating" } } }] },
      {
        containerStatuses: [
          {
            name: "app",
            image: "i",
            imageID: "sha",
            ready: true,
            restartCount: 0,
            containerID: "containerd://c",
            state: { running: { startedAt: "2026-01-01T00:00:05Z" } },
          },
        ],
      },
    );
    expect(patch?.status.containerStatuses).toEqual([
      {
        name: "app",
        image: "i",
        imageID: "sha",
        ready: true,
        restartCount: 0,
        containerID: "containerd://c",
        state: { running: { startedAt: "2026-01-01T00:00:05Z" }, waiting: null },
      },
    ]);
  });

  test("wireJson drops undefined and null fields and writes Dates in whole seconds", () => {
    expect(wireJson({ a: undefined, b: [new Date(Date.UTC(2026, 0, 1, 0, 0, 1, 999)), null], c: null })).toEqual({ b: ["2026-01-01T00:00:01Z", null] });
  });

  test("a null field and an absent one are the same status: no patch either way (lastProbeTime: null)", () => {
    const t = "2026-01-01T00:00:00Z";
    const sent = { phase: "Running", conditions: [{ type: "Ready", status: "True", lastProbeTime: null as unknown as undefined, lastTransitionTime: t }] };
    const stored = { phase: "Running", conditions: [{ type: "Ready", status: "True", lastTransitionTime: t }] };
    expect(podStatusPatch("u1", stored, sent)).toBeUndefined();
    expect(podStatusPatch("u1", sent, stored)).toBeUndefined();
  });
});
