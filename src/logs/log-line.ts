// One line of a container log file, as the runtime writes it and the kubelet reads it
// (k/k@1.24 pkg/kubelet/kuberuntime/logs/logs.go parseCRILog, parseDockerJSONLog):
//
//   CRI format     <RFC3339Nano time> <stdout|stderr> <tag> <content>\n
//                  2016-10-06T00:17:09.669794202Z stdout P log content 1
//                  tag F = full line, P = partial (the runtime split a long line; the rest follows,
//                  the next P/F of the same stream); tags may carry more after ':' (kept forward
//                  compatible, as the kubelet does: only the first one counts).
//   Docker JSON    {"log":"content\n","stream":"stdout","time":"2016-10-20T18:39:20.57606443Z"}
//
// Times keep nanoseconds and the writer's UTC offset: the kubelet parses them leniently
// (RFC3339NanoLenient: any number of fraction digits) and, with `timestamps`, prints them again in the
// fixed-width RFC3339NanoFixed form in the same offset. A Date would lose the nanoseconds.

/** A log time: whole seconds since the epoch, nanoseconds within the second, the writer's UTC offset. */
export interface LogTime {
  sec: number;
  nano: number;
  /** Minutes east of UTC the time was written in (0 for "Z"). */
  offsetMin: number;
}

export type LogStream = "stdout" | "stderr";

/** A parsed physical line. `content` excludes the line's newline; `partial` is the P tag. */
export interface LogLine {
  time: LogTime;
  stream: LogStream;
  partial: boolean;
  content: Uint8Array;
}

const TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/i;

/** Parses an RFC 3339 time with 0 to 9 fraction digits (Go's RFC3339NanoLenient); undefined if it is not one. */
export function parseLogTime(text: string): LogTime | undefined {
  const m = TIME.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  const month = Number(mo),
    day = Number(d),
    hour = Number(h),
    minute = Number(mi),
    second = Number(s);
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) return undefined;
  let offsetMin = 0;
  if (zone!.toUpperCase() !== "Z") {
    const sign = zone![0] === "-" ? -1 : 1;
    offsetMin = sign * (Number(zone!.slice(1, 3)) * 60 + Number(zone!.slice(4, 6)));
  }
  const local = Date.UTC(Number(y), month - 1, day, hour, minute, second) / 1000;
  return { sec: local - offsetMin * 60, nano: frac ? Number(frac.padEnd(9, "0")) : 0, offsetMin };
}

/** A LogTime from epoch milliseconds (the clock's now), in UTC. */
export function logTimeFromMs(ms: number): LogTime {
  const sec = Math.floor(ms / 1000);
  return { sec, nano: Math.round((ms - sec * 1000) * 1e6), offsetMin: 0 };
}

/** a < b, by instant (the offset does not matter). */
export function logTimeBefore(a: LogTime, b: LogTime): boolean {
  return a.sec < b.sec || (a.sec === b.sec && a.nano < b.nano);
}

const pad = (n: number, w = 2) => String(n).padStart(w, "0");

/**
 * The kubelet's RFC3339NanoFixed ("2006-01-02T15:04:05.000000000Z07:00"): nine fraction digits always,
 * in the offset the time was written in, "Z" for UTC.
 */
export function formatLogTime(t: LogTime): string {
  const d = new Date((t.sec + t.offsetMin * 60) * 1000);
  const date = `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  const time = `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(t.nano, 9)}`;
  if (t.offsetMin === 0) return `${date}T${time}Z`;
  const abs = Math.abs(t.offsetMin);
  return `${date}T${time}${t.offsetMin < 0 ? "-" : "+"}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

const SPACE = 0x20;
const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** Thrown for a line that is neither format; the reader skips the line and notes it. */
export class MalformedLineError extends Error {
  override name = "MalformedLineError";
}

const digit = (b: number | undefined) => b !== undefined && b >= 0x30 && b <= 0x39;

/**
 * The writers' own format, "2006-01-02T15:04:05.000000000Z" (30 bytes, UTC, nine digits), read from
 * the bytes without decoding; the seconds of the last such stamp are kept, as consecutive lines
 * mostly share them. Anything else (another offset, fewer digits) goes through parseLogTime.
 */
