// The examples of README.md and docs/**/*.md, as data a test can check: every fenced code block, the
// shell commands in it (`$ ` lines of a console block, every line of a sh block), and in each command
// the nodeagent and make invocations. checkNodeagent parses an invocation against the real command
// tree with the command layer's own strict parser, so an example with a flag the command does not
// take (or no longer takes, or spells the deprecated way) is a problem with its file and line.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { ArgsDef, CommandDef } from "citty";
import { parseCommandLine, wantsHelp } from "../../cmd/flags";
import { argsOf, commandOf, subCommandsOf, type Command } from "../../cmd/help";
import { errorMessage } from "../../src/util/errors";

export interface CodeBlock {
  file: string;
  /** The line of the opening fence, 1-based. */
  line: number;
  /** The info string's words: language first (`console`), then markers (`run`). */
  info: string[];
  lines: string[];
}

export interface Example {
  file: string;
  line: number;
  /** The command as written, continuation lines joined. */
  text: string;
  /** The lines a console block shows after it, up to the next command. */
  output: string[];
  block: CodeBlock;
}

/** README.md and every .md under docs/, relative to `repo`. */
export function docFiles(repo: string): string[] {
  const out = ["README.md"];
  const walk = (dir: string) => {
    for (const e of readdirSync(join(repo, dir), { withFileTypes: true })) {
      const path = join(dir, e.name);
      if (e.isDirectory()) walk(path);
      else if (e.name.endsWith(".md")) out.push(path);
    }
  };
  walk("docs");
  return out;
}

/** The fenced code blocks of a markdown text. */
export function codeBlocks(file: string, text: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  let open: CodeBlock | undefined;
  text.split("\n").forEach((raw, i) => {
    const fence = /^```(.*)$/.exec(raw);
    if (fence && !open) open = { file, line: i + 1, info: fence[1]!.trim().split(/\s+/).filter(Boolean), lines: [] };
    else if (raw.startsWith("```") && open) {
      blocks.push(open);
      open = undefined;
    } else open?.lines.push(raw);
  });
  return blocks;
}

const SHELL_LANGUAGES = new Set(["", "sh", "shell", "bash", "console"]);

/** The commands of a block: `$ ` lines of a console block, else every line that is not a comment. */
export function examples(block: CodeBlock): Example[] {
  const lang = block.info[0] ?? "";
  if (!SHELL_LANGUAGES.has(lang)) return [];
  const prompt = lang === "console" || block.lines.some((l) => l.startsWith("$ "));
  const out: Example[] = [];
  for (let i = 0; i < block.lines.length; i++) {
    let l = block.lines[i]!;
    if (prompt ? !l.startsWith("$ ") : l.trim() === "" || l.trim().startsWith("#")) continue;
    const line = block.line + 1 + i;
    if (prompt) l = l.slice(2);
    while (l.endsWith("\\") && i + 1 < block.lines.length) l = l.slice(0, -1) + " " + block.lines[++i]!.trim();
    const output: string[] = [];
    if (prompt) while (i + 1 < block.lines.length && !block.lines[i + 1]!.startsWith("$ ")) output.push(block.lines[++i]!);
    out.push({ file: block.file, line, text: l, output, block });
  }
  return out;
}

/**
 * The simple commands of a command line, as words: split at | ; && || and cut at a comment, with
 * quotes removed and a $(…) or `…` substitution kept as part of its word.
 */
export function simpleCommands(text: string): string[][] {
  const commands: string[][] = [[]];
  let word: string | undefined;
  const end = () => {
    if (word !== undefined) commands[commands.length - 1]!.push(word);
    word = undefined;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "'" || c === '"') {
      const close = text.indexOf(c, i + 1);
      const stop = close < 0 ? text.length : close;
      word = (word ?? "") + text.slice(i + 1, stop);
      i = stop;
    } else if (c === "$" && text[i + 1] === "(") {
      let depth = 0;
      let j = i + 1;
      for (; j < text.length; j++) {
        if (text[j] === "(") depth++;
        else if (text[j] === ")" && --depth === 0) break;
      }
      word = (word ?? "") + text.slice(i, j + 1);
      i = j;
    } else if (c === "#" && word === undefined) {
      break;
    } else if (c === " " || c === "\t") {
      end();
    } else if (c === "|" || c === ";" || (c === "&" && text[i + 1] === "&")) {
      end();
      if (text[i + 1] === c) i++;
      commands.push([]);
    } else if (c === ">" || (c === "<" && word === undefined)) {
      // A redirection: its target is not an argument.
      end();
      while (text[i + 1] === ">" || text[i + 1] === "&") i++;
      while (text[i + 1] === " ") i++;
      let j = i + 1;
      while (j < text.length && !" \t|;".includes(text[j]!)) j++;
      i = j - 1;
    } else {
      word = (word ?? "") + c;
    }
  }
  end();
  return commands
    .map((words) => {
      let k = 0;
      while (k < words.length && /^[A-Z_][A-Z0-9_]*=/.test(words[k]!)) k++; // FOO=bar cmd …
      return words.slice(k);
    })
    .filter((words) => words.length > 0);
}

/** Whether the words call nodeagent (the installed name or the built binary). */
export const isNodeagent = (words: readonly string[]): boolean => words[0] === "nodeagent" || words[0] === "dist/nodeagent";

/** What is wrong with a nodeagent invocation against the command tree `root`, or undefined. */
export async function checkNodeagent(root: Command, words: readonly string[]): Promise<string | undefined> {
  let cmd: CommandDef<ArgsDef> = await commandOf(root);
  const path = ["nodeagent"];
  let rest = words.slice(1);
  if (rest.length === 1 && ["--version", "-v", "--help", "-h"].includes(rest[0]!)) return undefined;
  for (let subs = await subCommandsOf(cmd); subs; subs = await subCommandsOf(cmd)) {
    const word = rest[0];
    if (word === "--help" || word === "-h") return undefined;
    if (word === undefined || !(word in subs)) return `${path.join(" ")}: no command ${JSON.stringify(word ?? "")} (commands: ${Object.keys(subs).join(", ")})`;
    cmd = await commandOf(subs[word]!);
    path.push(word);
    rest = rest.slice(1);
  }
  if (wantsHelp(rest)) return undefined;
  try {
    const parsed = parseCommandLine(await argsOf(cmd), rest, path.join(" "));
    if (parsed.warnings.length > 0) return parsed.warnings.join("; ");
  } catch (e) {
    return errorMessage(e);
  }
  return undefined;
}

/** The targets the Makefile defines. */
export function makeTargets(repo: string): Set<string> {
  const targets = new Set<string>();
  for (const l of readFileSync(join(repo, "Makefile"), "utf8").split("\n")) {
    const m = /^([A-Za-z0-9_.\-/ ]+):(?!=)/.exec(l);
    if (m) for (const t of m[1]!.trim().split(/\s+/)) targets.add(t);
  }
  return targets;
}

/** What is wrong with a make invocation (a target the Makefile lacks), or undefined. */
export function checkMake(targets: ReadonlySet<string>, words: readonly string[]): string | undefined {
  const missing = words.slice(1).filter((w) => !w.startsWith("-") && !w.includes("=") && !targets.has(w));
  return missing.length > 0 ? `make: no target ${missing.join(", ")} in the Makefile` : undefined;
}

/** `file:line` of an example, relative to the repository. */
export const where = (repo: string, e: { file: string; line: number }): string => `${relative(repo, join(repo, e.file))}:${e.line}`;
