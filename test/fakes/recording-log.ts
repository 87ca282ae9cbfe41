// A Logger that keeps what was said at info and warn level (each line prefixed with its level), and
// prints nothing.
import { createLogger, type Logger } from "../../src/util/log";

export function linesLog(): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  const quiet = createLogger("text", -999);
  const keep = (level: string) => (m: unknown) => void lines.push(`${level} ${String(m)}`);
  return { log: { ...quiet, info: keep("info"), warn: keep("warn") } as Logger, lines };
}