let lastSecondKey = -1;
let lastSecond = 0;
function parseFixedUtc(line: Uint8Array): LogTime | undefined {
  if (line[29] !== 0x5a /* Z */ || line[4] !== 0x2d || line[7] !== 0x2d || line[10] !== 0x54 || line[13] !== 0x3a || line[16] !== 0x3a || line[19] !== 0x2e)
    return undefined;
  let key = 0;
  for (const i of [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18]) {
    if (!digit(line[i])) return undefined;
    key = key * 10 + (line[i]! - 0x30);
  }
  let nano = 0;
  for (let i = 20; i < 29; i++) {
    if (!digit(line[i])) return undefined;
    nano = nano * 10 + (line[i]! - 0x30);
  }
  if (key !== lastSecondKey) {
    const t = parseLogTime(decoder.decode(line.subarray(0, 19)) + "Z");
    if (!t) return undefined;
    lastSecondKey = key;
    lastSecond = t.sec;
  }
  return { sec: lastSecond, nano, offsetMin: 0 };
}

const STDOUT = encoder.encode("stdout");
const STDERR = encoder.encode("stderr");
const isWord = (line: Uint8Array, from: number, word: Uint8Array) => {
  for (let i = 0; i < word.length; i++) if (line[from + i] !== word[i]) return false;
  return true;
};

/** Parses a CRI-format line (without its newline). Throws MalformedLineError saying what is wrong. */
export function parseCriLine(line: Uint8Array): LogLine {
  const a = line.indexOf(SPACE);
  if (a < 0) throw new MalformedLineError("timestamp is not found");
  const time = (a === 30 ? parseFixedUtc(line) : undefined) ?? parseLogTime(decoder.decode(line.subarray(0, a)));
  if (!time) throw new MalformedLineError(`unexpected timestamp format ${JSON.stringify(decoder.decode(line.subarray(0, Math.min(a, 40))))}`);
  const b = line.indexOf(SPACE, a + 1);
  if (b < 0) throw new MalformedLineError("stream type is not found");
  const stream: LogStream | undefined =
    b - a - 1 !== 6 ? undefined : isWord(line, a + 1, STDOUT) ? "stdout" : isWord(line, a + 1, STDERR) ? "stderr" : undefined;
  if (!stream) throw new MalformedLineError(`unexpected stream type ${JSON.stringify(decoder.decode(line.subarray(a + 1, Math.min(b, a + 21))))}`);
  // An empty line is written as "<time> stdout F" followed by a space and nothing, but a runtime that
  // trims the trailing space leaves the tag last: both are an empty full line.
  let c = line.indexOf(SPACE, b + 1);
  if (c < 0) c = line.length;
  if (c === b + 1) throw new MalformedLineError("log tag is not found");
  // Tags are ":"-separated; the first says whether the line is partial (P) or full (F).
  const partial = line[b + 1] === 0x50 /* P */ && (c === b + 2 || line[b + 2] === 0x3a) /* : */;
  return { time, stream, partial, content: line.subarray(Math.min(c + 1, line.length)) };
}

/** Parses a Docker JSON-file line; the content's trailing newline is dropped (the reader adds one back). */
export function parseDockerJsonLine(line: Uint8Array): LogLine {
  let v: unknown;
  try {
    v = JSON.parse(decoder.decode(line));
  } catch (err) {
    throw new MalformedLineError(`not a CRI log line, nor Docker JSON: ${(err as Error).message}`);
  }
  const o = v as { log?: unknown; stream?: unknown; time?: unknown } | null;
  if (!o || typeof o !== "object" || typeof o.log !== "string" || typeof o.time !== "string")
    throw new MalformedLineError("not a CRI log line, nor a Docker JSON log entry");
  const time = parseLogTime(o.time);
  if (!time) throw new MalformedLineError(`unexpected timestamp ${JSON.stringify(o.time.slice(0, 40))}`);
  if (o.stream !== "stdout" && o.stream !== "stderr") throw new MalformedLineError(`unexpected stream type ${JSON.stringify(String(o.stream).slice(0, 20))}`);
  // Docker writes the newline inside "log"; an entry without one is a partial line (its 16 KiB split).
  const full = o.log.endsWith("\n");
  return { time, stream: o.stream, partial: !full, content: encoder.encode(full ? o.log.slice(0, -1) : o.log) };
}

/** Either format: JSON when the line starts with "{", else CRI. */
export function parseLogLine(line: Uint8Array): LogLine {
  return line[0] === 0x7b ? parseDockerJsonLine(line) : parseCriLine(line);
}
