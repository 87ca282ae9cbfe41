import { describe, expect, test } from "bun:test";
import { createLogger, renderJson, renderText, withFields, type LogRecord } from "../../src/util/log";

const time = new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678));
const rec = (msg: string, fields?: LogRecord["fields"], level: LogRecord["level"] = "info"): LogRecord => ({ time, level, msg, fields });

describe("text rendering", () => {
  test("time, level, message, then key=value in the order given", () => {
    expect(renderText(rec("pod pushed", { pod: "ns/name", uid: "u-1", count: 3, ready: true }))).toBe(
      "2026-01-02T03:04:05.678Z info pod pushed pod=ns/name uid=u-1 count=3 ready=true",
    );
  });

  test("values that would not read back as one word are quoted, with JSON escapes", () => {
    const line = renderText(
      rec("m", {
        a: "two words",
        b: "",
        c: 'say "hi"',
        d: "x=y",
        e: "back\\slash",
        f: "line\nbreak",
        g: "tab\there",
        h: "/var/log/pods/ns_n_u/c/0.log",
        i: "ünïcode",
      }),
    );
    expect(line).toBe(
      '2026-01-02T03:04:05.678Z info m a="two words" b="" c="say \\"hi\\"" d="x=y" e="back\\\\slash" f="line\\nbreak" g="tab\\there" h=/var/log/pods/ns_n_u/c/0.log i=ünïcode',
    );
  });

  test("errors render as their message under err (any thrown value), and in any field that holds an Error", () => {
    expect(renderText(rec("failed", { err: new Error("boom: no such file") }, "error"))).toBe('2026-01-02T03:04:05.678Z error failed err="boom: no such file"');
    expect(renderText(rec("failed", { err: "plain" }))).toEndWith(" err=plain");
    expect(renderText(rec("failed", { cause: new TypeError("bad") }))).toEndWith(" cause=bad");
  });

  test("undefined fields are left out; null, dates, arrays and objects are written as JSON would show them", () => {
    expect(renderText(rec("m", { gone: undefined, n: null, at: time, list: ["ns/a", "ns/b"], obj: { k: 1 } }))).toBe(
      '2026-01-02T03:04:05.678Z info m n=null at=2026-01-02T03:04:05.678Z list=["ns/a","ns/b"] obj={"k":1}',
    );
    // JSON holding a space is quoted as a whole, so the line still splits on spaces.
    expect(renderText(rec("m", { list: ["a b"] }))).toEndWith(' list="[\\"a b\\"]"');
  });

  test("a message with line breaks stays on one line", () => {
    expect(renderText(rec("first\nsecond"))).toBe("2026-01-02T03:04:05.678Z info first\\nsecond");
  });
});

describe("JSON rendering", () => {
  test("time, level, msg, then the fields as top-level keys", () => {
    const line = renderJson(rec("pod pushed", { pod: "ns/name", component: "push", count: 2, list: ["a"], obj: { k: true } }, "warn"));
    expect(JSON.parse(line)).toEqual({
      time: "2026-01-02T03:04:05.678Z",
      level: "warn",
      msg: "pod pushed",
      pod: "ns/name",
      component: "push",
      count: 2,
      list: ["a"],
      obj: { k: true },
    });
    expect(Object.keys(JSON.parse(line)).slice(0, 3)).toEqual(["time", "level", "msg"]);
  });

  test("err is the error's message; errors nested in other fields too; undefined fields are left out", () => {
    const e = JSON.parse(renderJson(rec("failed", { err: new Error("boom"), other: { inner: new Error("deep") }, gone: undefined, big: 10n }, "error")));
    expect(e).toEqual({ time: "2026-01-02T03:04:05.678Z", level: "error", msg: "failed", err: "boom", other: { inner: "deep" }, big: "10" });
  });

  test("a field named like a reserved key does not overwrite it", () => {
    expect(JSON.parse(renderJson(rec("m", { msg: "x", level: 9, time: "t" })))).toMatchObject({ msg: "m", level: "info", _msg: "x", _level: 9, _time: "t" });
  });
});

describe("levels", () => {
  const capture = (format: "text" | "json", level?: number) => {
    const lines: string[] = [];
    return { log: createLogger(format, level, (l) => void lines.push(l)), lines };
  };

  test("info (3) by default: error, warn and info are written, debug and trace are not", () => {
    const { log, lines } = capture("text");
    log.error("e");
    log.warn("w");
    log.info("i");
    log.debug("d");
    log.trace("t");
    expect(lines.map((l) => l.split(" ").slice(1).join(" "))).toEqual(["error e\n", "warn w\n", "info i\n"]);
  });

  test("the level can be raised or silenced afterwards", () => {
    const { log, lines } = capture("json", 0);
    log.warn("not yet");
    log.level = 5;
    log.trace("now", { k: "v" });
    log.level = -999;
    log.error("silenced");
    expect(lines.map((l) => JSON.parse(l))).toMatchObject([{ level: "trace", msg: "now", k: "v" }]);
    expect(lines[0]).toEndWith("}\n");
  });

  test("withFields adds its fields to every line and shares the level", () => {
    const { log, lines } = capture("json", 3);
    const pleg = withFields(log, { component: "pleg" });
    pleg.info("relist", { pods: 2 });
    pleg.debug("hidden");
    log.level = 4;
    pleg.debug("shown");
    expect(pleg.level).toBe(4);
    expect(lines.map((l) => JSON.parse(l))).toMatchObject([
      { msg: "relist", component: "pleg", pods: 2 },
      { msg: "shown", component: "pleg" },
    ]);
  });

  test("methods are own properties, so a spread copy with one method replaced still logs through the rest", () => {
    const { log, lines } = capture("text");
    const kept: string[] = [];
    const copy = { ...log, warn: (m: string) => void kept.push(m) };
    copy.warn("w");
    copy.info("i");
    expect(kept).toEqual(["w"]);
    expect(lines).toHaveLength(1);
  });
});
