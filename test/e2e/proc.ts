// Runs the compiled binary as a child process and reads its output line by line, with waits that
// end on a condition (or fail after a deadline), never on a fixed sleep.
import type { Subprocess } from "bun";
import { BINARY } from "./node";

export class BinaryProcess {
  readonly proc: Subprocess<"ignore", "pipe", "pipe">;
  readonly lines: string[] = [];
  stderr = "";
  private waiters: (() => void)[] = [];

  /** `binary` is dist/nodeagent unless a benchmark runs another build beside it (the before binary). */
  constructor(args: string[], env: Record<string, string> = {}, binary = BINARY) {
    this.proc = Bun.spawn([binary, ...args], { stdin: "ignore", stdout: "pipe", stderr: "pipe", env: { ...process.env, ...env } });
    void this.read(this.proc.stdout, (chunk) => {
      this.lines.push(...chunk);
    });
    void this.read(this.proc.stderr, (chunk) => {
      this.stderr += chunk.join("\n") + "\n";
    });
  }

  private async read(stream: ReadableStream<Uint8Array>, onLines: (l: string[]) => void): Promise<void> {
    const dec = new TextDecoder();
    let buf = "";
    for await (const chunk of stream) {
      buf += dec.decode(chunk, { stream: true });
      const parts = buf.split("\n");
      buf = parts.pop()!;
      if (parts.length) onLines(parts);
      for (const w of this.waiters.splice(0)) w();
    }
    if (buf) onLines([buf]);
    for (const w of this.waiters.splice(0)) w();
  }

  /** JSON objects printed so far (lines that are not JSON are skipped). */
  json<T = Record<string, unknown>>(): T[] {
    return this.lines.flatMap((l) => {
      try {
        return [JSON.parse(l) as T];
      } catch {
        return [];
      }
    });
  }

  /** Waits until pred holds over the output, or fails with the output so far. */
  async waitFor<T>(what: string, pred: () => T | undefined | false, timeoutMs = 20_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const v = pred();
      if (v) return v;
      if (Date.now() > deadline || this.proc.exitCode !== null) {
        throw new Error(`timed out waiting for ${what}; exit=${this.proc.exitCode}\nstdout:\n${this.lines.join("\n")}\nstderr:\n${this.stderr}`);
      }
      await new Promise<void>((r) => {
        const t = setTimeout(r, 200);
        this.waiters.push(() => {
          clearTimeout(t);
          r();
        });
      });
    }
  }

  /** Sends SIGINT and returns the exit code. */
  async interrupt(): Promise<number> {
    this.proc.kill("SIGINT");
    return await this.proc.exited;
  }
}

/** Polls an async condition until it holds (or fails after the deadline). */
export async function eventually<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 20_000, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ""}`);
    await Bun.sleep(everyMs);
  }
}
