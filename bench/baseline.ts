// The "before" binary a bench compares this build with. It comes from the bench's command line
// (`bun bench/X.ts --baseline PATH`, `make bench-X BASELINE=PATH`), never from a folder outside the
// repository: a bench run on another machine must not pick up, or silently miss, someone's old build.
// Without --baseline the bench measures this build alone and its output says so on its first lines.
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";

export interface Baseline {
  /** The baseline binary's absolute path, or undefined when none was given. */
  path: string | undefined;
  /** One line for the bench's output: which binary is the baseline, or that there is none. */
  note: string;
}

/**
 * Reads `--baseline PATH` (or `--baseline=PATH`) from `argv` (the words after the script). A path
 * that is not an executable file is an error: a mistyped baseline must not turn into a run without one.
 */
export function baselineFromArgs(argv: readonly string[] = process.argv.slice(2)): Baseline {
  let given: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === "--baseline") {
      given = argv[i + 1];
      if (given === undefined || given.startsWith("--")) throw new Error("--baseline needs the path of the binary to compare with");
      i++;
    } else if (word.startsWith("--baseline=")) {
      given = word.slice("--baseline=".length);
    }
  }
  if (given === undefined || given === "") {
    return { path: undefined, note: "baseline: none given (--baseline PATH, or make … BASELINE=PATH): this build is measured alone, no before rows" };
  }
  const path = resolve(given);
  if (!existsSync(path) || !statSync(path).isFile()) throw new Error(`--baseline ${given}: no such file`);
  return { path, note: `baseline: ${path}` };
}
