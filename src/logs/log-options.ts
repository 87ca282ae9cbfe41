// The query of GET /containerLogs as the kubelet reads it (k/k@1.24 pkg/kubelet/server/server.go
// getContainerLogs): decoded into a v1 PodLogOptions, validated (pkg/apis/core/validation
// ValidatePodLogOptions), then turned into the reader's LogOptions (kuberuntime/logs NewLogOptions).
//
// Decoding follows apimachinery's query conversions: a boolean is false only for "0" or "false" (any
// case) — "follow=", "follow=1" and "follow=yes" are all true; integers are base-10 int64; sinceTime
// is RFC 3339. The legacy `tail=N|all` is `tailLines` ("all" = not given). An undecodable query is
// 400 `{"message": "Unable to decode query."}` and an invalid one 422 `{"message": "Invalid request."}`,
// the kubelet's exact (odd, JSON-looking, text) bodies.
import { logTimeBefore, logTimeFromMs, parseLogTime, type LogTime } from "./log-line";

export const DECODE_ERROR = '{"message": "Unable to decode query."}';
export const INVALID_ERROR = '{"message": "Invalid request."}';

/**
 * v1 PodLogOptions (k8s.io/api core/v1 types.go), the fields the kubelet reads: kubernetes-types does
 * not carry it (it is a query type, not an object).
 */
export interface PodLogOptions {
  container?: string;
  follow?: boolean;
  previous?: boolean;
  sinceSeconds?: number;
  /** RFC 3339. */
  sinceTime?: string;
  timestamps?: boolean;
  tailLines?: number;
  limitBytes?: number;
}

/** Why a query was refused: the kubelet's status and body. */
export class LogQueryError extends Error {
  override name = "LogQueryError";
  constructor(
    readonly status: 400 | 422,
    message: string,
    readonly detail: string,
  ) {
    super(message);
  }
}

function bool(q: URLSearchParams, name: string): boolean | undefined {
  const v = q.getAll(name);
  if (v.length === 0) return undefined;
  return !(v[0] === "0" || v[0]!.toLowerCase() === "false");
}

function int64(q: URLSearchParams, name: string): number | undefined {
  const v = q.getAll(name);
  if (v.length === 0 || v[0] === "") return undefined;
  if (!/^[+-]?\d+$/.test(v[0]!)) throw new LogQueryError(400, DECODE_ERROR, `${name}=${v[0]}: not an integer`);
  const n = Number(v[0]);
  if (!Number.isSafeInteger(n)) throw new LogQueryError(400, DECODE_ERROR, `${name}=${v[0]}: out of range`);
  return n;
}

/** Decodes and validates the query; throws LogQueryError with the kubelet's answer. */
export function parsePodLogOptions(query: URLSearchParams): PodLogOptions {
  const q = new URLSearchParams(query);
  // Backwards compatibility for "tail", as the kubelet: it replaces tailLines; "all" means not given.
  const tail = q.get("tail");
  if (tail) {
    q.delete("tailLines");
    if (tail !== "all") q.set("tailLines", tail);
  }
  const o: PodLogOptions = {};
  const follow = bool(q, "follow"),
    previous = bool(q, "previous"),
    timestamps = bool(q, "timestamps");
  if (follow !== undefined) o.follow = follow;
  if (previous !== undefined) o.previous = previous;
  if (timestamps !== undefined) o.timestamps = timestamps;
  const tailLines = int64(q, "tailLines"),
    limitBytes = int64(q, "limitBytes"),
    sinceSeconds = int64(q, "sinceSeconds");
  if (tailLines !== undefined) o.tailLines = tailLines;
  if (limitBytes !== undefined) o.limitBytes = limitBytes;
  if (sinceSeconds !== undefined) o.sinceSeconds = sinceSeconds;
  const sinceTime = q.get("sinceTime");
  if (sinceTime) {
    if (!parseLogTime(sinceTime)) throw new LogQueryError(400, DECODE_ERROR, `sinceTime=${sinceTime}: not an RFC 3339 time`);
    o.sinceTime = sinceTime;
  }
  const container = q.get("container");
  if (container) o.container = container;
  // ValidatePodLogOptions.
  if (o.tailLines !== undefined && o.tailLines < 0) throw new LogQueryError(422, INVALID_ERROR, "tailLines: must be greater than or equal to 0");
  if (o.limitBytes !== undefined && o.limitBytes < 1) throw new LogQueryError(422, INVALID_ERROR, "limitBytes: must be greater than 0");
  if (o.sinceSeconds !== undefined && o.sinceTime !== undefined)
    throw new LogQueryError(422, INVALID_ERROR, "at most one of `sinceTime` or `sinceSeconds` may be specified");
  if (o.sinceSeconds !== undefined && o.sinceSeconds < 1) throw new LogQueryError(422, INVALID_ERROR, "sinceSeconds: must be greater than 0");
  return o;
}

/** What the reader does (the kubelet's LogOptions): -1 is "no limit". */
export interface LogOptions {
  tail: number;
  bytes: number;
  /** Lines written before this are skipped; undefined: none. */
  since?: LogTime;
  follow: boolean;
  timestamps: boolean;
}

/** NewLogOptions: since = now − sinceSeconds, or sinceTime when that is later. */
export function toLogOptions(o: PodLogOptions, nowMs: number): LogOptions {
  const opts: LogOptions = { tail: o.tailLines ?? -1, bytes: o.limitBytes ?? -1, follow: o.follow === true, timestamps: o.timestamps === true };
  if (o.sinceSeconds !== undefined) opts.since = logTimeFromMs(nowMs - o.sinceSeconds * 1000);
  const sinceTime = o.sinceTime ? parseLogTime(o.sinceTime) : undefined;
  if (sinceTime && (!opts.since || logTimeBefore(opts.since, sinceTime))) opts.since = sinceTime;
  return opts;
}
