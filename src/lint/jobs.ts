// `--jobs N`: the files are linted by this thread and N - 1 worker threads (src/lint/worker.ts), all
// taking batches of files off one shared counter until none is left. The counter is a
// SharedArrayBuffer each thread bumps with Atomics.add, so no thread waits for another to hand it
// work, and a thread that starts late (a worker's start-up) or gets slow files simply takes fewer
// batches. Each thread answers with its reports keyed by the file's index; the run puts them back in
// input order: the output is one thread's (test/e2e/lint.test.ts compares the bytes).
//
// Threads, not processes: a worker loads only the lint chunks of the binary, already mapped, where a
// child process paid the whole start-up again (before, `--jobs 2` on 2,000 files was 1.47× slower
// than one process).
//
// What a thread costs is not its start-up (a worker is linting ≈15 ms after the main thread) but its
// JIT: every thread is a JavaScriptCore VM of its own, and each compiles the lint's hot code again —
// at 2,000 files about 210 functions with the DFG and 30 with the FTL, ≈0.5 s of compiler CPU, about
// as much as the linting itself, and nearly the same at 1,000 files (it depends on the code, not on
// the number of files). With one thread that compiling runs on JSC's concurrent compiler thread, on a
// core the lint does not use: `--jobs 1` already keeps ≈1.4 cores busy (1.05 s of CPU in 0.74 s).
// A second thread needs a core for its linting and another half for its own compiler, so on two
// cores it gained nothing below a few thousand files (0.91× at 2,000), and neither did two processes
// each linting half the files (measured side by side: no faster than one with all of them), so it is
// not contention between Bun's threads. On two cores no split of the work can make 2,000 files more
// than 2 / 1.4 ≈ 1.4× faster than one thread, even one that compiled nothing twice. So a thread is
// started only for every FILES_PER_THREAD files: `--jobs N` runs no more threads than can pay for
// their compiling, and is not slower than `--jobs 1`.
//
// A file that cannot be read stops the run as it does with one thread: every thread stops claiming
// batches, and the failure of the lowest index is reported, which is the one a single thread would
// have met first (every batch below the failing one was claimed before it, so it was linted).
//
// The one thing a thread changes is its stack: a worker's is about 4 MB, this thread's the process's
// (ulimit -s, 8 MB by default), and YAML's parser recurses, so a manifest nested about 5,000 levels
// deep decodes here and runs out of stack in a worker. Running out of stack can only make the decoder
// give up (a yaml-syntax finding) or the lint throw; a worker therefore hands such files back
// ("deferred") and this thread lints them again: a worker adds no failure a single thread would not
// have. Past this thread's own limit (≈6,500 levels) a file fails on every thread, at a point that
// moves with how deep the stack already was, so that error's column is not exact even with one
// thread (nor was it with the child processes this replaced). Were this thread's stack the smaller
// one (ulimit -s under 4 MB), a file a worker decodes could fail here: not handled, nothing real
// nests that deep.
import { errorMessage } from "../util";
import { decodeFailed, type ManifestLintOptions } from "./check-manifest";
import { InputError, type ManifestInput } from "./inputs";
import { lintInput, lintInputs } from "./run";
import type { FileReport } from "./types";

/**
 * Files a thread claims at once: small enough that the threads end together (a file takes well under
 * a millisecond), large enough that the counter is not touched for every file.
 */
export const JOBS_BATCH = 8;

/**
 * Files a thread must have to pay for its own JIT compiling (see above). From the figures of one
 * thread on a quiet 2-core machine (1,000 files: 0.46 s, 0.71 s of CPU; 2,000: 0.76 s, 1.1 s of
 * CPU), two threads, at best half the CPU of both VMs each, break even at about 1,600 files: above
 * that a second thread gains, below it loses. Rounded up, since the machine is seldom all ours. It is
 * a count of files, not of time: a faster machine compiles and lints faster alike.
 */
export const FILES_PER_THREAD = 2000;

/** How many threads lint `files` files when `jobs` are allowed: at least one, and one per FILES_PER_THREAD files. */
export function threadsFor(files: number, jobs: number, filesPerThread = FILES_PER_THREAD): number {
  return Math.max(1, Math.min(jobs, Math.floor(files / filesPerThread)));
}

/** What every thread of a run is given: the files, the options, and the shared claim counter. */
export interface JobsRequest {
  inputs: ManifestInput[];
  options: ManifestLintOptions;
  /** An Int32Array's buffer: [0] is the index of the next file nobody has claimed. */
  claims: SharedArrayBuffer;
  batch: number;
}

/** Why a thread stopped: the file's index, and whether it was unreadable (exit 2) or a failure (exit 1). */
export interface JobFailure {
  index: number;
  message: string;
  unreadable: boolean;
}

/**
 * What a thread answers: the reports of the files it linted, each with its index, the files it hands
 * back to the calling thread (a worker whose stack may have been too small), and its failure.
 */
export interface JobsResponse {
  reports: Array<[index: number, report: FileReport]>;
  deferred?: number[];
  failure?: JobFailure;
}

/** A request for `inputs`, with a fresh claim counter. */
export function jobsRequest(inputs: ManifestInput[], options: ManifestLintOptions, batch = JOBS_BATCH): JobsRequest {
  return { inputs, options, claims: new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT), batch };
}

