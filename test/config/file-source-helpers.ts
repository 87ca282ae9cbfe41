// What the FileSource tests share: temporary folders, a source on a fake clock, waiting for real I/O.
import { mkdtemp, rename, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileSource, type FileSourceOptions } from "../../src/config";
import type { SourceReport } from "../../src/config/pod-config";
import { FakeClock } from "../../src/util/clock";
import { fakeLoader, quietLog } from "./fake-loader";

const dirs: string[] = [];
const sources: FileSource[] = [];

/** Stops the sources and removes the folders a test made: each test file runs it afterEach. */
export async function cleanUp(): Promise<void> {
  for (const s of sources.splice(0)) s.stop();
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
}

export async function tempDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), "nodeagent-config-"));
  dirs.push(d);
  return d;
}

/**
 * A source on a fake clock. By default the wall clock that file times are compared with runs a minute
 * ahead, so every file looks long settled (its ctime older than the settle window) and is acted on at
 * once: the tests of reading and naming need no waiting. `settling: true` compares with the real time,
 * so a file written now must settle (tests of settling advance the fake clock).
 */
export function fileSource(path: string, opts: Partial<FileSourceOptions> & { settling?: boolean } = {}) {
  const clock = opts.clock instanceof FakeClock ? opts.clock : new FakeClock();
  const fileTimeNow = opts.fileTimeNow ?? (opts.settling ? Date.now : () => Date.now() + 60_000);
  const src = new FileSource({ path, nodeName: "node1", loader: fakeLoader, log: quietLog(), ...opts, clock, fileTimeNow });
  sources.push(src);
  return { clock, src };
}

export const names = (s: SourceReport) => s.pods.map((p) => p.metadata?.name);
export const uids = (s: SourceReport) => s.pods.map((p) => p.metadata?.uid);
export const messages = (s: SourceReport) => s.errors.map((e) => `${e.file.split("/").pop()}: ${e.message}`);

/** Waits for something that real I/O (fs.watch delivery, a read) makes true, with a deadline. */
export async function waitFor(cond: () => boolean, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** Saves as careful tools do: a dot-file, renamed over the manifest. */
export async function saveByRename(file: string, text: string, opts: { ctimeAfterMtime?: boolean } = {}): Promise<void> {
  const tmp = join(file, "..", `.${file.split("/").pop()}.tmp`);
  await writeFile(tmp, text);
  // Like `cp -p`, rsync or tar: the write's time is kept, so the rename leaves ctime after mtime.
  if (opts.ctimeAfterMtime) await utimes(tmp, new Date(Date.now() - 5_000), new Date(Date.now() - 5_000));
  await rename(tmp, file);
}
