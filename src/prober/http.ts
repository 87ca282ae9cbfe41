// The httpGet probe (k/k pkg/probe/http): a GET with the kubelet's headers, no proxy, no keep-alive,
// no compression, TLS without verification. 200–399 is success. Redirects are followed while they
// stay on the probe's hostname (a different port or scheme is fine), at most 9 times as Go's client
// with the kubelet's RedirectChecker allows; a redirect to another hostname is not followed and the
// 3xx itself is the answer, a success with a warning (ProbeWarning). At most 10 KiB of the body is
// read. node:http is used rather than fetch because fetch adds Accept-Encoding and honours
// HTTP_PROXY, and the kubelet's probes do neither. node:http and node:https are imported on the first
// request, not with this module: a single-file bundle hoists a static import of a built-in module to
// its top, and the agent would load them at start whether any pod has an httpGet probe or not.
import type * as Http from "node:http";
import type * as Https from "node:https";
import { type Clock, errorMessage } from "../util";
import { PROBE_USER_AGENT } from "./spec";
import { dialError, isDialError } from "./tcp";
import { withTimeout } from "./timeout";
import type { HandlerResult } from "./types";

/** maxRespBodyLength in pkg/probe/http. */
export const MAX_HTTP_BODY_BYTES = 10 * 1024;
/** Go's http.Client follows these; 300 and 304 are answers, not redirects. */
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** RedirectChecker: "stopped after 10 redirects" once 10 requests have been sent. */
const MAX_REQUESTS = 10;

/** Go's textproto.CanonicalMIMEHeaderKey for the usual header names: "x-custom-id" → "X-Custom-Id". */
function canonicalHeaderName(name: string): string {
  return name.toLowerCase().replace(/(^|-)([a-z])/g, (_m, dash: string, ch: string) => dash + ch.toUpperCase());
}

/**
 * The request headers as newProbeRequest builds them: the probe's headers (a name may repeat), the
 * kubelet's User-Agent unless the probe sets one, Accept: *\/* unless the probe sets one (an empty
 * Accept removes it), and a Host header taken as the request's host rather than sent as a header.
 */
export function probeRequestHeaders(given: [string, string][]): { headers: Record<string, string[]>; host: string | undefined } {
  const headers: Record<string, string[]> = {};
  for (const [name, value] of given) (headers[canonicalHeaderName(name)] ??= []).push(value);
  if (!headers["User-Agent"]) headers["User-Agent"] = [PROBE_USER_AGENT];
  if (!headers["Accept"]) headers["Accept"] = ["*/*"];
  else if (headers["Accept"][0] === "") delete headers["Accept"];
  const host = headers["Host"]?.[0] || undefined;
  delete headers["Host"];
  return { headers, host };
}

interface Answer {
  status: number;
  location: string | undefined;
  body: string;
}

/** node:http or node:https. */
type HttpClient = Pick<typeof Http, "request"> | Pick<typeof Https, "request">;

/** The client module for the URL's scheme, loaded on first use. */
async function clientFor(url: URL): Promise<HttpClient> {
  return url.protocol === "https:" ? await import("node:https") : await import("node:http");
}

/** One GET; resolves with the status, Location and at most MAX_HTTP_BODY_BYTES of the body. */
function get(client: HttpClient, url: URL, headers: Record<string, string[]>, host: string | undefined, signal: AbortSignal): Promise<Answer> {
  return new Promise<Answer>((resolve, reject) => {
    const req = client.request(url, {
      method: "GET",
      headers: { ...headers, Host: host ?? url.host },
      agent: false, // a fresh connection, closed after the answer (DisableKeepAlives)
      rejectUnauthorized: false, // InsecureSkipVerify, as the kubelet probes
    });
    const onAbort = () => req.destroy(signal.reason as Error);
    signal.addEventListener("abort", onAbort, { once: true });
    req.once("error", (err) => {
      signal.removeEventListener("abort", onAbort);
      reject(err);
    });
    req.once("response", (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        signal.removeEventListener("abort", onAbort);
        const location = res.headers.location;
        resolve({ status: res.statusCode ?? 0, location, body: Buffer.concat(chunks).subarray(0, MAX_HTTP_BODY_BYTES).toString("utf8") });
      };
      res.on("data", (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.byteLength;
        // Non-fatal truncation, as utilio.ReadAtMost: the answer is what was read so far.
        if (size >= MAX_HTTP_BODY_BYTES) {
          res.destroy();
          finish();
        }
      });
      res.once("end", finish);
      res.once("error", (err) => {
        signal.removeEventListener("abort", onAbort);
        reject(Object.assign(err, { duringBody: true }));
      });
    });
    req.end();
  });
}

