// Settings declared once (issue 25): every setting of `nodeagent agent` is one row, and the flag
// table, --help, the config file's known fields and their types, /configz and docs/agent-settings.md
// are made from the rows — a row added appears in all of them, and the docs page is kept in step.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { agentCommand } from "../../cmd/agent";
import { runtimeArgs } from "../../cmd/runtime-args";
import { AGENT_DEFAULTS, AGENT_SETTINGS, KUBELET_CONFIG_TYPES, resolveAgentConfig, SETTING_GROUPS } from "../../src/agent/agent-config";
import { kubeletConfigz } from "../../src/agent/configz";
import { readKubeletConfigFile } from "../../src/agent/kubelet-config-file";
import { settingsMarkdown } from "../../src/agent/settings-doc";
import { DEFAULT_EVICTION_HARD } from "../../src/eviction/thresholds";
import { DURATION, INT } from "../../src/util/field-types";
import { fieldTypes, flagTable, SettingsReader, showFields, type Setting } from "../../src/util/settings";
import { positiveDuration, fileDuration } from "../../src/util/settings-parsers";
import { FakeHostNetwork } from "../fakes/host-network";

const DOC = join(import.meta.dir, "../../docs/agent-settings.md");

describe("the rows", () => {
  test("every row has a doc line, a flag or a field, and a field its type; flags and fields are unique", () => {
    for (const r of AGENT_SETTINGS) {
      expect(r.doc.trim().length, `${r.flag ?? r.field}`).toBeGreaterThan(10);
      expect(r.flag ?? r.field).toBeDefined();
      if (r.field) expect(r.fieldType, r.field).toBeDefined();
    }
    const flags = AGENT_SETTINGS.flatMap((r) => (r.flag ? [r.flag] : []));
    const fields = AGENT_SETTINGS.flatMap((r) => (r.field ? [r.field] : []));
    expect(new Set(flags).size).toBe(flags.length);
    expect(new Set(fields).size).toBe(fields.length);
  });

  test("the command's flags are the rows' flags, with their docs and defaults", () => {
    const args = agentCommand.args as Record<string, { description?: string; default?: unknown }>;
    const flags = AGENT_SETTINGS.flatMap((r) => (r.flag ? [r.flag] : []));
    expect(Object.keys(args).sort()).toEqual(flags.sort());
    for (const r of AGENT_SETTINGS) {
      if (!r.flag) continue;
      expect(args[r.flag]?.description).toBe(r.doc);
      if (r.default !== undefined) expect(String(args[r.flag]?.default)).toBe(r.default);
    }
    // The runtime's flags are shared with pleg and probe, from the same rows.
    expect(Object.keys(runtimeArgs).every((f) => f in args)).toBe(true);
  });

  test("the config file knows the rows' fields (a block from its rows' dotted fields); /configz shows them", () => {
    const topLevel = new Set(AGENT_SETTINGS.flatMap((r) => (r.field ? [r.field.split(".")[0]!] : [])));
    expect(new Set(Object.keys(KUBELET_CONFIG_TYPES))).toEqual(topLevel);
    const shown = kubeletConfigz(
      resolveAgentConfig(AGENT_DEFAULTS, new Set(), undefined, { hostname: () => "node-1", network: new FakeHostNetwork() }),
    ).kubeletconfig;
    // Every field /configz shows is a row's (those set only when given, such as clusterDNS, are left out here).
    for (const key of Object.keys(shown)) if (key !== "kind" && key !== "apiVersion") expect(topLevel).toContain(key);
    expect(Object.keys(shown)).toEqual(
      expect.arrayContaining([
        "syncFrequency",
        "authentication",
        "authorization",
        "evictionHard",
        "maxPods",
        "cgroupDriver",
        "imageGCHighThresholdPercent",
        "shutdownGracePeriod",
      ]),
    );
    // The fields /configz leaves out, on purpose: nodeagent's own sandbox image and the two
    // reservations (the kubelet shows them; nodeagent has only their sum, on the Node).
    expect(AGENT_SETTINGS.filter((r) => r.field && !r.show).map((r) => r.field)).toEqual(["podInfraContainerImage", "kubeReserved", "systemReserved"]);
  });

  test("the default evictionHard is the eviction manager's one constant", () => {
    expect(AGENT_DEFAULTS["eviction-hard"]).toBe(DEFAULT_EVICTION_HARD);
  });
});

describe("a row added appears everywhere", () => {
  const NEW: Setting<{ periodMs: number }> = {
    flag: "example-period",
    field: "examplePeriod",
    fieldType: DURATION,
    valueHint: "duration",
    default: "30s",
    doc: "How often the example runs",
    show: (p) => `${p.periodMs / 1000}s`,
  };
  const NESTED: Setting = { flag: "example-limit", field: "example.limits.max", fieldType: INT, doc: "The example's limit" };
  const rows: readonly Setting[] = [...AGENT_SETTINGS, NEW, NESTED];

  test("in the flag table and --help, with its default", () => {
    expect(flagTable(rows)["example-period"]).toEqual({ type: "string", valueHint: "duration", default: "30s", description: "How often the example runs" });
    expect(flagTable(rows)["example-limit"]).toEqual({ type: "string", description: "The example's limit" });
  });

  test("in the config file's known fields, type-checked, a block built from dotted fields", () => {
    const types = fieldTypes(rows);
    expect(types.examplePeriod).toEqual(DURATION);
    expect(types.example).toEqual({ kind: "struct", fields: { limits: { kind: "struct", fields: { max: INT } } } });
    const file = readKubeletConfigFile("/etc/k.yaml", "examplePeriod: 5\nexample:\n  limits:\n    max: 3\n", types);
    expect(file.problems).toEqual([`/etc/k.yaml:1:1: examplePeriod: expected a duration such as "20s", got 5`]);
    expect(file.fields.get("example")?.value).toEqual({ limits: { max: 3 } });
  });

  test("read with flag-over-file precedence, and shown by /configz", () => {
    const file = readKubeletConfigFile("/etc/k.yaml", "examplePeriod: 1m\n", fieldTypes(rows));
    const read = (given: Record<string, string>) =>
      new SettingsReader(rows, given, new Set(Object.keys(given)), file.fields).get("example-period", positiveDuration, fileDuration);
    expect(read({})).toBe(60_000);
    expect(read({ "example-period": "10s" })).toBe(10_000);
    expect(new SettingsReader(rows, {}, new Set(), undefined).get("example-period", positiveDuration, fileDuration)).toBe(30_000);
    const out: Record<string, unknown> = {};
    showFields(out, [NEW], { periodMs: 45_000 });
    expect(out).toEqual({ examplePeriod: "45s" });
  });

  test("in the docs page", () => {
    expect(settingsMarkdown([{ title: "Example", home: "src/example/settings.ts", rows: [NEW] }])).toContain(
      "| `--example-period duration` | `examplePeriod` | `30s` | How often the example runs |",
    );
  });
});

test("docs/agent-settings.md is the rows' page (regenerate: bun scripts/agent-settings-doc.ts --write)", () => {
  const want = settingsMarkdown(SETTING_GROUPS);
  const have = readFileSync(DOC, "utf8");
  if (have !== want) {
    const a = have.split("\n");
    const b = want.split("\n");
    const diff = b.flatMap((line, i) => (a[i] === line ? [] : [`line ${i + 1}:\n  page: ${a[i] ?? "(none)"}\n  rows: ${line}`]));
    throw new Error(
      `docs/agent-settings.md is out of step with the setting rows; run bun scripts/agent-settings-doc.ts --write\n${diff.slice(0, 5).join("\n")}`,
    );
  }
});
