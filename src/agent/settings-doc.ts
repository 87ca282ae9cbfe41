// docs/agent-settings.md, made from the setting rows (agent-config.ts SETTING_GROUPS): every flag of
// `nodeagent agent`, its KubeletConfiguration field and default, by subsystem. A unit test
// (test/agent/settings-rows.test.ts) fails when the page and the rows differ; regenerate the page
// with `bun scripts/agent-settings-doc.ts --write`.
import type { Setting } from "../util";
import type { SettingGroup } from "./agent-config";

const cell = (text: string): string => text.replace(/\|/g, "\\|");
/** Prose in a cell: `<root-dir>` is text, not an HTML tag. */
const prose = (text: string): string => cell(text).replace(/</g, "&lt;").replace(/>/g, "&gt;");

function flagCell(r: Setting): string {
  if (!r.flag) return "—";
  const value = r.kind === "boolean" ? "" : r.kind === "enum" ? ` ${(r.options ?? []).join("\\|")}` : r.valueHint ? ` ${cell(r.valueHint)}` : "";
  return `\`--${r.flag}${value}\``;
}

export function settingsMarkdown(groups: readonly SettingGroup[]): string {
  const out = [
    "# `nodeagent agent` settings",
    "",
    "<!-- Generated from the setting rows by `bun scripts/agent-settings-doc.ts --write`; do not edit by hand. -->",
    "",
    "Every setting is one row beside the code that uses it; the flags, `--help`, the `--config` file's",
    "known fields and their type checks, `/configz` and this page are made from the rows. A flag given",
    "on the command line wins over the `--config` file (a KubeletConfiguration, kubelet.config.k8s.io/v1beta1),",
    'and the file over the default; a field at its zero value (`0s`, `""`, `{}`) is the default, as',
    "v1beta1 defaulting has it. A field of a block is written with dots (`authentication.webhook.enabled`).",
    "",
  ];
  for (const g of groups) {
    out.push(
      `## ${g.title}`,
      "",
      `Declared and resolved in \`${g.home}\`.`,
      "",
      "| Flag | Config field | Default | Description |",
      "| --- | --- | --- | --- |",
    );
    for (const r of g.rows) {
      const field = r.field ? `\`${r.field}\`` : "—";
      const dflt = r.default !== undefined && r.default !== "" ? `\`${cell(r.default)}\`` : "—";
      out.push(`| ${flagCell(r)} | ${field} | ${dflt} | ${prose(r.doc)} |`);
    }
    out.push("");
  }
  return out.join("\n");
}
