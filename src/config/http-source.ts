// The manifest URL (--manifest-url, --manifest-url-header): the kubelet's http source
// (pkg/kubelet/config/http.go) polls a URL for a Pod or a PodList. Past the kubelet:
//   - A URL that is unreachable, answers an error status, serves an empty body, a body over the size
//     limit or one that does not load keeps the pods it served last, and the reason is reported (in
//     the snapshot's errors, once in the log, and by problems()).
//   - An empty body (0 bytes, or only whitespace) is such an error. The kubelet takes a zero-length
//     body as an empty set (http.go: "zero-length data received") and kills every pod the URL gave; a
//     server restarting, or a proxy answering 200 with nothing, would take every pod of the node down.
//     To remove the URL's pods, serve an empty PodList ({"kind":"PodList","apiVersion":"v1","items":[]}).
//   - The body is streamed with a cap of maxConfigLength (10 MB, as the kubelet's ReadAtMost): a
//     Content-Length over it is refused before anything is read, a body that runs past it is cut off
//     there, and nothing of a rejected body is kept (only the hash of the last body is remembered,
//     never the bytes). A body with more than MAX_PODS_PER_SOURCE pods is an error too.
//   - The last good set is kept across restarts (SourceState, <stateDir>/http.json): a URL that does
//     not give a good answer when the agent starts serves the pods it gave last (same UIDs, so their
//     containers are adopted). Serving that last good set counts as seen (complete), since it holds
//     every pod this URL ever started. Without a state for this URL (a new node, a new URL, a state
//     file that does not read back) the source is not complete until the first good answer, as in
//     the kubelet: nothing that runs is removed as an orphan meanwhile.
import { createHash } from "node:crypto";
import type { Pod } from "kubernetes-types/core/v1";
import type { LoadResult, ManifestError, PodLoader } from "../manifest";
import { type Clock, errorMessage, type Logger, Mutex, readBodyCapped, type Timer } from "../util";
import { documentError } from "./file-records";
import type { SourceReport } from "./pod-config";
import type { PodSource } from "./types";
import { SnapshotEmitter } from "./snapshot-emitter";
import { MAX_MANIFEST_BYTES, MAX_PODS_PER_SOURCE, tooManyPodsMessage } from "./source-limits";
import { SourceState } from "./source-state";

export interface HttpSourceOptions {
  url: string;
  /** --manifest-url-header: every value of every name is sent. */
  headers?: Record<string, string[]>;
  nodeName: string;
  loader: PodLoader;
  clock: Clock;
  log: Logger;
  /** The kubelet's httpCheckFrequency, 20 s, counted from the end of the previous request. */
  checkFrequencyMs?: number;
  /** The kubelet's http.Client timeout for this URL, 10 s. */
  timeoutMs?: number;
  /** The most bytes of a body that are read; the kubelet's maxConfigLength, 10 MB. */
  maxBodyBytes?: number;
  /** For tests that need to see requests; the global fetch otherwise. */
  fetch?: (input: string, init: RequestInit) => Promise<Response>;
  /**
   * Where the last good set is kept across restarts (the agent passes <root-dir>/sources; the file is
   * http.json in it). Without it, in memory only: a restart starts from nothing, as the kubelet.
   */
  stateDir?: string;
}

export class HttpSource implements PodSource {
  readonly name = "http" as const;
  private readonly url: string;
  private readonly headers: Headers;
  private readonly nodeName: string;
  private readonly loader: PodLoader;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly emitter: SnapshotEmitter;
  private readonly checkFrequencyMs: number;
  private readonly timeoutMs: number;
  private readonly maxBodyBytes: number;
  private readonly fetchFn: (input: string, init: RequestInit) => Promise<Response>;
  private readonly mutex = new Mutex();
  private readonly state: SourceState;

