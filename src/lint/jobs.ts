// `--jobs N`: the files are split into N contiguous shares, one linted here and each other one by a
// child process of this same program (`nodeagent staticpod lint` with NODEAGENT_LINT_WORKER set), which reads its share as
// JSON on stdin and writes the file reports as JSON on stdout. Processes rather than threads: a
// compiled binary needs no second entry point, and each child is the code that runs single-process.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { errorMessage } from "../util/errors";
import type { ManifestLintOptions } from "./check-manifest";
import { InputError, type ManifestInput } from "./inputs";
import { lintInputs } from "./run";
import type { FileReport } from "./types";

/** Set in a child's environment: the command then serves one share instead of parsing arguments. */
export const WORKER_ENV = "NODEAGENT_LINT_WORKER";

interface WorkerRequest {
  inputs: ManifestInput[];
  options: ManifestLintOptions;
}

type WorkerResponse = { reports: FileReport[] } | { error: string };

/**
 * This program as a command line: the compiled binary alone, or bun and the script when run from
 * source (a compiled binary's script path lives in its embedded file system, not on disk).
 */
export function selfCommand(): string[] {
  const script = process.argv[1];
  const embedded = script !== undefined && (script.startsWith("/$bunfs/") || script.includes("~BUN"));
  return script && !embedded && script !== process.execPath && existsSync(script) ? [process.execPath, script] : [process.execPath];
}

/** What a worker does with its request: lint the share, answer with the reports or the read error. */
export function serveWorkerRequest(request: string): { output: string; code: number } {
  let parsed: WorkerRequest;
  try {
    parsed = JSON.parse(request) as WorkerRequest;
  } catch (e) {
    return { output: JSON.stringify({ error: `bad worker request: ${errorMessage(e)}` } satisfies WorkerResponse), code: 2 };
  }
  try {
    return { output: JSON.stringify({ reports: lintInputs(parsed.inputs, parsed.options) } satisfies WorkerResponse), code: 0 };
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    return { output: JSON.stringify({ error: e.message } satisfies WorkerResponse), code: 2 };
  }
}

interface Worker {
  /** Settles once the child has its whole request: until then this process must keep its event loop free. */
  sent: Promise<void>;
  reports: Promise<FileReport[]>;
}

function startWorker(command: string[], args: string[], request: WorkerRequest): Worker {
  let sent!: () => void;
  const sentPromise = new Promise<void>((resolve) => (sent = resolve));
  const reports = new Promise<FileReport[]>((resolve, reject) => {
    const child = spawn(command[0]!, [...command.slice(1), ...args], {
      env: { ...process.env, [WORKER_ENV]: "1" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (b: Buffer) => out.push(b));
    child.stderr.on("data", (b: Buffer) => err.push(b));
    child.on("error", (e) => {
      sent();
      reject(new Error(`cannot start a lint worker (${command.join(" ")}): ${e.message}`));
    });
    child.on("close", (code) => {
      let response: WorkerResponse;
      try {
        response = JSON.parse(Buffer.concat(out).toString("utf8")) as WorkerResponse;
      } catch {
        const stderr = Buffer.concat(err).toString("utf8").trim();
        reject(new Error(`a lint worker exited with code ${code} without an answer${stderr ? `: ${stderr}` : ""}`));
        return;
      }
      if ("error" in response) reject(new InputError(response.error));
      else resolve(response.reports);
    });
    child.stdin.on("error", () => sent());
    child.stdin.end(JSON.stringify(request), () => sent());
  });
  return { sent: sentPromise, reports };
}

/**
 * Splits the inputs into `jobs` contiguous shares and lints the first here while jobs - 1 child
 * processes lint the others (this process would only wait otherwise); keeps the order.
 */
export function lintInProcesses(command: string[], args: string[]) {
  return async (inputs: ManifestInput[], jobs: number, options: ManifestLintOptions): Promise<FileReport[]> => {
    const size = Math.ceil(inputs.length / jobs);
    const shares: ManifestInput[][] = [];
    for (let i = 0; i < inputs.length; i += size) shares.push(inputs.slice(i, i + size));
    const [own = [], ...others] = shares;
    const workers = others.map((share) => startWorker(command, args, { inputs: share, options }));
    // Linting here blocks the event loop: hand every child its whole request first.
    await Promise.all(workers.map((w) => w.sent));
    const elsewhere = workers.map((w) => w.reports);
    // A read error here must still wait for the children, so that none is left behind.
    let here: FileReport[] = [];
    let failure: unknown;
    try {
      here = lintInputs(own, options);
    } catch (e) {
      failure = e;
    }
    const results = await Promise.allSettled(elsewhere);
    if (failure !== undefined) throw failure;
    const rejected = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (rejected) throw rejected.reason;
    return [here, ...results.map((r) => (r as PromiseFulfilledResult<FileReport[]>).value)].flat();
  };
}
