// The parsers every setting row is built from (util/settings.ts): a flag's text or a configuration
// file's value (as YAML 1.1 decodes it) into the value used, or an Invalid saying what was expected.
// The reader adds where the value came from (the flag, or the file, line and field), so the messages
// here never name a flag. Kubernetes-specific ones (quantities) live in src/api/settings-parsers.ts.
import { existsSync, statSync } from "node:fs";
import { isIP } from "node:net";
import { parseDuration } from "./duration";
import { errorMessage } from "./errors";
import { ownedFolderProblem } from "./system-folders";

/** A value that fails its check: the message says what was expected; the caller adds where. */
export class Invalid extends Error {}

/** A decoded value in a message: "a list", "a mapping", "the string \"x\"", "5". */
export const describe = (v: unknown): string =>
  Array.isArray(v) ? "a list" : v !== null && typeof v === "object" ? "a mapping" : typeof v === "string" ? `the string ${JSON.stringify(v)}` : String(v);

/** A duration's text in ms, any sign; one that does not parse is Invalid. */
export function durationText(text: string): number {
  try {
    return parseDuration(text);
  } catch (e) {
    throw new Invalid(errorMessage(e));
  }
}

export function positiveDuration(text: string): number {
  const ms = durationText(text);
  if (ms <= 0) throw new Invalid("must be longer than 0");
  return ms;
}

/** A duration of 0 or more (a minimum age). */
export function nonNegativeDuration(text: string): number {
  const ms = durationText(text);
  if (ms < 0) throw new Invalid("must not be negative");
  return ms;
}

export function wholeNumber(text: string, min: number, max: number): number {
  if (!/^\d+$/.test(text.trim()) || Number(text) < min || Number(text) > max) throw new Invalid(`expected a whole number from ${min} to ${max}`);
  return Number(text);
}

/** A whole number, negative allowed, of at least `min` (-1: no limit). */
export const intAtLeast =
  (min: number) =>
  (text: string): number => {
    if (!/^-?\d+$/.test(text.trim()) || Number(text) < min) throw new Invalid(`expected a whole number of at least ${min}`);
    return Number(text);
  };

export function ipAddress(text: string): string {
  if (isIP(text.trim()) === 0) throw new Invalid("not an IP address");
  return text.trim();
}

/** A comma-separated flag's items, trimmed, empty ones dropped. */
export const listFlag = (text: string): string[] =>
  text
    .split(",")
    .map((x) => x.trim())
    .filter(Boolean);

export function mustExist(path: string): string {
  if (!existsSync(path)) throw new Invalid("no such file or directory");
  return path;
}

export function mustBeDirectory(path: string): string {
  mustExist(path);
  if (!statSync(path).isDirectory()) throw new Invalid("not a directory");
  return path;
}

/**
 * A folder the agent owns and deletes in (--root-dir, --pod-logs-dir, --cert-dir): absolute, not
 * empty, not / or a system folder of the host (util/system-folders.ts).
 */
export const ownedFolder =
  (example: string) =>
  (path: string): string => {
    const problem = ownedFolderProblem(path, example);
    if (problem) throw new Invalid(problem);
    return path;
  };

export function oneOf(text: string, options: readonly string[]): string {
  if (!options.includes(text)) throw new Invalid(`use ${options.join(", ")}`);
  return text;
}

export function boolFlag(text: string): boolean {
  if (text === "true") return true;
  if (text === "false") return false;
  throw new Invalid("use true or false");
}

// What each kind of file field must hold (its Go type, as JSON would decode it).
export function fileBool(v: unknown): boolean {
  if (typeof v !== "boolean") throw new Invalid(`expected true or false, got ${describe(v)}`);
  return v;
}
export const fileString = (v: unknown): string => {
  if (typeof v !== "string") throw new Invalid(`expected a string, got ${describe(v)}`);
  return v;
};
export const fileDuration = (v: unknown): number => {
  if (typeof v !== "string") throw new Invalid(`expected a duration such as "20s", got ${describe(v)}`);
  return positiveDuration(v);
};
/** A file field holding a duration string, checked as its flag is. */
export const fileDurationOf =
  (check: (text: string) => number, example: string) =>
  (v: unknown): number => {
    if (typeof v !== "string") throw new Invalid(`expected a duration such as "${example}", got ${describe(v)}`);
    return check(v);
  };
export const fileInt =
  (min: number, max: number) =>
  (v: unknown): number => {
    if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max)
      throw new Invalid(`expected a whole number from ${min} to ${max}, got ${describe(v)}`);
    return v;
  };
export const fileStringList = (v: unknown): string[] => {
  if (!Array.isArray(v) || v.some((x) => typeof x !== "string")) throw new Invalid(`expected a list of strings, got ${describe(v)}`);
  return v as string[];
};
export const fileMap = (v: unknown): Record<string, unknown> => {
  if (v === null || typeof v !== "object" || Array.isArray(v)) throw new Invalid(`expected a mapping, got ${describe(v)}`);
  return v as Record<string, unknown>;
};
/** A mapping of names to quantity strings (a YAML number taken as its text: cpu: 1). */
export const fileQuantityEntries = (v: unknown): Array<[string, string]> =>
  Object.entries(fileMap(v)).map(([k, q]): [string, string] => [k, typeof q === "number" ? String(q) : fileString(q)]);