  /** sha256 of the last body read whole: the same bytes again are not decoded again (as the kubelet). */
  private lastBodyHash: string | undefined;
  /** sha256 of the last body that loaded, and its pods: what the source serves. */
  private goodHash: string | undefined;
  private pods: Pod[] = [];
  /** Why the last body did not load, if it did not. */
  private bodyErrors: ManifestError[] = [];
  /** Why the last request gave no usable body, if it did not. */
  private requestError: ManifestError | undefined;
  /** A complete set was served: a good body, or the last good set restored from the state. */
  private seen = false;
  private stateProblem: string | undefined;
  private saveProblem: string | undefined;
  /** When the current run of failed requests began. */
  private failingSince: number | undefined;

  private started = false;
  private stopped = false;
  private timer: Timer | undefined;
  private polling = false;

  /** Counters for tests and /metrics. */
  readonly stats = { requests: 0, failures: 0, loads: 0 };

  constructor(opts: HttpSourceOptions) {
    this.url = opts.url;
    this.headers = new Headers();
    for (const [name, values] of Object.entries(opts.headers ?? {})) for (const v of values) this.headers.append(name, v);
    this.nodeName = opts.nodeName;
    this.loader = opts.loader;
    this.clock = opts.clock;
    this.log = opts.log;
    this.emitter = new SnapshotEmitter(opts.log, `manifest URL ${opts.url} reads cleanly again`);
    this.checkFrequencyMs = opts.checkFrequencyMs ?? 20_000;
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.maxBodyBytes = opts.maxBodyBytes ?? MAX_MANIFEST_BYTES;
    this.fetchFn = opts.fetch ?? ((input, init) => fetch(input, init));
    this.state = new SourceState({ dir: opts.stateDir, source: "http", location: opts.url });
    const restored = this.state.restore();
    if (restored.status === "unreadable") {
      this.stateProblem = restored.problem;
      this.log.warn("manifest URL: the last good state is unusable; the URL's pods count only from its first good answer", {
        url: this.url,
        problem: restored.problem,
      });
    }
    if (restored.status === "none" && restored.note) this.log.info(restored.note);
    const good = restored.entries.get(this.url);
    if (good) {
      this.goodHash = good.hash;
      this.lastBodyHash = good.hash;
      this.pods = good.pods;
      this.seen = true;
      this.log.info("manifest URL: last good set restored", { url: this.url, pods: good.pods.length, state: this.state.file });
    }
  }

  /** True while a background poll runs (tests wait for it to finish). */
  get busy(): boolean {
    return this.polling;
  }

  /**
   * What is wrong with the source as a whole, one line each, for /healthz?verbose: the URL failing
   * (unreachable, error status, empty or oversized body) while its last good pods are kept, and the
   * state file unreadable or unwritable. A body that does not load is in the snapshot's errors.
   */
  problems(): string[] {
    const out: string[] = [];
    if (this.requestError) {
      const since = this.failingSince === undefined ? "" : ` since ${new Date(this.failingSince).toISOString()}`;
      out.push(`${this.requestError.message}${since}; keeping the ${this.pods.length} pod(s) it served last`);
    }
    if (this.stateProblem) out.push(this.stateProblem);
    if (this.saveProblem) out.push(this.saveProblem);
    return out;
  }

  /** Polls now and then every checkFrequency; `onSnapshot` gets a snapshot when pods or errors changed. */
  start(onSnapshot: (s: SourceReport) => void): void {
    if (this.started) throw new Error("HttpSource already started");
    this.started = true;
    this.emitter.listen(onSnapshot);
    this.log.info("watching manifest URL", { url: this.url });
    void this.poll();
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
  }

  /** One request now; returns the whole set (the last good pods and the current errors). */
  scan(): Promise<SourceReport> {
    return this.mutex.run(async () => {
      await this.request();
      return this.snapshot();
    });
  }

  private snapshot(): SourceReport {
    const errors = [...(this.requestError ? [this.requestError] : []), ...this.bodyErrors];
    return { source: "http", pods: [...this.pods], errors, complete: this.seen };
  }

