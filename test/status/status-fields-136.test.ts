// The 1.36 fields of a pod's status the kubelet fills beside the state: observedGeneration (the status
// and each condition the kubelet owns), containerStatuses[].volumeMounts and user.
import { describe, expect, test } from "bun:test";
import type { Pod } from "kubernetes-types/core/v1";
import { computeApiPodStatus } from "../../src/status/api-status";
import { containerUser, volumeMountStatuses } from "../../src/status/container-status-fields";
import { keepNewerGeneration } from "../../src/status/observed-generation";
import { pod, podStatus } from "../agent/fixtures";

const now = "2026-01-01T00:00:00Z";
const compute = (p: Pod, running = true) =>
  computeApiPodStatus({
    pod: p,
    runtimeName: "containerd",
    runtime: podStatus(p, { containers: running ? [{ name: "app", state: "running" }] : [] }),
    waiting: new Map(),
    hostIP: "192.0.2.1",
    startTime: now,
    now,
  });
const withGeneration = (p: Pod, generation: number): Pod => ({ ...p, metadata: { ...p.metadata, generation } });

describe("observedGeneration", () => {
  test("the status and every condition the kubelet owns carry the pod's metadata.generation", () => {
    const s = compute(withGeneration(pod(), 3));
    expect(s.observedGeneration).toBe(3);
    const types = (s.conditions ?? []).map((c) => [c.type, c.observedGeneration]);
    expect(types).toEqual([
      ["PodReadyToStartContainers", 3],
      ["Initialized", 3],
      ["Ready", 3],
      ["ContainersReady", 3],
      ["PodScheduled", 3],
    ]);
  });
  test("a condition another controller owns keeps its own observedGeneration", () => {
    const p = withGeneration(pod(), 2);
    const gate = { type: "example.com/gate", status: "True", observedGeneration: 1 };
    const gated = { ...p, status: { conditions: [gate] } } as Pod;
    const s = compute(gated);
    expect(s.conditions?.find((c) => c.type === "example.com/gate")?.observedGeneration).toBe(1);
  });
  test("a pod without a generation (a static pod from a file) leaves the fields out", () => {
    const s = compute(pod());
    expect("observedGeneration" in s).toBe(false);
    expect(s.conditions?.some((c) => "observedGeneration" in c)).toBe(false);
  });
  test("a status computed from an older copy never takes the API's observedGeneration back", () => {
    const next = { observedGeneration: 2 };
    keepNewerGeneration(next, { observedGeneration: 4 });
    expect(next.observedGeneration).toBe(4);
    const newer = { observedGeneration: 5 };
    keepNewerGeneration(newer, { observedGeneration: 4 });
    expect(newer.observedGeneration).toBe(5);
  });
});

describe("containerStatuses[].volumeMounts", () => {
  const mounted = (): Pod => {
    const p = pod();
    p.spec!.containers[0]!.volumeMounts = [
      { name: "data", mountPath: "/data" },
      { name: "cfg", mountPath: "/etc/cfg", readOnly: true },
      { name: "rro", mountPath: "/rro", readOnly: true, recursiveReadOnly: "IfPossible" },
      { name: "cfg", mountPath: "/etc/one", subPath: "one", readOnly: false },
    ];
    return p;
  };
  test("each of the spec's mounts, read-only ones with recursiveReadOnly Disabled (containerd 1.6/1.7 offer none)", () => {
    const expected = [
      { name: "data", mountPath: "/data" },
      { name: "cfg", mountPath: "/etc/cfg", readOnly: true, recursiveReadOnly: "Disabled" },
      { name: "rro", mountPath: "/rro", readOnly: true, recursiveReadOnly: "Disabled" },
      { name: "cfg", mountPath: "/etc/one" },
    ];
    expect(compute(mounted()).containerStatuses?.[0]?.volumeMounts).toEqual(expected);
    // Waiting too: the kubelet fills them in the default status, before the container exists.
    expect(compute(mounted(), false).containerStatuses?.[0]?.volumeMounts).toEqual(expected);
  });
  test("a runtime handler with recursive read-only mounts makes IfPossible and Enabled Enabled", () => {
    const spec = mounted().spec!.containers[0]!;
    expect(volumeMountStatuses(spec, true)?.[2]).toEqual({ name: "rro", mountPath: "/rro", readOnly: true, recursiveReadOnly: "Enabled" });
    expect(volumeMountStatuses(spec, true)?.[1]?.recursiveReadOnly).toBe("Disabled");
  });
  test("a container without mounts has no volumeMounts", () => {
    expect(compute(pod()).containerStatuses?.[0]).not.toHaveProperty("volumeMounts");
  });
});

describe("containerStatuses[].user", () => {
  test("the runtime's report: uid, gid and supplementary groups", () => {
    expect(containerUser({ user: { linux: { uid: 1000, gid: 3000, supplementalGroups: [3000, 4000] } } })).toEqual({
      linux: { uid: 1000, gid: 3000, supplementalGroups: [3000, 4000] },
    });
  });
  test("left out when the runtime does not report it (containerd 1.6 and 1.7), as the kubelet", () => {
    expect(containerUser({ user: null })).toBeUndefined();
    expect(compute(pod()).containerStatuses?.[0]).not.toHaveProperty("user");
  });
  test("in the status of a container whose runtime reports it", () => {
    const p = pod();
    const rt = podStatus(p, { containers: [{ name: "app", state: "running" }] });
    rt.containerStatuses[0] = { ...rt.containerStatuses[0]!, user: { linux: { uid: 0, gid: 0, supplementalGroups: [0, 10] } } };
    const s = computeApiPodStatus({ pod: p, runtimeName: "containerd", runtime: rt, waiting: new Map(), hostIP: "192.0.2.1", startTime: now, now });
    expect((s.containerStatuses?.[0] as { user?: unknown } | undefined)?.user).toEqual({ linux: { uid: 0, gid: 0, supplementalGroups: [0, 10] } });
  });
});
