// The linter's configuration file, `.nodeagent-lint.yaml`: rules turned off or given another
// severity, and the severity that fails the run. It is found upward from the working directory
// (as .kube-linter.yaml or .eslintrc are) or named with --config. A mistake in it is a usage error:
// a rule id that does not exist must not silently turn nothing off.
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parse } from "yaml";
import { errorMessage } from "../util";
import { isRuleId } from "./rules";
import { SEVERITIES, type Finding, type Severity } from "./types";

export const CONFIG_FILE_NAME = ".nodeagent-lint.yaml";

export type RuleSetting = Severity | "off";

export interface LintConfig {
  /** Where it was read from; undefined for the built-in defaults. */
  path?: string;
  rules: Record<string, RuleSetting>;
  failOn?: Severity;
}

export class ConfigError extends Error {}

const SETTINGS: readonly RuleSetting[] = [...SEVERITIES, "off"];

/** The nearest .nodeagent-lint.yaml in `dir` or one of its parents. */
export function findConfig(dir: string): string | undefined {
  let current = resolve(dir);
  for (;;) {
    const candidate = join(current, CONFIG_FILE_NAME);
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
    const parent = dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
}

/** Checks a parsed configuration document; `where` prefixes every message. */
export function parseConfig(doc: unknown, where: string): LintConfig {
  if (doc === null || doc === undefined) return { path: where, rules: {} };
  if (typeof doc !== "object" || Array.isArray(doc)) throw new ConfigError(`${where}: must be a mapping with "rules" and "failOn"`);
  const config: LintConfig = { path: where, rules: {} };
  for (const [key, value] of Object.entries(doc)) {
    if (key === "rules") {
      if (value === null) continue;
      if (typeof value !== "object" || Array.isArray(value)) throw new ConfigError(`${where}: rules: must be a mapping of rule id to ${SETTINGS.join(" | ")}`);
      for (const [id, setting] of Object.entries(value as Record<string, unknown>)) {
        if (!isRuleId(id)) throw new ConfigError(`${where}: rules: unknown rule ${JSON.stringify(id)} (see nodeagent staticpod lint --list-rules)`);
        // `off` is a boolean in YAML 1.1 and some editors write `false`; both mean off.
        const normalised = setting === false ? "off" : setting;
        if (typeof normalised !== "string" || !SETTINGS.includes(normalised as RuleSetting)) {
          throw new ConfigError(`${where}: rules.${id}: must be one of ${SETTINGS.join(", ")}, not ${JSON.stringify(setting)}`);
        }
        config.rules[id] = normalised as RuleSetting;
      }
    } else if (key === "failOn") {
      if (typeof value !== "string" || !SEVERITIES.includes(value as Severity)) {
        throw new ConfigError(`${where}: failOn: must be one of ${SEVERITIES.join(", ")}, not ${JSON.stringify(value)}`);
      }
      config.failOn = value as Severity;
    } else {
      throw new ConfigError(`${where}: unknown setting ${JSON.stringify(key)} (the settings are "rules" and "failOn")`);
    }
  }
  return config;
}

/** Reads a configuration file; every problem with it is a ConfigError with a clear message. */
export function loadConfig(path: string): LintConfig {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new ConfigError(`cannot read the configuration ${path}: ${(e as NodeJS.ErrnoException).code ?? errorMessage(e)}`);
  }
  let doc: unknown;
  try {
    doc = parse(text, { prettyErrors: false });
  } catch (e) {
    throw new ConfigError(`${path}: not valid YAML: ${errorMessage(e)}`);
  }
  return parseConfig(doc, path);
}

/** The findings with the configured severities, the rules turned off left out. */
export function applyConfig(findings: readonly Finding[], config: LintConfig): Finding[] {
  const out: Finding[] = [];
  for (const f of findings) {
    const setting = config.rules[f.rule];
    if (setting === "off") continue;
    out.push(setting ? { ...f, severity: setting } : f);
  }
  return out;
}
