// The text exposition against prom-client's, which it replaces: the same calls on both render the
// same text, byte for byte, so scrapers and the kubelet-compatible dashboards see no difference.
import { expect, test } from "bun:test";
import * as prom from "prom-client";
import { CollectedCounter, Counter, Gauge, Histogram, PROMETHEUS_CONTENT_TYPE, Registry } from "../../src/metrics/prometheus";

test("the same calls render what prom-client rendered: series order, label order and escaping, buckets, removal, reset", async () => {
  const theirs = new prom.Registry();
  const ours = new Registry();
  const help = 'Help with a \\ backslash\nand a newline, "quoted".';
  const pc = new prom.Counter({ name: "c_total", help, registers: [theirs] });
  const oc = new Counter({ name: "c_total", help, registers: [ours] });
  const plc = new prom.Counter({ name: "lc_total", help: "h", labelNames: ["pod", "container"] as const, registers: [theirs] });
  const olc = new Counter({ name: "lc_total", help: "h", labelNames: ["pod", "container"] as const, registers: [ours] });
  const pg = new prom.Gauge({ name: "g", help: "h", registers: [theirs] });
  const og = new Gauge({ name: "g", help: "h", registers: [ours] });
  const plg = new prom.Gauge({ name: "lg", help: "h", labelNames: ["state"] as const, registers: [theirs] });
  const olg = new Gauge({ name: "lg", help: "h", labelNames: ["state"] as const, registers: [ours] });
  const ph = new prom.Histogram({ name: "h_seconds", help: "h", buckets: [0.1, 1, 10], registers: [theirs] });
  const oh = new Histogram({ name: "h_seconds", help: "h", buckets: [0.1, 1, 10], registers: [ours] });
  const plh = new prom.Histogram({
    name: "lh_seconds",
    help: "h",
    labelNames: ["probe_type", "pod"] as const,
    buckets: [0.005, 0.5, 2.5],
    registers: [theirs],
  });
  const olh = new Histogram({ name: "lh_seconds", help: "h", labelNames: ["probe_type", "pod"] as const, buckets: [0.005, 0.5, 2.5], registers: [ours] });
  const pe = new prom.Counter({ name: "empty_total", help: "never incremented", labelNames: ["x"] as const, registers: [theirs] });
  const oe = new Counter({ name: "empty_total", help: "never incremented", labelNames: ["x"] as const, registers: [ours] });
  void pe;
  void oe;

  const both = (f: (t: "theirs" | "ours") => void) => {
    f("theirs");
    f("ours");
  };
  both((t) => (t === "theirs" ? pc.inc() : oc.inc()));
  both((t) => (t === "theirs" ? pc.inc() : oc.inc()));
  both((t) => (t === "theirs" ? plc.inc({ pod: 'we"b\\1\nx', container: "main" }) : olc.inc({ pod: 'we"b\\1\nx', container: "main" })));
  // Label objects in another order: the same series, printed as first given.
  both((t) => (t === "theirs" ? plc.inc({ container: "main", pod: 'we"b\\1\nx' }) : olc.inc({ container: "main", pod: 'we"b\\1\nx' })));
  both((t) => (t === "theirs" ? plc.inc({ container: "side", pod: "db" }) : olc.inc({ container: "side", pod: "db" })));
  both((t) => (t === "theirs" ? plc.inc({ pod: "gone", container: "c" }) : olc.inc({ pod: "gone", container: "c" })));
  both((t) => (t === "theirs" ? plc.remove({ pod: "gone", container: "c" }) : olc.remove({ pod: "gone", container: "c" })));
  both((t) => (t === "theirs" ? pg.set(1_700_000_000.123) : og.set(1_700_000_000.123)));
  for (const [state, v] of [
    ["running", 3],
    ["exited", Number.POSITIVE_INFINITY],
    ["created", Number.NaN],
    ["unknown", -0.5],
  ] as const) {
    both((t) => (t === "theirs" ? plg.set({ state }, v) : olg.set({ state }, v)));
  }
  for (const v of [0.05, 0.1, 0.7, 3, 11]) both((t) => (t === "theirs" ? ph.observe(v) : oh.observe(v)));
  for (const [labels, v] of [
    [{ probe_type: "Readiness", pod: "a" }, 0.004],
    [{ pod: "a", probe_type: "Readiness" }, 1],
    [{ probe_type: "Liveness", pod: "b" }, 9],
  ] as const) {
    both((t) => (t === "theirs" ? plh.observe(labels, v) : olh.observe(labels, v)));
  }
  expect(ours.render()).toBe(await theirs.metrics());

  both((t) => (t === "theirs" ? plg.reset() : olg.reset()));
  both((t) => (t === "theirs" ? plh.remove({ probe_type: "Liveness", pod: "b" }) : olh.remove({ probe_type: "Liveness", pod: "b" })));
  both((t) => (t === "theirs" ? plg.set({ state: "running" }, 1) : olg.set({ state: "running" }, 1)));
  expect(ours.render()).toBe(await theirs.metrics());
  expect(ours.contentType).toBe(theirs.contentType);
  expect(PROMETHEUS_CONTENT_TYPE).toBe(prom.Registry.PROMETHEUS_CONTENT_TYPE);
});

test("mistakes are errors: an unknown label, a counter going down, a second metric of the same name", () => {
  const r = new Registry();
  const c = new Counter({ name: "x_total", help: "h", labelNames: ["pod"] as const, registers: [r] });
  expect(() => c.inc({ node: "n" } as never)).toThrow(/label node is not one of its labels/);
  expect(() => c.inc({ pod: "p" }, -1)).toThrow(/only goes up/);
  expect(() => new Gauge({ name: "x_total", help: "h", registers: [r] })).toThrow(/already registered/);
  expect(() => new Histogram({ name: "y", help: "h", buckets: [1], registers: [r] }).observe(Number.NaN)).toThrow(/cannot observe/);
});

test("a collected counter renders what its sources hold at each render, equal labels summed", () => {
  const r = new Registry();
  let sources = [[{ labels: { verb: "get", node: "a" }, value: 2 }], [{ labels: { verb: "get", node: "a" }, value: 3 }]];
  new CollectedCounter({ name: "req_total", help: "Requests.", labelNames: ["verb", "node"] as const, registers: [r], collect: () => sources.flat() });
  expect(r.render()).toBe('# HELP req_total Requests.\n# TYPE req_total counter\nreq_total{verb="get",node="a"} 5\n');
  sources = [[{ labels: { verb: "get", node: "b" }, value: 1 }]];
  expect(r.render()).toBe('# HELP req_total Requests.\n# TYPE req_total counter\nreq_total{verb="get",node="b"} 1\n');
});
