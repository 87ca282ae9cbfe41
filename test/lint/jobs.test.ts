// `staticpod lint --jobs N` (src/lint/jobs.ts): worker threads and this one take batches off a shared
// counter; the reports come back in input order, equal to one thread's, files a worker's smaller
// stack may fail on are linted again here, and a file that cannot be read fails the run with the
// error one thread would have met first.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import {
  FILES_PER_THREAD,
  InputError,
  jobsRequest,
  lintClaimed,
  lintInWorkers,
  mergeResponses,
  selectInputs,
  threadsFor,
  workerEntry,
  type FileReport,
  type JobsResponse,
  type ManifestInput,
} from "../../src/lint";
import { lintInputs } from "../../src/lint/run";

const CORPUS = resolve(import.meta.dir, "../fixtures/lint");
const OPTIONS = { nodeName: "node1" };
/** The lint corpus: 34 files, broken and valid, so the threads' reports differ from file to file. */
const FILES = selectInputs([join(CORPUS, "broken"), join(CORPUS, "valid"), join(CORPUS, "manifest-dir")]).inputs;
const missing = (name: string): ManifestInput => ({ path: join(CORPUS, "no-such", name), display: `no-such/${name}` });

/**
 * Pods whose labels nest flow sequences `depth` levels deep: the parser recurses once a level, so
 * past some thousands a thread runs out of stack, and a worker's (≈4 MB) sooner than the main one's.
 */
