import { describe, expect, test } from "bun:test";
import { computePodEvents, eventsForTransition, groupPods } from "../../src/pleg/diff";
import type { RecordedState, RuntimePod } from "../../src/pleg/types";
import { FakeRuntime } from "../fakes/runtime";

describe("eventsForTransition (the kubelet's generateEvents)", () => {
  const cases: [RecordedState, RecordedState, string[]][] = [
    ["non-existent", "running", ["ContainerStarted"]],
    ["unknown", "running", ["ContainerStarted"]],
    ["exited", "running", ["ContainerStarted"]],
    ["non-existent", "exited", ["ContainerDied"]],
    ["running", "exited", ["ContainerDied"]],
    ["unknown", "exited", ["ContainerDied"]],
    ["non-existent", "unknown", ["ContainerChanged"]],
    ["running", "unknown", ["ContainerChanged"]],
    ["exited", "non-existent", ["ContainerRemoved"]],
    ["running", "non-existent", ["ContainerDied", "ContainerRemoved"]],
    ["unknown", "non-existent", ["ContainerDied", "ContainerRemoved"]],
    ["running", "running", []],
    ["exited", "exited", []],
  ];
  for (const [from, to, want] of cases) {
    test(`${from} → ${to}`, () => expect(eventsForTransition(from, to)).toEqual(want as never));
  }
});

describe("groupPods", () => {
  test("containers belong to their sandbox's pod, or to the pod their labels name", async () => {
    const rt = new FakeRuntime();
    const a = rt.addSandbox({ uid: "uid-a", name: "a" });
    const b = rt.addSandbox({ uid: "uid-b", name: "b", namespace: "kube-system" });
    const ca = rt.addContainer(a, "web");
    const cb = rt.addContainer(b, "db");
    rt.remove(b); // the sandbox is gone but its container is still listed
    const pods = groupPods(await rt.listPodSandbox(), await rt.listContainers());
    expect([...pods.keys()].sort()).toEqual(["uid-a", "uid-b"]);
    expect([...pods.get("uid-a")!.containers.keys()].sort()).toEqual([a, ca].sort());
    expect(pods.get("uid-a")!.containers.get(a)!.sandbox).toBe(true);
    const podB = pods.get("uid-b")!;
    expect(podB.namespace).toBe("kube-system");
    expect([...podB.containers.keys()]).toEqual([cb]);
  });

  test("sandboxes and containers without a pod uid are not pods", () => {
    const pods = groupPods([{ id: "s1", metadata: null, state: "SANDBOX_READY", createdAt: 1, labels: {}, annotations: {}, runtimeHandler: "" }], []);
    expect(pods.size).toBe(0);
  });
});

describe("computePodEvents", () => {
  const pod = (states: Record<string, RecordedState>): RuntimePod => ({
    uid: "u",
    name: "p",
    namespace: "default",
    // The sandbox is created first, then the containers in name order.
    containers: new Map(
      Object.entries(states).map(([id, state]) => [
        id,
        { id, podSandboxId: "s", name: id, sandbox: id === "s", state, createdAt: id === "s" ? 0 : Number(id.slice(1)) },
      ]),
    ),
  });
  test("a new pod: deaths first, then starts, the sandbox before its containers", () => {
    const ev = computePodEvents(undefined, pod({ c2: "exited", c1: "running", s: "running", c3: "running" }));
    expect(ev.map((e) => [e.container.id, e.type])).toEqual([
      ["c2", "ContainerDied"],
      ["s", "ContainerStarted"],
      ["c1", "ContainerStarted"],
      ["c3", "ContainerStarted"],
    ]);
  });
  test("a pod that vanished: newest first, the containers before their sandbox", () => {
    const ev = computePodEvents(pod({ s: "running", c1: "exited", c2: "running" }), undefined);
    expect(ev.map((e) => [e.container.id, e.type])).toEqual([
      ["c2", "ContainerDied"],
      ["c2", "ContainerRemoved"],
      ["c1", "ContainerRemoved"],
      ["s", "ContainerDied"],
      ["s", "ContainerRemoved"],
    ]);
  });
  test("a container going to unknown produces no sendable event", () => {
    expect(computePodEvents(pod({ c1: "running" }), pod({ c1: "unknown" }))).toEqual([]);
  });
});
