// The resize fields of a pod's status (src/status/resize-status.ts): containerStatuses[].resources from
// the runtime, the actuated record or the allocation, allocatedResources, and the resize conditions.
import { describe, expect, test } from "bun:test";
import type { PodStatus as ApiPodStatus } from "kubernetes-types/core/v1";
import { ResizeConditions, runningResources, runtimeResources, withResizeStatus } from "../../src/status/resize-status";
import { pod, podStatus } from "../agent/fixtures";

const alloc = { requests: { cpu: "150m", memory: "32Mi" }, limits: { cpu: "300m", memory: "96Mi" } };

describe("container resources", () => {
  test("the runtime's values first (shares and quota back to milli-CPU), the memory request from the allocation", () => {
    const rt = runtimeResources({ resources: { linux: { cpuShares: 153, cpuQuota: 30000, cpuPeriod: 100000, memoryLimitInBytes: 100663296 } } } as never);
    expect(rt).toEqual({ cpuRequest: 150, cpuLimit: 300, memoryLimit: 100663296 });
    expect(runningResources(alloc, rt, undefined, undefined)).toEqual(alloc);
    // The runtime says the old values (the resize is not applied yet): those are shown.
    const old = runtimeResources({ resources: { linux: { cpuShares: 102, cpuQuota: 20000, cpuPeriod: 100000, memoryLimitInBytes: 67108864 } } } as never);
    expect(runningResources(alloc, old, undefined, undefined)).toEqual({ requests: { cpu: "100m", memory: "32Mi" }, limits: { cpu: "200m", memory: "64Mi" } });
  });

  test("a runtime that reports nothing: the actuated values, else the last reported ones", () => {
    const actuated = { requests: { cpu: "100m", memory: "32Mi" }, limits: { cpu: "200m", memory: "64Mi" } };
    expect(runningResources(alloc, undefined, actuated, undefined)).toEqual(actuated);
    expect(runningResources(alloc, undefined, undefined, { limits: { cpu: "250m" } })).toEqual({ ...alloc, limits: { cpu: "250m", memory: "96Mi" } });
  });

  test("withResizeStatus: resources and allocatedResources on containers the runtime has; conditions unless terminal", () => {
    const p = pod();
    p.spec!.containers[0]!.resources = alloc;
    const rt = podStatus(p, { containers: [{ name: "app", state: "exited", exitCode: 1 }] });
    const base: ApiPodStatus = {
      phase: "Running",
      conditions: [],
      containerStatuses: [{ name: "app", image: "", imageID: "", ready: false, restartCount: 0 }],
    };
    const conditions = new ResizeConditions(() => "2026-01-01T00:00:00Z");
    conditions.setPending("uid-1", "OutOfcpu", "Node didn't have enough resource: cpu", 2);
    const s = withResizeStatus(base, { pod: p, runtime: rt, actuated: () => undefined, conditions: conditions.list("uid-1"), previous: undefined });
    expect(s.containerStatuses![0]).toMatchObject({ allocatedResources: alloc.requests, resources: alloc });
    expect(s.conditions).toEqual([
      {
        type: "PodResizePending",
        status: "True",
        lastProbeTime: "2026-01-01T00:00:00Z",
        lastTransitionTime: "2026-01-01T00:00:00Z",
        observedGeneration: 2,
        reason: "Deferred",
        message: "Node didn't have enough resource: cpu",
      } as never,
    ]);
    const done = withResizeStatus(
      { ...base, phase: "Failed" },
      { pod: p, runtime: rt, actuated: () => undefined, conditions: conditions.list("uid-1"), previous: undefined },
    );
    expect(done.conditions).toEqual([]);
  });

  test("ResizeConditions: an existing PodResizeInProgress keeps its generation until cleared", () => {
    const c = new ResizeConditions(() => "t");
    expect(c.setInProgress("u", "", "", 2)).toEqual({ generation: 2, changed: true });
    expect(c.setInProgress("u", "", "", 3)).toEqual({ generation: 2, changed: false });
    expect(c.setInProgress("u", "Error", "boom", 3)).toEqual({ generation: 2, changed: true });
    expect(c.clearInProgress("u")).toBe(2);
    expect(c.list("u")).toEqual([]);
  });
});
