// --help for every command, rendered from the citty definitions: the command's description (its
// first line is its summary; the rest, examples and exit statuses included, is shown as written),
// the usage line, its subcommands one line each, and its flags in one column of names and one of
// descriptions. citty's own renderer pads every row to the longest cell, multi-line descriptions
// included, which made `nodeagent --help` 19 KB of rows 3,574 characters wide.
import type { ArgDef, ArgsDef, CommandDef, CommandMeta, Resolvable, SubCommandsDef } from "citty";

/** A command of the tree, as citty types its subcommands. */
export type Command = SubCommandsDef[string];

export async function resolve<T>(r: Resolvable<T> | undefined): Promise<T | undefined> {
  return typeof r === "function" ? await (r as () => T | Promise<T>)() : await r;
}

export async function commandOf(c: Command): Promise<CommandDef<ArgsDef>> {
  return (await resolve(c)) as CommandDef<ArgsDef>;
}

export async function metaOf(c: CommandDef<ArgsDef>): Promise<CommandMeta> {
  return (await resolve(c.meta)) ?? {};
}

export async function argsOf(c: CommandDef<ArgsDef>): Promise<ArgsDef> {
  return (await resolve(c.args)) ?? {};
}

export async function subCommandsOf(c: CommandDef<ArgsDef>): Promise<SubCommandsDef | undefined> {
  const subs = await resolve(c.subCommands);
  return subs && Object.keys(subs).length > 0 ? subs : undefined;
}

/** The first line of a description: what a parent's command list shows. */
export function summaryOf(description: string | undefined): string {
  return (description ?? "").split("\n")[0]!.trim();
}

/** The widest first column; longer flags put their description on the next line. */
const MAX_NAME_COLUMN = 36;

function table(rows: Array<[string, string]>): string[] {
  const width = Math.min(MAX_NAME_COLUMN, Math.max(...rows.map(([n]) => n.length)));
  return rows.flatMap(([name, text]) => {
    if (!text) return [`  ${name}`];
    return name.length > width ? [`  ${name}`, `  ${" ".repeat(width)}  ${text}`] : [`  ${name.padEnd(width)}  ${text}`];
  });
}

function flagRow(name: string, def: ArgDef): [string, string] {
  const aliases = "alias" in def && def.alias !== undefined ? (Array.isArray(def.alias) ? def.alias : [def.alias]) : [];
  const names = [...aliases.map((a) => (a.length === 1 ? `-${a}` : `--${a}`)), `--${name}`].join(", ");
  let value = "";
  if (def.type === "enum") value = ` ${(def.options ?? []).join("|")}`;
  else if (def.type === "string") value = ` ${def.valueHint ?? "string"}`;
  const fallback = def.default !== undefined && def.type !== "boolean" ? ` (default ${def.default === "" ? '""' : def.default})` : "";
  return [`${names}${value}`, `${def.description ?? ""}${fallback}`];
}

/** The help of `cmd`, called as `path` (e.g. "nodeagent pleg watch"). */
export async function renderHelp(cmd: CommandDef<ArgsDef>, path: string): Promise<string> {
  const meta = await metaOf(cmd);
  const args = await argsOf(cmd);
  const subs = await subCommandsOf(cmd);
  const flags = Object.entries(args).filter(([, d]) => d.type !== "positional");
  const operands = Object.entries(args).filter(([, d]) => d.type === "positional");
  const out: string[] = [];
  if (meta.description) out.push(meta.description.trimEnd(), "");
  const usage = [
    path,
    ...(subs ? ["<command>"] : []),
    ...(flags.length ? ["[flags]"] : []),
    ...operands.map(([n, d]) => (d.valueHint ?? n.toUpperCase()) + (d.required === false ? "…" : "")),
  ];
  out.push("Usage:", `  ${usage.join(" ")}`, "");
  if (subs) {
    const rows: Array<[string, string]> = [];
    for (const [name, sub] of Object.entries(subs)) {
      const m = await metaOf(await commandOf(sub));
      if (!m.hidden) rows.push([name, summaryOf(m.description)]);
    }
    out.push("Commands:", ...table(rows), "");
  }
  if (operands.length) out.push("Arguments:", ...table(operands.map(([n, d]) => [d.valueHint ?? n.toUpperCase(), d.description ?? ""])), "");
  const helpRows: Array<[string, string]> = [["-h, --help", "Show this help"]];
  if (meta.version) helpRows.push(["-v, --version", "Print the version"]);
  out.push("Flags:", ...table([...flags.map(([n, d]) => flagRow(n, d)), ...helpRows]), "");
  if (subs) out.push(`Run '${path} <command> --help' for a command's flags and examples.`);
  return out.join("\n").trimEnd() + "\n";
}
