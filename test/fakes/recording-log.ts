// A Logger that keeps what was said at info and warn level (each line prefixed with its level, the
// fields after the message as the text format writes them), and prints nothing.
import { createLogger, textFields, type LogFields, type Logger } from "../../src/util/log";

export function linesLog(): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  const quiet = createLogger("text", -999);
  const keep = (level: string) => (m: string, fields?: LogFields) => void lines.push(`${level} ${m}${textFields(fields)}`);
  return { log: { ...quiet, info: keep("info"), warn: keep("warn") }, lines };
}