/**
 * Claims batches of the request's files and lints them until none is left or one fails; what every
 * thread of a run does, the calling one included. In a worker (`worker: true`), a file the decoder
 * gave up on or whose lint threw is deferred to the calling thread rather than reported. Never
 * throws: a failure is in the answer.
 */
export function lintClaimed(request: JobsRequest, options: { worker?: boolean } = {}): JobsResponse {
  const claims = new Int32Array(request.claims);
  const total = request.inputs.length;
  const reports: JobsResponse["reports"] = [];
  const deferred: number[] = [];
  const answer = (failure?: JobFailure): JobsResponse => ({ reports, ...(deferred.length > 0 ? { deferred } : {}), ...(failure ? { failure } : {}) });
  for (;;) {
    const start = Atomics.add(claims, 0, request.batch);
    if (start >= total) return answer();
    for (let i = start; i < Math.min(start + request.batch, total); i++) {
      try {
        const report = lintInput(request.inputs[i]!, request.options);
        if (options.worker && decodeFailed(report)) deferred.push(i);
        else reports.push([i, report]);
      } catch (e) {
        if (options.worker && !(e instanceof InputError)) {
          deferred.push(i);
          continue;
        }
        // Nobody claims another batch; those already claimed are finished, so the lowest failing
        // index is found whichever thread met it.
        Atomics.store(claims, 0, total);
        return answer({ index: i, message: errorMessage(e), unreadable: e instanceof InputError });
      }
    }
  }
}

/**
 * The reports of every thread in input order, or the error a single thread would have thrown. The
 * deferred files are linted by `relint` (on the calling thread), in order, up to the first failure:
 * one of them may throw, and would have with one thread. A file no thread reported (a worker that
 * died) is an error too: nothing is silently left out.
 */
export function mergeResponses(total: number, responses: readonly JobsResponse[], relint: (index: number) => FileReport): FileReport[] {
  const failures = responses.flatMap((r) => (r.failure ? [r.failure] : []));
  const first = failures.length > 0 ? failures.reduce((a, b) => (b.index < a.index ? b : a)) : undefined;
  const reports = new Array<FileReport | undefined>(total);
  const deferred = responses.flatMap((r) => r.deferred ?? []).sort((a, b) => a - b);
  for (const i of deferred) if (first === undefined || i < first.index) reports[i] = relint(i);
  if (first) throw first.unreadable ? new InputError(first.message) : new Error(first.message);
  for (const r of responses) for (const [i, report] of r.reports) reports[i] = report;
  const missing = reports.findIndex((r) => r === undefined);
  if (missing !== -1) throw new Error(`no lint thread reported file ${missing + 1} of ${total}`);
  return reports as FileReport[];
}

/**
 * The worker's entry point. From source it is the file beside this one; in the compiled binary it is
 * the second entry point `make build` embeds (cmd/nodeagent.ts and src/lint/worker.ts, so the
 * embedded root is the repository's and the worker's path is the same as in the tree).
 */
export function workerEntry(moduleUrl = import.meta.url): string {
  const embedded = moduleUrl.includes("/$bunfs/") || moduleUrl.includes("/~BUN/");
  return embedded ? "/$bunfs/root/src/lint/worker.ts" : new URL("./worker.ts", moduleUrl).href;
}

/** Runs one worker thread on the request; settles with its answer, or rejects when it cannot start or dies. */
function runWorker(entry: string, request: JobsRequest): Promise<JobsResponse> {
  return new Promise<JobsResponse>((resolve, reject) => {
    const worker = new Worker(entry);
    const done = (settle: () => void) => {
      worker.terminate();
      settle();
    };
    worker.addEventListener("message", (e: MessageEvent<JobsResponse>) => done(() => resolve(e.data)));
    worker.addEventListener("error", (e: ErrorEvent) => done(() => reject(new Error(`a lint worker failed: ${e.message}`))));
    worker.addEventListener("close", () => reject(new Error("a lint worker stopped without an answer")));
    worker.postMessage(request);
  });
}

/**
 * The parallel run runLint takes as `lintElsewhere`: `threadsFor(inputs, jobs) - 1` workers and this
 * thread lint `inputs` together; the reports come back in input order. `filesPerThread` is for the
 * tests, which run workers on a few files.
 */
export function lintInWorkers(entry = workerEntry(), filesPerThread = FILES_PER_THREAD) {
  return async (inputs: ManifestInput[], jobs: number, options: ManifestLintOptions): Promise<FileReport[]> => {
    const threads = threadsFor(inputs.length, jobs, filesPerThread);
    if (threads === 1) return lintInputs(inputs, options);
    const request = jobsRequest(inputs, options);
    const workers = Array.from({ length: threads - 1 }, () => runWorker(entry, request));
    // Linting here blocks this thread's event loop, not the workers: they run on their own threads
    // and claim batches meanwhile. A worker that cannot start (a binary built without the worker's
    // entry point) claims nothing, so the others lint everything; its error is still the run's.
    const here = lintClaimed(request);
    const settled = await Promise.allSettled(workers);
    const responses = [here];
    for (const s of settled) {
      if (s.status === "rejected") throw s.reason;
      responses.push(s.value);
    }
    return mergeResponses(inputs.length, responses, (i) => lintInput(inputs[i]!, options));
  };
}
