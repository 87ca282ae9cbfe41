// The manifest URL (--manifest-url, --manifest-url-header): the kubelet's http source
// (pkg/kubelet/config/http.go) polls a URL for a Pod or a PodList. Past the kubelet: a URL that is
// unreachable, answers an error, or serves something that does not load keeps the pods it served
// last, and the reason is reported in the snapshot.
import type { Pod } from "kubernetes-types/core/v1";
import { type LoadResult, type ManifestError, type PodLoader } from "../manifest/types";
import type { Clock, Timer } from "../util/clock";
import type { Logger } from "../util/log";
import { Mutex } from "../util/queue";
import { documentError } from "./file-source";
import type { SourceReport } from "./pod-config";
import type { PodSource } from "./types";
import { SnapshotEmitter } from "./snapshot-emitter";

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
  /** For tests that need to see requests; the global fetch otherwise. */
  fetch?: (input: string, init: RequestInit) => Promise<Response>;
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
  private readonly fetchFn: (input: string, init: RequestInit) => Promise<Response>;
  private readonly mutex = new Mutex();

  /** The body last loaded; the same bytes again are not decoded again (as the kubelet). */
  private lastBody: Uint8Array | undefined;
  /** The pods of the last body that loaded. */
  private pods: Pod[] = [];
  /** Why the last body did not load, if it did not. */
  private bodyErrors: ManifestError[] = [];
  /** Why the last request gave no usable body, if it did not. */
  private requestError: ManifestError | undefined;
  private everComplete = false;

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
    this.fetchFn = opts.fetch ?? ((input, init) => fetch(input, init));
  }

  /** True while a background poll runs (tests wait for it to finish). */
  get busy(): boolean {
    return this.polling;
  }

  /** Polls now and then every checkFrequency; `onSnapshot` gets a snapshot when pods or errors changed. */
  start(onSnapshot: (s: SourceReport) => void): void {
    if (this.started) throw new Error("HttpSource already started");
    this.started = true;
    this.emitter.listen(onSnapshot);
    this.log.info(`watching manifest URL ${this.url}`);
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
    return { source: "http", pods: [...this.pods], errors, complete: this.everComplete };
  }

  private async request(): Promise<void> {
    this.stats.requests++;
    const ac = new AbortController();
    const timeout = this.clock.setTimer(this.timeoutMs, () => ac.abort(new Error(`no answer within ${this.timeoutMs / 1000}s`)));
    let status: number;
    let statusText: string;
    let body: Uint8Array;
    try {
      const res = await this.fetchFn(this.url, { method: "GET", headers: this.headers, signal: ac.signal });
      status = res.status;
      statusText = res.statusText;
      body = new Uint8Array(await res.arrayBuffer());
    } catch (e) {
      const why = ac.signal.aborted ? (ac.signal.reason as unknown) : e;
      return this.failed(`GET ${this.url}: ${message(why)}`);
    } finally {
      timeout.cancel();
    }
    if (status !== 200) return this.failed(`GET ${this.url}: ${status} ${statusText}`.trimEnd());
    if (body.length === 0) {
      // As the kubelet: an empty answer is an empty set (the source counts as seen) and an error.
      // Unlike the kubelet, the remembered body is forgotten, so serving the old body again brings
      // its pods back (the kubelet compares with the stale body and never re-adds them).
      this.lastBody = undefined;
      this.pods = [];
      this.bodyErrors = [];
      this.everComplete = true;
      return this.failed(`zero-length data received from ${this.url}`);
    }
    this.requestError = undefined;
    if (this.lastBody && sameBytes(this.lastBody, body)) return;
    this.lastBody = body;
    this.stats.loads++;
    const text = new TextDecoder().decode(body);
    let result: LoadResult;
    try {
      // The loader decides between a Pod and a PodList, as the kubelet tries one then the other.
      result = this.loader(text, { source: "http", location: this.url, nodeName: this.nodeName });
    } catch (e) {
      result = { ok: false, errors: [documentError(this.url, `cannot load: ${message(e)}`)] };
    }
    if (result.ok) {
      this.pods = result.pods;
      this.bodyErrors = [];
      this.everComplete = true;
    } else {
      // Bad input loses nothing: the pods of the last good body stay.
      this.bodyErrors = result.errors;
    }
  }

  private failed(why: string): void {
    this.stats.failures++;
    this.requestError = documentError(this.url, why);
  }

  private async poll(): Promise<void> {
    if (this.stopped) return;
    this.polling = true;
    try {
      const snap = await this.scan();
      if (!this.stopped) this.emitter.emit(snap);
    } catch (e) {
      this.log.error(`manifest URL ${this.url}: ${message(e)}`);
    } finally {
      this.polling = false;
    }
    if (this.stopped) return;
    // wait.Until: the next poll is a period after this one finished.
    this.timer = this.clock.setTimer(this.checkFrequencyMs, () => void this.poll());
  }

}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
