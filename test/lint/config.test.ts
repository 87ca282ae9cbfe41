import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { applyConfig, ConfigError, findConfig, loadConfig, parseConfig, type Finding } from "../../src/lint";

const finding = (rule: string): Finding => ({
  file: "f.yaml",
  line: 1,
  column: 1,
  endLine: 1,
  endColumn: 2,
  field: "",
  rule,
  severity: "warning",
  message: "m",
  hint: "h",
});

describe("parseConfig", () => {
  test("rules take a severity or off; YAML 1.1's `off` boolean and false mean off too", () => {
    const config = parseConfig({ rules: { "latest-tag": "error", "fixed-uid": "off", "missing-resources": false }, failOn: "warning" }, "c.yaml");
    expect(config).toEqual({ path: "c.yaml", rules: { "latest-tag": "error", "fixed-uid": "off", "missing-resources": "off" }, failOn: "warning" });
    expect(parseConfig(null, "c.yaml")).toEqual({ path: "c.yaml", rules: {} });
  });

  test("every mistake is a ConfigError that names it", () => {
    const cases: Array<[unknown, string]> = [
      [[], `c.yaml: must be a mapping with "rules" and "failOn"`],
      [{ rules: { "no-such": "off" } }, `c.yaml: rules: unknown rule "no-such" (see nodeagent staticpod lint --list-rules)`],
      [{ rules: { "latest-tag": "fatal" } }, `c.yaml: rules.latest-tag: must be one of error, warning, info, off, not "fatal"`],
      [{ rules: ["latest-tag"] }, "c.yaml: rules: must be a mapping of rule id to error | warning | info | off"],
      [{ failOn: "never" }, `c.yaml: failOn: must be one of error, warning, info, not "never"`],
      [{ rule: {} }, `c.yaml: unknown setting "rule" (the settings are "rules" and "failOn")`],
    ];
    for (const [doc, message] of cases) expect(() => parseConfig(doc, "c.yaml")).toThrow(new ConfigError(message));
  });
});

describe("findConfig and loadConfig", () => {
  test("the nearest .nodeagent-lint.yaml upward wins", () => {
    const root = mkdtempSync(join(tmpdir(), "lint-config-"));
    const deep = join(root, "a", "b");
    mkdirSync(deep, { recursive: true });
    expect(findConfig(deep)).toBeUndefined();
    writeFileSync(join(root, ".nodeagent-lint.yaml"), "rules:\n  latest-tag: error\n");
    expect(findConfig(deep)).toBe(join(root, ".nodeagent-lint.yaml"));
    writeFileSync(join(root, "a", ".nodeagent-lint.yaml"), "rules:\n  latest-tag: off\n");
    expect(findConfig(deep)).toBe(join(root, "a", ".nodeagent-lint.yaml"));
    // Read as YAML: `off` unquoted is fine.
    expect(loadConfig(join(root, "a", ".nodeagent-lint.yaml")).rules).toEqual({ "latest-tag": "off" });
  });

  test("unreadable or broken files are ConfigErrors", () => {
    expect(() => loadConfig("/no/such/file.yaml")).toThrow(new ConfigError("cannot read the configuration /no/such/file.yaml: ENOENT"));
    const bad = join(mkdtempSync(join(tmpdir(), "lint-config-")), "c.yaml");
    writeFileSync(bad, "rules: [\n");
    expect(() => loadConfig(bad)).toThrow(ConfigError);
  });
});

describe("applyConfig", () => {
  test("overrides severities and drops what is off, leaving the rest alone", () => {
    const out = applyConfig([finding("latest-tag"), finding("fixed-uid"), finding("unknown-field")], { rules: { "latest-tag": "error", "fixed-uid": "off" } });
    expect(out.map((f) => `${f.rule} ${f.severity}`)).toEqual(["latest-tag error", "unknown-field warning"]);
  });
});
