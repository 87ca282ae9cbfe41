// Shared command plumbing: the exit codes every command uses, and running a citty command tree with
// them (0 success, 1 failure, 2 usage or lookup error), printing errors without stack traces.
import { runCommand, showUsage, type CommandDef } from "citty";

/** A mistake in how the command was called: exit 2 with the usage. */
export class UsageError extends Error {}

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyCommand = CommandDef<any>;

async function resolveSub(cmd: AnyCommand, rawArgs: string[]): Promise<[AnyCommand, AnyCommand | undefined]> {
  let parent: AnyCommand | undefined;
  let current = cmd;
  const args = [...rawArgs];
  for (;;) {
    const subs = typeof current.subCommands === "function" ? await current.subCommands() : await current.subCommands;
    const name = args.find((a) => !a.startsWith("-"));
    if (!subs || !name || !(name in subs)) return [current, parent];
    const next = subs[name]!;
    parent = current;
    current = (typeof next === "function" ? await next() : await next) as AnyCommand;
    args.splice(args.indexOf(name), 1);
  }
}

function commandPath(rawArgs: string[], cmd: AnyCommand): string {
  const words = rawArgs.filter((a) => !a.startsWith("-"));
  const name = (typeof cmd.meta === "object" && cmd.meta && "name" in cmd.meta ? cmd.meta.name : undefined) ?? "";
  const idx = words.indexOf(name as string);
  return ["nodeagent", ...(idx >= 0 ? words.slice(0, idx + 1) : [])].join(" ");
}

export async function main(root: AnyCommand, rawArgs = process.argv.slice(2)): Promise<never> {
  try {
    if (rawArgs.includes("--help") || rawArgs.includes("-h")) {
      await showUsage(...(await resolveSub(root, rawArgs)));
      process.exit(EXIT_OK);
    }
    if (rawArgs.length === 1 && (rawArgs[0] === "--version" || rawArgs[0] === "-v")) {
      const meta = typeof root.meta === "function" ? await root.meta() : await root.meta;
      console.log(meta?.version);
      process.exit(EXIT_OK);
    }
    if (rawArgs.length === 0) {
      await showUsage(root);
      process.exit(EXIT_USAGE);
    }
    const { result } = await runCommand(root, { rawArgs });
    // citty hands back only the root command's result: a subcommand sets process.exitCode instead.
    process.exit(typeof result === "number" ? result : Number(process.exitCode ?? EXIT_OK));
  } catch (err) {
    const e = err as Error;
    if (e?.name === "CLIError" || err instanceof UsageError) {
      const [cmd] = await resolveSub(root, rawArgs);
      console.error(`error: ${e.message.replace(/\x1b\[[0-9;]*m/g, "")}\nRun '${commandPath(rawArgs, cmd)} --help' for usage.`);
      process.exit(EXIT_USAGE);
    }
    console.error(`error: ${e?.message ?? String(err)}`);
    process.exit(EXIT_FAILURE);
  }
}
