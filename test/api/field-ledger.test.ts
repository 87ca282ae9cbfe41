// The field ledger (docs/field-ledger.md) against kubernetes-types: every field of the pod API types
// the agent reads has a row saying what the agent does with it, and no row names a field that is gone.
// A field added to the types and missing from the ledger fails here: "validated but silently ignored"
// cannot come back unnoticed.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");
const TYPES = join(ROOT, "node_modules", "kubernetes-types", "core", "v1.d.ts");
const LEDGER = join(ROOT, "docs", "field-ledger.md");

/** The types walked besides the volume sources, which are found from Volume's fields. */
const ROOTS = ["PodSpec", "Container", "VolumeMount", "PodSecurityContext", "SecurityContext", "Volume", "VolumeProjection"];
const STATUSES = new Set(["honoured", "refused", "not applicable on Linux", "control plane", "ignored"]);

/** Each `export interface X {` block of the .d.ts: its members' names and types, in order. */
function parseInterfaces(text: string): Map<string, { name: string; type: string }[]> {
  const out = new Map<string, { name: string; type: string }[]>();
  for (const m of text.matchAll(/^export interface (\w+)(?: extends [^{]+)? \{\n([\s\S]*?)^\}/gm)) {
    const members = [...m[2]!.matchAll(/^ {4}(?:readonly )?(\w+)\??: ([^;]+);/gm)].map((f) => ({ name: f[1]!, type: f[2]!.trim() }));
    out.set(m[1]!, members);
  }
  return out;
}

interface Row {
  field: string;
  status: string;
  note: string;
  line: number;
}

/** The ledger's `### Type` sections and their `| \`field\` | status | note |` rows. */
function parseLedger(text: string): { sections: Map<string, Row[]>; problems: string[] } {
  const sections = new Map<string, Row[]>();
  const problems: string[] = [];
  let current: Row[] | undefined;
  text.split("\n").forEach((l, i) => {
    const line = i + 1;
    const heading = /^### (\w+)\s*$/.exec(l);
    if (heading) {
      if (sections.has(heading[1]!)) problems.push(`line ${line}: section ${heading[1]} appears twice`);
      current = [];
      sections.set(heading[1]!, current);
      return;
    }
    const row = /^\| `(\w+)` \| ([^|]+?) \| (.*) \|\s*$/.exec(l);
    if (!row) return;
    if (!current) {
      problems.push(`line ${line}: a row before any ### section`);
      return;
    }
    current.push({ field: row[1]!, status: row[2]!, note: row[3]!.trim(), line });
  });
  return { sections, problems };
}

const interfaces = parseInterfaces(readFileSync(TYPES, "utf8"));
const ledger = parseLedger(readFileSync(LEDGER, "utf8"));

/** ROOTS, then the type of every Volume field but name (awsElasticBlockStore → AWSElasticBlockStoreVolumeSource, …). */
function walkedTypes(): string[] {
  const sources = (interfaces.get("Volume") ?? []).filter((f) => f.name !== "name").map((f) => f.type);
  return [...ROOTS, ...sources];
}

/** The walked types' fields without a row, and rows (or sections) naming what the types do not have. */
function diff(sections: Map<string, Row[]>): { missing: string[]; stale: string[] } {
  const missing: string[] = [];
  const stale: string[] = [];
  const walked = walkedTypes();
  for (const t of walked) {
    const fields = new Set(interfaces.get(t)!.map((f) => f.name));
    const rows = sections.get(t);
    if (!rows) {
      missing.push(`${t} (no ### ${t} section)`);
      continue;
    }
    const listed = new Set(rows.map((r) => r.field));
    for (const f of fields) if (!listed.has(f)) missing.push(`${t}.${f}`);
    for (const r of rows) if (!fields.has(r.field)) stale.push(`${t}.${r.field} (line ${r.line})`);
  }
  for (const t of sections.keys()) if (!walked.includes(t)) stale.push(`section ${t}`);
  return { missing, stale };
}

describe("the field ledger", () => {
  test("the .d.ts parses into the types the ledger walks (the parser still understands the file)", () => {
    for (const t of walkedTypes()) expect(interfaces.get(t)?.length ?? 0).toBeGreaterThan(0);
    expect(interfaces.get("Volume")!.map((f) => f.name)).toContain("hostPath");
    expect(walkedTypes()).toContain("HostPathVolumeSource");
    expect(ledger.problems).toEqual([]);
  });

  test("every field of every walked type has a row, and every row names a field that exists", () => {
    expect(diff(ledger.sections)).toEqual({ missing: [], stale: [] });
  });

  test("each row has one of the statuses, a note, and appears once", () => {
    const bad: string[] = [];
    for (const [t, rows] of ledger.sections) {
      const seen = new Set<string>();
      for (const r of rows) {
        if (!STATUSES.has(r.status)) bad.push(`${t}.${r.field} (line ${r.line}): status "${r.status}"`);
        if (!r.note) bad.push(`${t}.${r.field} (line ${r.line}): no note`);
        if (seen.has(r.field)) bad.push(`${t}.${r.field} (line ${r.line}): listed twice`);
        seen.add(r.field);
      }
    }
    expect(bad).toEqual([]);
  });

  test("the check catches a field the ledger lacks, a row of a field that is gone, and a section of no type", () => {
    const text =
      readFileSync(LEDGER, "utf8")
        .replace(/^\| `subPathExpr` .*\n/m, "")
        .replace("| `subPath` |", "| `subPathGone` |") + "\n### GoneVolumeSource\n\n| `x` | refused | gone |\n";
    const d = diff(parseLedger(text).sections);
    expect(d.missing).toEqual(["VolumeMount.subPath", "VolumeMount.subPathExpr"]);
    expect(d.stale.map((s) => s.replace(/ \(line \d+\)/, ""))).toEqual(["VolumeMount.subPathGone", "section GoneVolumeSource"]);
  });
});
