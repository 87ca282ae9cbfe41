import { describe, expect, test } from "bun:test";
import type { Node } from "kubernetes-types/core/v1";
import { nodeConditionEventReasons, recordNodeConditionEvents } from "../../src/events/node-condition-events";

function node(conditions: Record<string, "True" | "False">): Node {
  return { metadata: { name: "n1" }, status: { conditions: Object.entries(conditions).map(([type, status]) => ({ type, status })) } };
}

describe("node status events", () => {
  test("the first status: the sufficient-resource reasons, no NodeReady (the Ready condition is new)", () => {
    expect(nodeConditionEventReasons(undefined, node({ Ready: "True", MemoryPressure: "False", DiskPressure: "False", PIDPressure: "False" }))).toEqual([
      "NodeHasSufficientMemory",
      "NodeHasNoDiskPressure",
      "NodeHasSufficientPID",
    ]);
  });
  test("transitions: NodeNotReady, NodeHasInsufficientMemory; then back", () => {
    const ok = node({ Ready: "True", MemoryPressure: "False", DiskPressure: "False", PIDPressure: "False" });
    const bad = node({ Ready: "False", MemoryPressure: "True", DiskPressure: "False", PIDPressure: "False" });
    expect(nodeConditionEventReasons(ok, ok)).toEqual([]);
    expect(nodeConditionEventReasons(ok, bad)).toEqual(["NodeNotReady", "NodeHasInsufficientMemory"]);
    expect(nodeConditionEventReasons(bad, ok)).toEqual(["NodeReady", "NodeHasSufficientMemory"]);
  });
  test("another boot ID than the previous Node's: Warning Rebooted", () => {
    const lines: string[] = [];
    const booted = (bootID: string): Node => ({ ...node({ Ready: "True" }), status: { ...node({ Ready: "True" }).status, nodeInfo: { bootID } as never } });
    recordNodeConditionEvents((t, r, m) => lines.push(`${t} ${r}: ${m}`), "n1", booted("b-1"), booted("b-2"));
    recordNodeConditionEvents((t, r, m) => lines.push(`${t} ${r}: ${m}`), "n1", booted("b-2"), booted("b-2"));
    expect(lines).toEqual(["Warning Rebooted: Node n1 has been rebooted, boot id: b-2"]);
  });

  test("the message is the kubelet's", () => {
    const lines: string[] = [];
    recordNodeConditionEvents((t, r, m) => lines.push(`${t} ${r}: ${m}`), "n1", node({ Ready: "True" }), node({ Ready: "False" }));
    expect(lines).toEqual(["Normal NodeNotReady: Node n1 status is now: NodeNotReady"]);
  });
});
