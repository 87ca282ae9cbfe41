// The exit statuses every nodeagent command uses, and the error for a command line that is wrong.
import { ConfigError } from "../src/util";

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/**
 * A mistake in how the command was called (an unknown flag, a stray argument, flags that exclude each
 * other): exit 2, and the error is followed by a pointer to the command's --help. Bad input found in a
 * file or a value (src/'s ConfigError) exits 2 too.
 */
export class UsageError extends ConfigError {
  override name = "UsageError";
}
