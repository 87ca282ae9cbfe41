// Field and label selectors as list and watch take them (apimachinery's fields.ParseSelector and
// labels.Parse): field `=`/`==`/`!=` terms joined by commas; label equality, `!=`, `in`, `notin`,
// existence and `!key`. A malformed selector or an unsupported field is a 400, as upstream.
import { badRequest } from "./status";
import { fieldValue, type ResourceDef } from "./resources";
import type { AnyObject } from "./objects";

export type Matcher = (obj: AnyObject) => boolean;

interface FieldTerm {
  field: string;
  op: "=" | "!=";
  value: string;
}

export function parseFieldSelector(r: ResourceDef, selector: string): { match: Matcher; terms: FieldTerm[] } {
  const terms: FieldTerm[] = [];
  for (const part of splitTerms(selector)) {
    const m = /^([^=!]+?)\s*(==|!=|=)\s*(.*)$/.exec(part);
    if (!m) throw badRequest(`invalid selector: '${selector}'; can't understand '${part}'`);
    const field = m[1]!.trim();
    if (fieldValue(r, { metadata: {} }, field) === undefined) throw badRequest(`field label not supported: ${field}`);
    terms.push({ field, op: m[2] === "!=" ? "!=" : "=", value: m[3]!.trim() });
  }
  return { terms, match: (o) => terms.every((t) => (fieldValue(r, o, t.field) === t.value) === (t.op === "=")) };
}

/** Commas separate terms, except inside the parentheses of `in (a,b)`. */
function splitTerms(selector: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let cur = "";
  for (const ch of selector) {
    if (ch === "(") depth++;
    if (ch === ")") depth--;
    if (ch === "," && depth === 0) {
      parts.push(cur.trim());
      cur = "";
    } else cur += ch;
  }
  if (cur.trim() || parts.length) parts.push(cur.trim());
  return parts.filter((p) => p !== "");
}

export function parseLabelSelector(selector: string): Matcher {
  const tests: Array<(labels: Record<string, string>) => boolean> = [];
  for (const part of splitTerms(selector)) {
    let m: RegExpExecArray | null;
    if ((m = /^([\w./-]+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(part))) {
      const key = m[1]!;
      const values = new Set(m[3]!.split(",").map((v) => v.trim()));
      const negate = m[2] === "notin";
      // notin matches objects without the label too (labels.Requirement.Matches).
      tests.push((l) => (key in l ? values.has(l[key]!) !== negate : negate));
    } else if ((m = /^([\w./-]+)\s*(==|!=|=)\s*([\w.-]*)$/.exec(part))) {
      const [key, op, value] = [m[1]!, m[2]!, m[3]!];
      tests.push(op === "!=" ? (l) => l[key] !== value : (l) => l[key] === value);
    } else if ((m = /^(!?)([\w./-]+)$/.exec(part))) {
      const [negate, key] = [m[1] === "!", m[2]!];
      tests.push((l) => key in l !== negate);
    } else {
      throw badRequest(`unable to parse requirement: ${JSON.stringify(part)}`);
    }
  }
  return (o) => tests.every((t) => t(o.metadata?.labels ?? {}));
}
