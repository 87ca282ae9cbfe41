// A Logger that keeps what was said at info and warn level (or at the levels asked for), each line
// prefixed with its level, the fields after the message as the text format writes them; it prints nothing.
import { createLogger, textFields, type LogFields, type Logger, type LogLevelName } from "../../src/util/log";

export function linesLog(levels: readonly LogLevelName[] = ["info", "warn"]): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  const log = createLogger("text", -999);
  const keep = (level: string) => (m: string, fields?: LogFields) => void lines.push(`${level} ${m}${textFields(fields)}`);
  for (const level of levels) log[level] = keep(level);
  return { log, lines };
}

/** Every level, error to trace. */
export const ALL_LEVELS: readonly LogLevelName[] = ["error", "warn", "info", "debug", "trace"];
