// A setting declared once: one row names its flag, its configuration-file field, its type, default,
// doc line and parser, and everything else is derived from the rows — the command's flag table and
// --help, which file fields are known and their type checks, /configz, and docs/agent-settings.md.
// Each subsystem declares its rows beside its code (src/eviction/settings.ts, …) and resolves its
// own options (parsing and checking each value) with a SettingsReader; src/agent assembles the rows and the whole config.
//
// Precedence is the kubelet's (cmd/kubelet/app/server.go re-applies the command line over the
// loaded file): a flag given on the command line wins over the file, the file over the flag's
// default. A file field is checked even when the flag overrides it: a mistake in the file is one,
// whatever wins. Every mistake is collected, so that all are reported at once.
import { type FieldType, struct } from "./field-types";
import { fileString, Invalid } from "./settings-parsers";

/**
 * One setting. `P` is the subsystem's resolved options its /configz value is read from (a method, not
 * a function property, so that rows of different subsystems fit one list). The value's parser and
 * checks are the subsystem's resolver, in the same settings.ts as the row: many settings are checked
 * together (--tls-cert-file with its key, the image GC thresholds against each other), and the
 * resolver reads them in the order their mistakes are reported.
 */
export interface Setting<P = unknown> {
  /** The long flag, without "--"; absent for a setting only the file has. */
  flag?: string;
  /** The KubeletConfiguration field; dotted for a field inside a block ("authentication.webhook.enabled"). */
  field?: string;
  /** The field's type as JSON decoding checks it (required with `field`). */
  fieldType?: FieldType;
  /** How the command line parses the flag. */
  kind?: "string" | "boolean" | "enum";
  /** An enum flag's values. */
  options?: readonly string[];
  /** What the flag takes, in --help ("duration", "key=value,…"). */
  valueHint?: string;
  /** The flag's default as its text (what --help shows, and what the parser gets when nothing is given). */
  default?: string;
  /** One line for --help and the docs. */
  doc: string;
  /** The value /configz shows for `field`, from the subsystem's resolved options; undefined: not shown. */
  show?(resolved: P): unknown;
}

/** A set field of the configuration file, as the file reader hands it over. */
export interface FileField {
  name: string;
  value: unknown;
  /** "<path>:<line>:<column>". */
  at: string;
}

/** The file's set fields by name (undefined: no --config). */
export type FileFields = ReadonlyMap<string, FileField> | undefined;

/** The command's flags by name (citty's parsed args: strings and booleans; other values are ignored). */
export type Flags = Readonly<Record<string, unknown>>;

/**
 * Reads every setting from the flags given, the file, or the default, collecting the mistakes. A
 * file field at its zero value is not "given" (the file reader leaves it out).
 */
export class SettingsReader {
  readonly errors: string[] = [];
  readonly warnings: string[] = [];
  private readonly fieldOfFlag: ReadonlyMap<string, string>;
  private readonly defaults: ReadonlyMap<string, string>;

  constructor(
    rows: readonly Setting[],
    readonly flags: Flags,
    private readonly given: ReadonlySet<string>,
    private readonly file: FileFields,
  ) {
    this.fieldOfFlag = new Map(rows.flatMap((r) => (r.flag && r.field && !r.field.includes(".") ? [[r.flag, r.field] as [string, string]] : [])));
    this.defaults = new Map(rows.flatMap((r) => (r.flag && r.default !== undefined ? [[r.flag, r.default] as [string, string]] : [])));
  }

  isGiven(flag: string): boolean {
    return this.given.has(flag);
  }

  /** The field standing for the flag ("maxPods" for max-pods). */
  fieldOf(flag: string): string | undefined {
    return this.fieldOfFlag.get(flag);
  }

  /** A field of the file's `block` mapping (authentication.x509.clientCAFile), with where it is written. */
  nested(block: string, path: string[]): { value: unknown; at: string } | undefined {
    const f = this.file?.get(block);
    if (!f) return undefined;
    let v: unknown = f.value;
    for (const k of path) {
      if (v === null || typeof v !== "object" || Array.isArray(v)) return undefined;
      v = (v as Record<string, unknown>)[k];
    }
    return v === undefined || v === null ? undefined : { value: v, at: `${f.at}: ${block}.${path.join(".")}` };
  }

  /** A field of the file by its own name (a block or list with no flag of its own). */
  field(name: string): FileField | undefined {
    return this.file?.get(name);
  }

  /** The file's field standing for the flag, when it is set there and the flag was not given. */
  fromFile(flag: string): FileField | undefined {
    const field = this.fieldOfFlag.get(flag);
    return field && !this.given.has(flag) ? this.file?.get(field) : undefined;
  }

  /** The flag's text: given, else its default (from the caller's flags or the row's). */
  text(flag: string): string | undefined {
    const v = this.flags[flag];
    if (typeof v === "string") return v;
    // A boolean flag (--rotate-certificates, --cgroups-per-qos=false, --no-cgroups-per-qos), as pflag's.
    if (typeof v === "boolean") return String(v);
    return this.defaults.get(flag);
  }

