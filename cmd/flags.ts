// The strict half of the command layer: a command line checked against a command's citty ArgsDef
// before the command runs. citty's own parser accepts anything — an unknown flag becomes one more
// property, a stray word lands in `_` — which let `agent --pod-manifest-paht dir` start with no static
// pods and remove the running ones. Here every word must be a declared flag, the value of one, or an
// operand of a command that declares a positional argument; anything else is a UsageError that names
// it and, when one is close, the flag that was meant. Nothing has started when this runs.
//
// Forms accepted, as pflag (the kubelet's flag library) accepts them: --name value, --name=value,
// -x value, -x=value, -xvalue for one-letter aliases, -it for one-letter booleans given together (as
// `-i -t`), --flag / --flag=false / --no-flag for booleans,
// and "--" to end the flags (what follows is operands, e.g. `probe run --exec -- cat /tmp/ok`).
// A flag given twice keeps its last value in `args`, and every value in `values` (`schedule --node`).
import type { ArgDef, ArgsDef } from "citty";
import { closest } from "../src/util";
import { UsageError } from "./exit";

/**
 * Old spellings of flags, kept working but out of --help: a word `--old` is read as the flag `def`
 * and the parse reports a warning naming the new spelling. Kept beside the flag's definition object
 * (citty's ArgDef has no place for it), so a definition shared by several commands carries it to all.
 */
const deprecatedAliases = new WeakMap<ArgDef, string[]>();

/** `def`, also answering to `--old` (hidden from --help; using it warns). */
export function withDeprecatedAlias<T extends ArgDef>(def: T, ...old: string[]): T {
  deprecatedAliases.set(def, [...(deprecatedAliases.get(def) ?? []), ...old]);
  return def;
}

export interface ParsedCommandLine {
  /**
   * citty's ParsedArgs shape: every declared flag's value (its default when not given), each
   * positional argument by name (the first operands), and every operand in `_`.
   */
  args: { _: string[] } & Record<string, string | boolean | string[] | undefined>;
  /** The long names of the flags given on the command line (aliases resolved to the long name). */
  given: Set<string>;
  /** Every value of each flag given, in order. */
  values: Map<string, string[]>;
  /** What the caller should print before running: deprecated spellings used. */
  warnings: string[];
}

const aliasesOf = (def: ArgDef): string[] => ("alias" in def && def.alias !== undefined ? (Array.isArray(def.alias) ? def.alias : [def.alias]) : []);

/** Whether a word asks for help: --help or -h anywhere before "--". */
export function wantsHelp(argv: readonly string[]): boolean {
  for (const a of argv) {
    if (a === "--") return false;
    if (a === "--help" || a === "-h") return true;
  }
  return false;
}

/**
 * Parses `argv` (the words after the command's name) against `argsDef`. `where` names the command in
 * messages ("nodeagent agent"). Throws UsageError at the first word that is not allowed.
 */
export function parseCommandLine(argsDef: ArgsDef, argv: readonly string[], where: string): ParsedCommandLine {
  const long = new Map<string, string>();
  const short = new Map<string, string>();
  const positionals: string[] = [];
  const deprecated = new Map<string, string>();
  for (const [name, def] of Object.entries(argsDef)) {
    for (const old of deprecatedAliases.get(def) ?? []) deprecated.set(old, name);
    if (def.type === "positional") {
      positionals.push(name);
      continue;
    }
    long.set(name, name);
    for (const alias of aliasesOf(def)) (alias.length === 1 ? short : long).set(alias, name);
  }
  const flagNames = [...long.keys()];
  const unknown = (word: string): UsageError => {
    const bare = word.replace(/^-+/, "").split("=")[0]!;
    const near = closest(bare, flagNames);
    return new UsageError(`unknown flag ${word.split("=")[0]} for ${where}${near ? `; did you mean --${near}?` : ""}`);
  };

  const args: ParsedCommandLine["args"] = { _: [] };
  const given = new Set<string>();
  const values = new Map<string, string[]>();
  const set = (name: string, value: string | boolean) => {
    args[name] = value;
    given.add(name);
    if (typeof value === "string") values.set(name, [...(values.get(name) ?? []), value]);
  };
  const operands: string[] = [];
  const warnings: string[] = [];

  const words = [...argv];
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (word === "--") {
      operands.push(...words.slice(i + 1));
      break;
    }
    let name: string | undefined;
    let inline: string | undefined;
    let shown: string;
    if (word.startsWith("--") && word.length > 2) {
      const eq = word.indexOf("=");
      const key = eq < 0 ? word.slice(2) : word.slice(2, eq);
      inline = eq < 0 ? undefined : word.slice(eq + 1);
      shown = `--${key}`;
      name = long.get(key);
      if (!name && deprecated.has(key)) {
        name = deprecated.get(key)!;
        warnings.push(`--${key} is deprecated for ${where}: use --${name}`);
      }
      if (!name && key.startsWith("no-") && argsDef[long.get(key.slice(3)) ?? ""]?.type === "boolean") {
        if (inline !== undefined) throw new UsageError(`${shown} takes no value`);
        set(long.get(key.slice(3))!, false);
        continue;
      }
      if (!name) throw unknown(word);
    } else if (word.startsWith("-") && word.length > 1) {
      shown = word.slice(0, 2);
      name = short.get(word[1]!);
      if (!name) {
        // -pod-manifest-path: a long flag written with one dash.
        const asLong = long.get(word.slice(1).split("=")[0]!);
        throw asLong ? new UsageError(`unknown flag ${word.split("=")[0]} for ${where}; did you mean --${asLong}?`) : unknown(word);
      }
      if (word.length > 2 && word[2] !== "=" && argsDef[name]!.type === "boolean") {
        // -it: a boolean, then the rest of the group as the next word (-t, or -ojson's -o json).
        set(name, true);
        words.splice(i + 1, 0, `-${word.slice(2)}`);
        continue;
      }
      if (word.length > 2) inline = word[2] === "=" ? word.slice(3) : word.slice(2);
    } else {
      operands.push(word);
      continue;
    }
    const def = argsDef[name]!;
    const flag = `--${name}`;
    if (def.type === "boolean") {
      if (inline === undefined) set(name, true);
      else if (inline === "true" || inline === "false") set(name, inline === "true");
      else throw new UsageError(`${shown}=${inline}: ${flag} is true or false`);
      continue;
    }
    let value = inline;
    if (value === undefined) {
      value = words[i + 1];
      if (value === undefined || (value.startsWith("--") && value.length > 2)) {
        throw new UsageError(`${flag} needs a value${value === undefined ? "" : ` (${value} is a flag; write ${flag}=${value} if it is the value)`}`);
      }
      i++;
    }
    if (def.type === "enum") {
      const options = def.options ?? [];
      if (!options.includes(value)) {
        const near = closest(value, options);
        throw new UsageError(`invalid value ${JSON.stringify(value)} for ${flag}: use ${options.join(", ")}${near ? ` (did you mean ${near}?)` : ""}`);
      }
    }
    set(name, value);
  }

  if (operands.length > 0 && positionals.length === 0) {
    throw new UsageError(`unexpected argument ${JSON.stringify(operands[0])}: ${where} takes no arguments, only flags (--name value)`);
  }
  args._ = operands;
  positionals.forEach((p, i) => (args[p] = operands[i]));
  for (const [name, def] of Object.entries(argsDef)) {
    if (def.type !== "positional" && !given.has(name) && def.default !== undefined) args[name] = def.default;
  }
  return { args, given, values, warnings };
}
