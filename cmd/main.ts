// The command layer every nodeagent command runs through. Commands are citty definitions
// (defineCommand: meta, args, subCommands, run); running them is ours, because citty's runner
// accepts unknown flags and stray words and drops a subcommand's return value, so `pleg watch --mode
// evented` on a runtime without events exited 0. Here:
//   - the words before the flags pick the command (`pleg watch`); an unknown one is a usage error;
//   - --help (-h) anywhere prints that command's help, exit 0; --version (-v) alone prints the version;
//   - the rest is parsed strictly (flags.ts) before the command runs;
//   - the command's run returns its exit status (a number; nothing means 0), and this is the only
//     place that maps an outcome to one: 0 ok, 1 failure, 2 usage. A ConfigError (src/util: bad
//     input, thrown before anything started) or UsageError is 2; any other error is 1. Errors are
//     printed as one "error: …" line, never a stack.
import type { ArgsDef, CommandDef, ParsedArgs } from "citty";
import { closest, ConfigError, errorMessage } from "../src/util";
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE, UsageError } from "./exit";
import { parseCommandLine, wantsHelp, type ParsedCommandLine } from "./flags";
import { argsOf, commandOf, metaOf, renderHelp, subCommandsOf, type Command } from "./help";

export { EXIT_FAILURE, EXIT_OK, EXIT_USAGE, UsageError } from "./exit";

/** What a command's run gets in `data`, beside citty's `args`: which flags were given, and every value. */
export interface Invocation {
  /** Long names of the flags given on the command line (not defaults). */
  given: ReadonlySet<string>;
  /** Every value given to a flag, in order (for repeatable flags). */
  all(flag: string): string[];
}

/** The Invocation of a run context (its citty `data`). */
export function invocation(ctx: { data?: unknown }): Invocation {
  return ctx.data as Invocation;
}

export interface CliOutput {
  out(text: string): void;
  err(text: string): void;
}

const processOutput: CliOutput = {
  out: (t) => void process.stdout.write(t),
  err: (t) => void process.stderr.write(t),
};

/**
 * Runs the command line `argv` (without the program name) against the command tree `root`, and
 * returns the exit status. Does not exit: main() does.
 */
export async function runCli(root: Command, argv: readonly string[], io: CliOutput = processOutput): Promise<number> {
  let cmd: CommandDef<ArgsDef> = await commandOf(root);
  const rootMeta = await metaOf(cmd);
  const path = [rootMeta.name ?? "nodeagent"];
  let rest = [...argv];
  try {
    if (rest.length === 1 && (rest[0] === "--version" || rest[0] === "-v") && rootMeta.version) {
      io.out(`${rootMeta.version}\n`);
      return EXIT_OK;
    }
    // The words before the first flag name the command: nodeagent pleg watch …
    for (let subs = await subCommandsOf(cmd); subs; subs = await subCommandsOf(cmd)) {
      const word = rest[0];
      if (word === undefined || word === "--help" || word === "-h") {
        if (word === undefined) {
          io.err(await renderHelp(cmd, path.join(" ")));
          return EXIT_USAGE;
        }
        io.out(await renderHelp(cmd, path.join(" ")));
        return EXIT_OK;
      }
      const names = Object.keys(subs);
      if (!(word in subs)) {
        const near = word.startsWith("-") ? undefined : closest(word, names);
        const what = word.startsWith("-") ? `unknown flag ${word}` : `unknown command ${JSON.stringify(word)}`;
        throw new UsageError(`${what} for ${path.join(" ")}${near ? `; did you mean ${near}?` : ""} (commands: ${names.join(", ")})`);
      }
      cmd = await commandOf(subs[word]!);
      path.push(word);
      rest = rest.slice(1);
    }
    if (wantsHelp(rest)) {
      io.out(await renderHelp(cmd, path.join(" ")));
      return EXIT_OK;
    }
    const parsed: ParsedCommandLine = parseCommandLine(await argsOf(cmd), rest, path.join(" "));
    for (const w of parsed.warnings) io.err(`warning: ${w}\n`);
    const data: Invocation = { given: parsed.given, all: (flag) => parsed.values.get(flag) ?? [] };
    if (!cmd.run) throw new UsageError(`${path.join(" ")} needs a command`);
    // The values are what citty would have parsed, checked: its ParsedArgs shape.
    const result: unknown = await cmd.run({ rawArgs: rest, args: parsed.args as ParsedArgs<ArgsDef>, cmd, data });
    return typeof result === "number" ? result : EXIT_OK;
  } catch (err) {
    const message = errorMessage(err);
    io.err(`error: ${message}\n`);
    if (err instanceof UsageError) io.err(`Run '${path.join(" ")} --help' for usage.\n`);
    return err instanceof ConfigError ? EXIT_USAGE : EXIT_FAILURE;
  }
}

/** Runs the command line of this process and exits with its status. */
export async function main(root: Command, argv = process.argv.slice(2)): Promise<never> {
  process.exit(await runCli(root, argv));
}