const tmp = mkdtempSync(join(tmpdir(), "lint-jobs-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
function nested(depth: number): ManifestInput {
  const path = join(tmp, `nested-${depth}.yaml`);
  writeFileSync(
    path,
    `apiVersion: v1\nkind: Pod\nmetadata:\n  name: deep\n  labels: {a: ${"[".repeat(depth)}${"]".repeat(depth)}}\nspec:\n  containers: [{name: c, image: busybox:1.36}]\n`,
  );
  return { path, display: `nested-${depth}.yaml` };
}

/** Runs the worker's entry point on its own with `inputs`: every file is claimed there. */
async function inWorker(inputs: ManifestInput[]): Promise<JobsResponse> {
  const worker = new Worker(workerEntry());
  try {
    return await new Promise<JobsResponse>((resolve, reject) => {
      worker.addEventListener("message", (e: MessageEvent<JobsResponse>) => resolve(e.data));
      worker.addEventListener("error", (e: ErrorEvent) => reject(new Error(e.message)));
      worker.postMessage(jobsRequest(inputs, OPTIONS));
    });
  } finally {
    worker.terminate();
  }
}

/** What one thread throws on `inputs`, as the message (or undefined when it does not throw). */
function oneThreadError(inputs: ManifestInput[]): string | undefined {
  try {
    lintInputs(inputs, OPTIONS);
    return undefined;
  } catch (e) {
    expect(e).toBeInstanceOf(InputError);
    return (e as Error).message;
  }
}

/** The parallel run with a thread for every file: these tests run workers on a few files. */
const inWorkers = lintInWorkers(undefined, 1);

describe("how many threads a run uses", () => {
  test("one per FILES_PER_THREAD files, at most --jobs, at least one", () => {
    expect(threadsFor(0, 4)).toBe(1);
    expect(threadsFor(FILES_PER_THREAD * 2 - 1, 2)).toBe(1);
    expect(threadsFor(FILES_PER_THREAD * 2, 2)).toBe(2);
    expect(threadsFor(FILES_PER_THREAD * 10, 3)).toBe(3);
    expect(threadsFor(FILES_PER_THREAD * 3, 1)).toBe(1);
    expect(threadsFor(7, 4, 2)).toBe(3);
  });

  test("too few files for a second thread: linted here, no worker started", async () => {
    // A worker entry point that does not exist fails any run that starts one (see below).
    const run = await lintInWorkers(join(CORPUS, "no-such-worker.ts"))(FILES, 2, OPTIONS);
    expect(run).toEqual(lintInputs(FILES, OPTIONS));
  });
});

describe("lintInWorkers", () => {
  test("two and three threads give one thread's reports, in input order", async () => {
    expect(FILES.length).toBe(34);
    const one = lintInputs(FILES, OPTIONS);
    for (const jobs of [2, 3]) expect(await inWorkers(FILES, jobs, OPTIONS)).toEqual(one);
  });

  test("the worker's entry point lints on its own: every file claimed there, reported by index, files the decoder gave up on handed back", async () => {
    const answer = await inWorker(FILES);
    expect(answer.failure).toBeUndefined();
    const one = lintInputs(FILES, OPTIONS);
    const gaveUp = one.flatMap((r, i) => (r.findings.some((f) => f.rule === "yaml-syntax") ? [i] : []));
    expect(gaveUp.length).toBeGreaterThan(0); // the corpus has broken YAML
    expect(answer.deferred).toEqual(gaveUp);
    expect(answer.reports.map(([i]) => i)).toEqual(FILES.map((_, i) => i).filter((i) => !gaveUp.includes(i)));
    for (const [i, report] of answer.reports) expect(report).toEqual(one[i]!);
  });

  test("a file nested past any stack is handed back by the worker", async () => {
    const answer = await inWorker([FILES[0]!, nested(20000)]);
    expect(answer.reports.map(([i]) => i)).toEqual([0]);
    expect(answer.deferred).toEqual([1]);
  }, 30_000);

  test("deeply nested files: a worker's smaller stack adds no failure one thread would not have", async () => {
    // 3000 levels decode on every thread; 20000 exhaust every stack. Where exactly a thread runs out
    // depends on how deep its stack already is, so for those only the verdict is compared.
    const inputs = [...FILES.slice(0, 10), nested(3000), ...FILES.slice(10, 20), nested(20000), ...FILES.slice(20)];
    const verdict = (r: FileReport) => [...new Set(r.findings.map((f) => f.rule))].sort().join(",");
    const one = lintInputs(inputs, OPTIONS);
    expect(verdict(one[10]!)).toBe("wrong-type");
    expect(verdict(one[21]!)).toBe("yaml-syntax");
    const run = await inWorkers(inputs, 2, OPTIONS);
    expect(run.map(verdict)).toEqual(one.map(verdict));
    expect(run.filter((_, i) => i !== 21)).toEqual(one.filter((_, i) => i !== 21));
  }, 60_000);

  test("unreadable files: the run fails with the first one, as with one thread", async () => {
    const inputs = [...FILES.slice(0, 5), missing("first.yaml"), ...FILES.slice(5, 30), missing("second.yaml"), ...FILES.slice(30)];
    const expected = oneThreadError(inputs);
    expect(expected).toBe("no-such/first.yaml: cannot read: no such file or directory");
    for (const jobs of [2, 3]) {
      const run = inWorkers(inputs, jobs, OPTIONS);
      await expect(run).rejects.toBeInstanceOf(InputError);
      await expect(run).rejects.toThrow(expected!);
    }
  });

  test("a worker that cannot start fails the run instead of hanging or leaving files out", async () => {
    const run = lintInWorkers(join(CORPUS, "no-such-worker.ts"), 1)(FILES, 2, OPTIONS);
    await expect(run).rejects.toThrow(/^a lint worker failed: /);
  });
});

describe("lintClaimed and mergeResponses", () => {
  const report = (file: string): FileReport => ({ file, findings: [], ignored: [], excerpts: {} });
  const noRelint = (i: number): FileReport => {
    throw new Error(`file ${i} was not deferred`);
  };

  test("a thread claims batches until none is left; a second thread on the same counter gets none", () => {
    const request = jobsRequest(FILES.slice(0, 10), OPTIONS, 4);
    const first = lintClaimed(request);
    expect(first.reports.map(([i]) => i)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(lintClaimed(request)).toEqual({ reports: [] });
  });

  test("after a failure no thread claims another batch", () => {
    const inputs = [FILES[0]!, missing("x.yaml"), FILES[1]!, FILES[2]!, FILES[3]!];
    const request = jobsRequest(inputs, OPTIONS, 2);
    const first = lintClaimed(request);
    expect(first.reports.map(([i]) => i)).toEqual([0]);
    expect(first.failure).toEqual({ index: 1, message: "no-such/x.yaml: cannot read: no such file or directory", unreadable: true });
    expect(lintClaimed(request)).toEqual({ reports: [] });
  });

  test("batches from several threads are put back in input order", () => {
    const files = ["a", "b", "c", "d", "e", "f", "g"];
    const responses: JobsResponse[] = [
      {
        reports: [
          [0, report("a")],
          [1, report("b")],
          [4, report("e")],
          [5, report("f")],
        ],
      },
      {
        reports: [
          [2, report("c")],
          [3, report("d")],
          [6, report("g")],
        ],
      },
    ];
    expect(mergeResponses(7, responses, noRelint).map((r) => r.file)).toEqual(files);
  });

  test("the lowest failing index wins, whichever thread met it; a crash is a plain Error", () => {
    const responses: JobsResponse[] = [
      { reports: [[0, report("a")]], failure: { index: 6, message: "six", unreadable: true } },
      { reports: [], failure: { index: 2, message: "two", unreadable: true } },
    ];
    expect(() => mergeResponses(8, responses, noRelint)).toThrow(new InputError("two"));
    const bug: JobsResponse[] = [{ reports: [], failure: { index: 0, message: "TypeError: boom", unreadable: false } }];
    let thrown: unknown;
    try {
      mergeResponses(1, bug, noRelint);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(Error);
    expect(thrown).not.toBeInstanceOf(InputError);
  });

  test("a file no thread reported is an error, never a hole in the output", () => {
    expect(() =>
      mergeResponses(
        3,
        [
          {
            reports: [
              [0, report("a")],
              [2, report("c")],
            ],
          },
        ],
        noRelint,
      ),
    ).toThrow("no lint thread reported file 2 of 3");
  });

  test("deferred files are linted again by the caller, in input order, and take their place", () => {
    const relinted: number[] = [];
    const relint = (i: number) => (relinted.push(i), report(`again-${i}`));
    const responses: JobsResponse[] = [
      {
        reports: [
          [0, report("a")],
          [3, report("d")],
        ],
        deferred: [4],
      },
      { reports: [[2, report("c")]], deferred: [1] },
    ];
    expect(mergeResponses(5, responses, relint).map((r) => r.file)).toEqual(["a", "again-1", "c", "d", "again-4"]);
    expect(relinted).toEqual([1, 4]);
  });

  test("with a failure, only the deferred files before it are linted again: one of them may fail first", () => {
    const relinted: number[] = [];
    const responses: JobsResponse[] = [{ reports: [], deferred: [1, 7], failure: { index: 5, message: "five", unreadable: true } }];
    expect(() => mergeResponses(8, responses, (i) => (relinted.push(i), report("x")))).toThrow(new InputError("five"));
    expect(relinted).toEqual([1]);
    const earlier = () =>
      mergeResponses(8, responses, (i) => {
        throw new Error(`relint ${i} failed`);
      });
    expect(earlier).toThrow("relint 1 failed");
  });

  test("on the calling thread nothing is deferred: a file the decoder gave up on is reported there", () => {
    const broken = FILES.findIndex((f) => f.path.endsWith("not-yaml.yaml"));
    expect(broken).not.toBe(-1);
    const here = lintClaimed(jobsRequest([FILES[broken]!], OPTIONS));
    expect(here.deferred).toBeUndefined();
    expect(here.reports[0]![1].findings.some((f) => f.rule === "yaml-syntax")).toBe(true);
    expect(lintClaimed(jobsRequest([FILES[broken]!], OPTIONS), { worker: true })).toEqual({ reports: [], deferred: [0] });
  });
});

describe("workerEntry", () => {
  test("from source: worker.ts beside jobs.ts", () => {
    expect(workerEntry("file:///repo/src/lint/jobs.ts")).toBe("file:///repo/src/lint/worker.ts");
  });

  test("in the compiled binary: the embedded entry point, whichever chunk jobs.ts is in", () => {
    expect(workerEntry("file:///$bunfs/root/chunk-8qzm87mz.js")).toBe("/$bunfs/root/src/lint/worker.ts");
  });
});
