import { describe, expect, test } from "bun:test";
import { initialResult, ProbeThresholds } from "../../src/prober/thresholds";

describe("ProbeThresholds", () => {
  test("initial results: readiness fails, liveness succeeds, startup is unknown until probed", () => {
    expect(initialResult("readiness")).toBe("failure");
    expect(initialResult("liveness")).toBe("success");
    expect(initialResult("startup")).toBe("unknown");
  });

  test("a result replaces the verdict only after its threshold's run, and a different result restarts the run", () => {
    const t = new ProbeThresholds(2, 3, "failure");
    expect(t.observe("success")).toEqual({ verdict: "failure", changed: false, settled: false, run: 1 });
    expect(t.observe("failure")).toEqual({ verdict: "failure", changed: false, settled: false, run: 1 });
    expect(t.observe("success")).toMatchObject({ verdict: "failure", settled: false, run: 1 });
    expect(t.observe("success")).toEqual({ verdict: "success", changed: true, settled: true, run: 2 });
    expect(t.observe("success")).toEqual({ verdict: "success", changed: false, settled: true, run: 3 });
    expect(t.observe("failure").verdict).toBe("success");
    expect(t.observe("failure").verdict).toBe("success");
    expect(t.observe("failure")).toEqual({ verdict: "failure", changed: true, settled: true, run: 3 });
  });

  test("with the defaults (1 and 3), one success settles at once and failures need three in a row", () => {
    const t = new ProbeThresholds(1, 3, "success");
    expect(t.observe("failure").settled).toBe(false);
    expect(t.observe("failure").settled).toBe(false);
    expect(t.observe("success")).toEqual({ verdict: "success", changed: false, settled: true, run: 1 });
    expect(t.observe("failure").verdict).toBe("success");
  });
});