  private async request(): Promise<void> {
    this.stats.requests++;
    const ac = new AbortController();
    const timeout = this.clock.setTimer(this.timeoutMs, () => ac.abort(new Error(`no answer within ${this.timeoutMs / 1000}s`)));
    let body: Uint8Array;
    try {
      const res = await this.fetchFn(this.url, { method: "GET", headers: this.headers, signal: ac.signal });
      if (res.status !== 200) {
        // The body of an error answer is not read at all.
        await res.body?.cancel().catch(() => {});
        return this.failed(`GET ${this.url}: ${res.status} ${res.statusText}`.trimEnd());
      }
      const read = await readBodyCapped(res, this.maxBodyBytes, () => ac.abort(new Error("body over the size limit")));
      if (!read.ok) return this.failed(`GET ${this.url}: ${read.message}; keeping the last good pods`);
      body = read.bytes;
    } catch (e) {
      const why = ac.signal.aborted ? (ac.signal.reason as unknown) : e;
      return this.failed(`GET ${this.url}: ${errorMessage(why)}`);
    } finally {
      timeout.cancel();
    }
    if (isBlank(body)) {
      // Unlike the kubelet (an empty set: every pod of the URL killed), an error that keeps the pods.
      return this.failed(`GET ${this.url}: empty body (${body.length} bytes); keeping the last good pods (serve an empty PodList to remove them)`);
    }
    this.requestError = undefined;
    this.failingSince = undefined;
    const hash = createHash("sha256").update(body).digest("hex");
    if (hash === this.lastBodyHash) return;
    this.lastBodyHash = hash;
    this.stats.loads++;
    const text = new TextDecoder().decode(body);
    let result: LoadResult;
    try {
      // The loader decides between a Pod and a PodList, as the kubelet tries one then the other.
      result = this.loader(text, { source: "http", location: this.url, nodeName: this.nodeName });
    } catch (e) {
      result = { ok: false, errors: [documentError(this.url, `cannot load: ${errorMessage(e)}`)] };
    }
    if (result.ok && result.pods.length > MAX_PODS_PER_SOURCE) {
      result = { ok: false, errors: [documentError(this.url, `the body has ${tooManyPodsMessage(result.pods.length)}; keeping the last good pods`)] };
    }
    if (result.ok) {
      this.pods = result.pods;
      this.goodHash = hash;
      this.bodyErrors = [];
      this.seen = true;
      this.persist();
    } else {
      // Bad input loses nothing: the pods of the last good body stay.
      this.bodyErrors = result.errors;
    }
  }

  private failed(why: string): void {
    this.stats.failures++;
    this.failingSince ??= this.clock.now();
    this.requestError = documentError(this.url, why);
  }

  /** Keeps the good set for the next start; written before the set is handed on. */
  private persist(): void {
    if (this.goodHash === undefined) return;
    const problem = this.state.save(new Map([[this.url, { hash: this.goodHash, pods: this.pods }]]));
    if (problem !== undefined && problem !== this.saveProblem) this.log.warn(problem);
    this.saveProblem = problem;
    if (problem === undefined) this.stateProblem = undefined;
  }

  private async poll(): Promise<void> {
    if (this.stopped) return;
    this.polling = true;
    try {
      const snap = await this.scan();
      if (!this.stopped) this.emitter.emit(snap);
    } catch (e) {
      this.log.error("manifest URL: poll failed", { url: this.url, err: e });
    } finally {
      this.polling = false;
    }
    if (this.stopped) return;
    // wait.Until: the next poll is a period after this one finished.
    this.timer = this.clock.setTimer(this.checkFrequencyMs, () => void this.poll());
  }
}

/** Nothing but whitespace (spaces, tabs, line ends): no manifest at all. */
function isBlank(body: Uint8Array): boolean {
  for (const b of body) if (b !== 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d) return false;
  return true;
}
