// Ephemeral containers through a whole Agent on the fake runtime: an API pod's update that adds one
// starts it (once) and its status appears; a pod that is being deleted starts none.
import { describe, expect, test } from "bun:test";
import type { Pod } from "kubernetes-types/core/v1";
import type { SourceReport } from "../../src/config";
import { FakeClock } from "../../src/util/clock";
import { FakeRuntime } from "../fakes/runtime";
import { agentRoot, created, startAgentIn, statusOf } from "./agent-harness";
import { pod } from "./fixtures";

const root = agentRoot();
const fromApi = (...pods: Pod[]): SourceReport => ({ source: "api", pods, errors: [] });
const withDebugger = (p: Pod): Pod => ({
  ...p,
  spec: { ...p.spec!, ephemeralContainers: [{ name: "debugger", image: "localhost/nodeagent/busybox:1.35", command: ["sh"], targetContainerName: "app" }] },
});

describe("Agent: ephemeral containers of an API pod", () => {
  test("an update that adds one starts it once; its status shows beside the app container's", async () => {
    const clock = new FakeClock();
    const rt = new FakeRuntime(clock);
    const a = await startAgentIn(root, rt, clock, { sources: ["api"] });
    const p = pod();
    a.config.apply(fromApi(p));
    await a.settle();
    expect(created(rt)).toEqual(["app"]);
    a.config.apply(fromApi(withDebugger(p)));
    await a.settle();
    expect(created(rt)).toEqual(["app", "debugger"]);
    const s = statusOf(a.agent);
    expect(s.ephemeralContainerStatuses?.map((c) => [c.name, Boolean(c.state?.running), c.ready])).toEqual([["debugger", true, false]]);
    expect(s.phase).toBe("Running");
    // It exits: neither the next syncs nor the pod's restartPolicy Always start it again.
    rt.exit(rt.containersNamed("debugger")[0]!.id, 1);
    await clock.advance(60_000);
    await a.settle();
    expect(created(rt)).toEqual(["app", "debugger"]);
    expect(statusOf(a.agent).ephemeralContainerStatuses?.[0]?.state?.terminated?.exitCode).toBe(1);
    await a.stop();
  });

  test("a pod being deleted starts none", async () => {
    const clock = new FakeClock();
    const rt = new FakeRuntime(clock);
    const a = await startAgentIn(root, rt, clock, { sources: ["api"] });
    const p = pod();
    a.config.apply(fromApi(p));
    await a.settle();
    const deleting = withDebugger(p);
    deleting.metadata = { ...p.metadata, deletionTimestamp: "2026-11-21T10:00:00Z", deletionGracePeriodSeconds: 5 };
    a.config.apply(fromApi(deleting));
    await a.settle();
    expect(created(rt)).toEqual(["app"]);
    expect(rt.callsOf("stopContainer")).toHaveLength(1);
    await a.stop();
  });
});