/** The client's error as Go words it: a dial error with the address, or the error itself. */
function requestError(url: URL, err: unknown): string {
  if (!isDialError(err)) return errorMessage(err);
  const address = url.port ? url.host : `${url.host}:${url.protocol === "https:" ? 443 : 80}`;
  return dialError(address, err);
}

/**
 * `answered` is told the status code of the final answer, whatever it is: a lifecycle hook's GET
 * (src/agent/lifecycle-handlers.ts) succeeds on any answer, where a probe wants 200–399.
 */
export async function httpProbe(
  url: URL,
  given: [string, string][],
  timeoutMs: number,
  clock: Clock,
  signal?: AbortSignal,
  answered?: (status: number) => void,
): Promise<HandlerResult> {
  const { headers, host } = probeRequestHeaders(given);
  let current = url;
  // Loaded before the clock starts: the probe's timeout is not the agent's module loading.
  let client = await clientFor(url);
  return withTimeout(
    clock,
    timeoutMs,
    signal,
    async (abort): Promise<HandlerResult> => {
      let hostOverride = host;
      const reqHeaders = { ...headers };
      for (let sent = 1; ; sent++) {
        let answer: Answer;
        try {
          answer = await get(client, current, reqHeaders, hostOverride, abort);
        } catch (err) {
          // A body cut off mid-read is an error (the kubelet retries it, then ignores it); a failed
          // request is a failure whose output is the client's error.
          if ((err as { duringBody?: boolean }).duringBody) return { status: "unknown", output: "", error: err as Error };
          return { status: "failure", output: `Get ${JSON.stringify(current.href)}: ${requestError(current, err)}` };
        }
        if (REDIRECT_STATUSES.has(answer.status) && answer.location !== undefined) {
          let next: URL;
          try {
            next = new URL(answer.location, current);
          } catch {
            return { status: "failure", output: `Get ${JSON.stringify(current.href)}: failed to parse Location header ${JSON.stringify(answer.location)}` };
          }
          if (next.hostname === url.hostname) {
            // Go's client reports the Location as the server wrote it.
            if (sent >= MAX_REQUESTS) return { status: "failure", output: `Get ${JSON.stringify(answer.location)}: stopped after 10 redirects` };
            // Go keeps a custom Host only through a relative redirect, and sends the Referer.
            if (/^[a-z][a-z0-9+.-]*:/i.test(answer.location)) hostOverride = undefined;
            if (!(current.protocol === "https:" && next.protocol === "http:")) reqHeaders["Referer"] = [current.href];
            if (next.protocol !== current.protocol) client = await clientFor(next);
            current = next;
            continue;
          }
          // Not followed: the redirect is the answer.
        }
        answered?.(answer.status);
        if (answer.status >= 200 && answer.status < 400) {
          if (answer.status >= 300) return { status: "warning", output: `Probe terminated redirects, Response body: ${answer.body}` };
          return { status: "success", output: answer.body };
        }
        // The kubelet never puts the body in the failure message (k/k #99425).
        return { status: "failure", output: `HTTP probe failed with statuscode: ${answer.status}` };
      }
    },
    () => ({ status: "failure", output: `Get ${JSON.stringify(current.href)}: context deadline exceeded (Client.Timeout exceeded while awaiting headers)` }),
  );
}
