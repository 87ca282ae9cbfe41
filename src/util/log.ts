// Structured logging: every line is a constant message plus key/value fields (pod, uid, container,
// path, err, …), so a log shipper can filter on `pod` instead of parsing sentences. Two renderings:
//   text: 2026-01-01T00:00:00.000Z info pod pushed pod=ns/name remote="10.0.0.1 (push)"
//         (klog's structured-text style: values quoted only when they would not read back as one word)
//   json: {"time":"…","level":"info","msg":"pod pushed","pod":"ns/name","remote":"…"} — one object a line,
//         the fields as top-level keys, for journald and log shippers.
// Logs go to stderr; stdout is for command output.
// Our own ~100 lines instead of consola: the agent only ever needed five levels and two line formats,
// and consola's formatter (util.formatWithOptions, stack parsing) is weight in the idle agent's RSS; an
// earlier step already dropped consola's fancy reporter for 5.4 MiB (57.5 → 52.1 MiB at 0 pods).
import { errorMessage } from "./errors";

export type LogFormat = "text" | "json";

/** The key/values of one line. `err` is rendered as the error's message; undefined values are left out. */
export type LogFields = Readonly<Record<string, unknown>>;

/** The severities, as numbers: a line is written when its level is at or below the logger's level. */
export const LOG_LEVELS = { error: 0, warn: 1, info: 3, debug: 4, trace: 5 } as const;
export type LogLevelName = keyof typeof LOG_LEVELS;

/**
 * What every module logs through. Methods are own properties (closures), so a test may spread a logger
 * and replace one method: `{ ...createLogger("text", -999), warn: keep }`. `level` may be changed later.
 */
export interface Logger {
  level: number;
  error(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  debug(msg: string, fields?: LogFields): void;
  trace(msg: string, fields?: LogFields): void;
}

/** One line before rendering. */
export interface LogRecord {
  time: Date;
  level: LogLevelName;
  msg: string;
  fields?: LogFields;
}

/**
 * A logger writing `format` lines at `level` and below (3, info, by default; -999 is silent) to stderr,
 * or to `write` (tests). Filtered lines cost one comparison: nothing is rendered.
 */
export function createLogger(
  format: LogFormat = "text",
  level: number = LOG_LEVELS.info,
  write: (line: string) => void = (l) => void process.stderr.write(l),
): Logger {
  const render = format === "json" ? renderJson : renderText;
  const at = (name: LogLevelName) => (msg: string, fields?: LogFields) => {
    if (LOG_LEVELS[name] > logger.level) return;
    write(render({ time: new Date(), level: name, msg, fields }) + "\n");
  };
  const logger: Logger = { level, error: at("error"), warn: at("warn"), info: at("info"), debug: at("debug"), trace: at("trace") };
  return logger;
}

/** A logger that adds `fields` (e.g. `{ component: "pleg" }`) to every line it passes on to `log`. */
export function withFields(log: Logger, fields: LogFields): Logger {
  const at = (name: LogLevelName) => (msg: string, more?: LogFields) => log[name](msg, more ? { ...fields, ...more } : fields);
  return {
    get level() {
      return log.level;
    },
    set level(v: number) {
      log.level = v;
    },
    error: at("error"),
    warn: at("warn"),
    info: at("info"),
    debug: at("debug"),
    trace: at("trace"),
  };
}

/** A field's value as a string: errors by their message (the `err` key always), the rest as JSON would show it. */
function fieldText(key: string, v: unknown): string {
  if (key === "err" || v instanceof Error) return errorMessage(v);
  if (typeof v === "string") return v;
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? String(v) : v.toISOString();
  if (v === null || typeof v !== "object") return String(v);
  return JSON.stringify(v, jsonValue);
}

// A value is written bare when it reads back as one token: no spaces, quotes, `=`, backslashes or
// control characters, and not empty. Anything else is a JSON string literal (escapes included).
const BARE = /^[^\s"=\\\p{Cc}]+$/u;
const quoted = (s: string): string => (BARE.test(s) ? s : JSON.stringify(s));
// An array or object is written as its JSON (self-delimiting: `pods=["ns/a","ns/b"]`) unless that
// holds a space, when it is quoted like any other string.
const SPACE = /[\s\p{Cc}]/u;
const isStructured = (key: string, v: unknown): boolean =>
  key !== "err" && typeof v === "object" && v !== null && !(v instanceof Error) && !(v instanceof Date);

/** `<time> <level> <msg> key=value key2="quoted value"`; the message's line breaks are escaped, so one record is one line. */
export function renderText(r: LogRecord): string {
  return `${r.time.toISOString()} ${r.level} ${r.msg.replace(/\r?\n/g, "\\n")}${textFields(r.fields)}`;
}

/** The ` key=value key2="quoted value"` tail of a text line (empty without fields); tests that record lines use it too. */
export function textFields(fields: LogFields | undefined): string {
  let out = "";
  if (fields) {
    for (const k in fields) {
      const v = fields[k];
      if (v === undefined) continue;
      const text = fieldText(k, v);
      out += ` ${k}=${isStructured(k, v) && !SPACE.test(text) ? text : quoted(text)}`;
    }
  }
  return out;
}

const RESERVED = new Set(["time", "level", "msg"]);

/** One JSON object: time, level, msg, then the fields as top-level keys (a field named like those three gets a leading `_`). */
export function renderJson(r: LogRecord): string {
  const line: Record<string, unknown> = { time: r.time.toISOString(), level: r.level, msg: r.msg };
  if (r.fields) {
    for (const k in r.fields) {
      const v = r.fields[k];
      if (v !== undefined) line[RESERVED.has(k) ? `_${k}` : k] = k === "err" ? errorMessage(v) : v;
    }
  }
  return JSON.stringify(line, jsonValue);
}

// Errors nested anywhere in a field become their message (JSON.stringify would write `{}`); bigints
// become strings (it would throw). Dates already serialise as ISO strings.
const jsonValue = (_k: string, x: unknown): unknown => (x instanceof Error ? x.message : typeof x === "bigint" ? String(x) : x);