  /**
   * The setting: the flag given, else the file's field, else the flag's default. The file's field is
   * checked even when the flag overrides it (a mistake in the file is one, whatever wins).
   */
  get<T>(flag: string, parseFlag: (text: string) => T, parseFile: (v: unknown) => T): T | undefined {
    const field = this.fieldOfFlag.get(flag);
    const f = field ? this.file?.get(field) : undefined;
    if (f) {
      try {
        const v = parseFile(f.value);
        if (!this.given.has(flag)) return v;
      } catch (e) {
        if (!(e instanceof Error)) throw e;
        this.errors.push(`${f.at}: ${f.name}: ${e.message}`);
        if (!this.given.has(flag)) return undefined;
      }
    }
    try {
      const text = this.text(flag);
      return text === undefined ? undefined : parseFlag(text);
    } catch (e) {
      if (!(e instanceof Error)) throw e;
      this.errors.push(`--${flag} ${JSON.stringify(this.text(flag))}: ${e.message}`);
      return undefined;
    }
  }

  /** A string setting (a path, a name): empty means unset. */
  string(flag: string, check: (s: string) => string = (s) => s): string | undefined {
    const v = this.get(
      flag,
      (t) => (t === "" ? "" : check(t)),
      (v) => check(fileString(v)),
    );
    return v === "" ? undefined : v;
  }

  warn(message: string): void {
    this.warnings.push(message);
  }

  fail(message: string): void {
    this.errors.push(message);
  }
}

/** The rows' defaults by flag, as the command line fills them in. */
export function defaultsOf(rows: readonly Setting[]): Readonly<Record<string, string>> {
  return Object.fromEntries(rows.flatMap((r) => (r.flag && r.default !== undefined ? [[r.flag, r.default]] : [])));
}

/** A row's default, which it must have (a misspelt flag is a programming error, found at load). */
export function defaultOf(rows: readonly Setting[], flag: string): string {
  const d = rows.find((r) => r.flag === flag)?.default;
  if (d === undefined) throw new Error(`setting --${flag} has no default`);
  return d;
}

/** A flag of the command's table, in citty's shape. */
export type FlagDef =
  | { type: "string"; valueHint?: string; default?: string; description: string }
  | { type: "boolean"; default?: boolean; description: string }
  | { type: "enum"; options: string[]; valueHint?: string; default?: string; description: string };

/** A row's flag in citty's shape. */
export function flagDef(r: Setting): FlagDef {
  const description = r.doc;
  const hint = r.valueHint ? { valueHint: r.valueHint } : {};
  if (r.kind === "boolean") return { type: "boolean", ...(r.default !== undefined ? { default: r.default === "true" } : {}), description };
  const dflt = r.default !== undefined ? { default: r.default } : {};
  if (r.kind === "enum") return { type: "enum", options: [...(r.options ?? [])], ...hint, ...dflt, description };
  return { type: "string", ...hint, ...dflt, description };
}

/** The command's flag table, in the rows' order. */
export function flagTable(rows: readonly Setting[]): Record<string, FlagDef> {
  return Object.fromEntries(rows.flatMap((r) => (r.flag ? [[r.flag, flagDef(r)]] : [])));
}

/** The file fields the rows read (top-level names), each with its type; a block's type is built from its rows' dotted fields. */
export function fieldTypes(rows: readonly Setting[]): Record<string, FieldType> {
  type Tree = { [k: string]: Tree | FieldType };
  const tree: Tree = {};
  for (const r of rows) {
    if (!r.field) continue;
    if (!r.fieldType) throw new Error(`setting ${r.field}: a field needs its type`);
    const path = r.field.split(".");
    let node = tree;
    for (const k of path.slice(0, -1)) node = (node[k] ??= {}) as Tree;
    node[path[path.length - 1]!] = r.fieldType;
  }
  const build = (t: Tree | FieldType): FieldType =>
    "kind" in t && typeof t.kind === "string" ? (t as FieldType) : struct(Object.fromEntries(Object.entries(t as Tree).map(([k, v]) => [k, build(v)])));
  return Object.fromEntries(Object.entries(tree).map(([k, v]) => [k, build(v)]));
}

/** Sets a dotted field in `out`, making the blocks on the way (a block shows even when empty, as Go prints a struct). */
export function setField(out: Record<string, unknown>, field: string, value: unknown): void {
  const path = field.split(".");
  let node = out;
  for (const k of path.slice(0, -1)) node = (node[k] ??= {}) as Record<string, unknown>;
  if (value !== undefined) node[path[path.length - 1]!] = value;
}

/** The /configz fields of a subsystem's rows, from its resolved options. */
export function showFields<P>(out: Record<string, unknown>, rows: ReadonlyArray<Setting<P>>, resolved: P): void {
  for (const r of rows) if (r.field && r.show) setField(out, r.field, r.show(resolved));
}

export { Invalid };
