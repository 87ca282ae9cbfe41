// The kubelet's ReadLogs over a fake file system and clock: format, partial lines, tail/limit/since,
// timestamps, follow with rotation and container exit, malformed lines, and clean-up.
import { describe, expect, test } from "bun:test";
import { FakeClock, flushMicrotasks } from "../../src/util/clock";
import { openLogs, toLogOptions, type LogOptions, type ReadLogsDeps } from "../../src/logs";
import { FakeLogFiles } from "../fakes/log-files";

const PATH = "/logs/ns_pod_uid/app/0.log";
const T = (s: number, frac = "000000000") => `2026-01-01T00:00:${String(s).padStart(2, "0")}.${frac}Z`;
const line = (s: number, stream: "stdout" | "stderr", tag: "F" | "P", text: string) => `${T(s)} ${stream} ${tag} ${text}\n`;

function opts(o: Partial<LogOptions> = {}): LogOptions {
  return { tail: -1, bytes: -1, follow: false, timestamps: false, ...o };
}

function setup() {
  const files = new FakeLogFiles();
  const clock = new FakeClock(Date.UTC(2026, 0, 1, 0, 1, 0));
  const state = { running: true, statusCalls: 0 };
  const malformed: string[] = [];
  const deps: ReadLogsDeps = {
    files,
    clock,
    isRunning: async () => {
      state.statusCalls++;
      return state.running;
    },
    onMalformed: (n) => malformed.push(n),
  };
  return { files, clock, state, malformed, deps };
}

async function readAll(deps: ReadLogsDeps, o: LogOptions, signal = new AbortController().signal): Promise<string> {
  const { lines } = await openLogs(PATH, o, deps, signal);
  let s = "";
  for await (const chunk of lines) s += new TextDecoder().decode(chunk);
  return s;
}

/** Pulls a following reader in the background, collecting its output. */
function follow(deps: ReadLogsDeps, o: LogOptions, ac = new AbortController()) {
  const got = { text: "", done: false, error: undefined as unknown };
  const run = (async () => {
    const { lines } = await openLogs(PATH, { ...o, follow: true }, deps, ac.signal);
    for await (const chunk of lines) got.text += new TextDecoder().decode(chunk);
    got.done = true;
  })().catch((e) => (got.error = e));
  return { got, run, ac };
}

describe("reading a CRI log file", () => {
  test("stdout and stderr interleaved as written, one line each, content kept byte for byte", async () => {
    const { files, deps } = setup();
    files.append(PATH, line(1, "stdout", "F", "one") + line(2, "stderr", "F", "two  with  spaces ") + line(3, "stdout", "F", ""));
    expect(await readAll(deps, opts())).toBe("one\ntwo  with  spaces \n\n");
  });

  test("partial lines are joined with the F that completes them, per stream, even when another stream writes between", async () => {
    const { files, deps } = setup();
    files.append(PATH, line(1, "stdout", "P", "abc") + line(1, "stderr", "F", "err") + line(2, "stdout", "P", "def") + line(3, "stdout", "F", "ghi"));
    expect(await readAll(deps, opts())).toBe("err\nabcdefghi\n");
  });

  test("timestamps: each logical line prefixed once with its first fragment's time, fixed width, in the writer's offset", async () => {
    const { files, deps } = setup();
    files.append(PATH, `2026-01-01T00:00:01.5Z stdout P ab\n${T(2)} stdout F cd\n2026-01-01T02:00:03.123456789+02:00 stderr F x\n`);
    expect(await readAll(deps, opts({ timestamps: true }))).toBe("2026-01-01T00:00:01.500000000Z abcd\n2026-01-01T02:00:03.123456789+02:00 x\n");
  });

  test("Docker JSON lines are read too", async () => {
    const { files, deps } = setup();
    files.append(
      PATH,
      `{"log":"hello\\n","stream":"stdout","time":"${T(1)}"}\n{"log":"par","stream":"stderr","time":"${T(2)}"}\n{"log":"tial\\n","stream":"stderr","time":"${T(3)}"}\n`,
    );
    expect(await readAll(deps, opts())).toBe("hello\npartial\n");
  });

  test("a malformed line is skipped with a note; the lines around it are read", async () => {
    const { files, deps, malformed } = setup();
    files.append(
      PATH,
      line(1, "stdout", "F", "before") +
        "garbage without format\n" +
        `${T(2)} stdlog F bad stream\n` +
        `not-a-time stdout F x\n` +
        line(3, "stdout", "F", "after"),
    );
    expect(await readAll(deps, opts())).toBe("before\nafter\n");
    expect(malformed).toHaveLength(3);
    expect(malformed[0]).toContain("timestamp");
    expect(malformed[1]).toContain('unexpected stream type "stdlog"');
  });

  test("an incomplete last line is written as it is when not following", async () => {
    const { files, deps } = setup();
    files.append(PATH, line(1, "stdout", "F", "a") + `${T(2)} stdout F no newline`);
    expect(await readAll(deps, opts())).toBe("a\nno newline\n");
  });
  test("a last line the program never ended (a P line no F follows) is written as it is, without a newline", async () => {
    // printf 'line1\nno-newline-at-end': containerd logs the second line as P; the kubelet shows both.
    const { files, deps, clock } = setup();
    files.append(PATH, line(1, "stdout", "F", "line1") + line(1, "stdout", "P", "no-newline-") + line(1, "stdout", "P", "at-end"));
    expect(await readAll(deps, opts())).toBe("line1\nno-newline-at-end");
    expect(await readAll(deps, opts({ timestamps: true }))).toBe(`${T(1)} line1\n${T(1)} no-newline-at-end`);
    // A fragment that sinceTime filters out stays out.
    expect(await readAll(deps, toLogOptions({ sinceTime: "2026-01-01T00:00:02Z" }, clock.now()))).toBe("");
  });
});

describe("tailLines, limitBytes, since", () => {
  const ten = Array.from({ length: 10 }, (_, i) => line(i + 1, i % 2 ? "stderr" : "stdout", "F", `line ${i + 1}`)).join("");

  test("tailLines: the last N lines; 0 gives nothing; more than there are gives all", async () => {
    const { files, deps } = setup();
    files.append(PATH, ten);
    expect(await readAll(deps, opts({ tail: 3 }))).toBe("line 8\nline 9\nline 10\n");
    expect(await readAll(deps, opts({ tail: 0 }))).toBe("");
    expect((await readAll(deps, opts({ tail: 50 }))).split("\n")).toHaveLength(11);
  });

  test("tailLines counts logical lines: a line split in partials counts once", async () => {
    const { files, deps } = setup();
    files.append(PATH, line(1, "stdout", "F", "first") + line(2, "stdout", "P", "a") + line(2, "stdout", "P", "b") + line(3, "stdout", "F", "c"));
    expect(await readAll(deps, opts({ tail: 1 }))).toBe("abc\n");
  });

  test("tailLines on a file larger than one read block finds the start reading backwards", async () => {
    const { files, deps } = setup();
    const long = "x".repeat(1000);
    let text = "";
    for (let i = 0; i < 300; i++) text += line(i % 60, "stdout", "F", `${i} ${long}`);
    files.append(PATH, text);
    const out = (await readAll(deps, opts({ tail: 2 }))).split("\n");
    expect(out.map((l) => l.split(" ")[0])).toEqual(["298", "299", ""]);
  });

  test("limitBytes cuts at the limit, prefixes included", async () => {
    const { files, deps } = setup();
    files.append(PATH, ten);
    expect(await readAll(deps, opts({ bytes: 10 }))).toBe("line 1\nlin");
    expect(await readAll(deps, opts({ bytes: 35, timestamps: true }))).toBe(`${T(1)} line 1\n`.slice(0, 35));
  });

  test("sinceSeconds / sinceTime skip older lines (to the nanosecond); the later of the two wins", async () => {
    const { files, deps, clock } = setup();
    files.append(PATH, `${T(5, "000000001")} stdout F a\n${T(5, "999999999")} stdout F b\n${T(7)} stdout F c\n`);
    const since = (o: object) => toLogOptions(o, clock.now());
    // now is 00:01:00; 55 s ago is 00:00:05.000000000.
    expect(await readAll(deps, since({ sinceSeconds: 55 }))).toBe("a\nb\nc\n");
    expect(await readAll(deps, since({ sinceTime: "2026-01-01T00:00:06Z" }))).toBe("c\n");
    expect(await readAll(deps, since({ sinceTime: "2026-01-01T00:00:05.5Z" }))).toBe("b\nc\n");
  });

  test("tail and since together: the last N, then filtered", async () => {
    const { files, deps } = setup();
    files.append(PATH, ten);
    expect(await readAll(deps, { ...opts({ tail: 3 }), ...toLogOptions({ tailLines: 3, sinceTime: T(9) }, 0) })).toBe("line 9\nline 10\n");
  });
});

describe("follow", () => {
  test("new lines are streamed as they are written, partial lines only once complete", async () => {
    const { files, deps, state, clock } = setup();
    files.append(PATH, line(1, "stdout", "F", "old"));
    const f = follow(deps, opts({ tail: 0 }));
    await flushMicrotasks();
    expect(f.got.text).toBe("");
    files.append(PATH, line(2, "stdout", "F", "new 1"));
    await flushMicrotasks();
    expect(f.got.text).toBe("new 1\n");
    files.append(PATH, line(3, "stdout", "P", "half "));
    await flushMicrotasks();
    expect(f.got.text).toBe("new 1\n");
    files.append(PATH, `${T(3)} stdout F `);
    await flushMicrotasks();
    expect(f.got.text).toBe("new 1\n");
    files.append(PATH, "and half\n");
    await flushMicrotasks();
    expect(f.got.text).toBe("new 1\nhalf and half\n");
    expect(f.got.done).toBe(false);
    state.running = false;
    // The runtime is asked again once a second has passed since it last said "running".
    await clock.advance(1000);
    await f.run;
    expect(f.got.done).toBe(true);
  });

  test("a followed container that exits with a line it never ended: the fragment is written, then the stream ends", async () => {
    const { files, deps, state, clock } = setup();
    files.append(PATH, line(1, "stdout", "F", "line1"));
    const f = follow(deps, opts());
    await flushMicrotasks();
    expect(f.got.text).toBe("line1\n");
    files.append(PATH, line(2, "stdout", "P", "no-newline-at-end"));
    await flushMicrotasks();
    // While it runs, the rest may still come: nothing of the fragment yet.
    expect(f.got.text).toBe("line1\n");
    state.running = false;
    await clock.advance(1000);
    await f.run;
    expect(f.got).toMatchObject({ text: "line1\nno-newline-at-end", done: true });
  });

  test("a chatty container: the runtime is asked whether it runs at most once a second, not at every write", async () => {
    const { files, deps, state, clock } = setup();
    files.append(PATH, "");
    const f = follow(deps, opts());
    await flushMicrotasks();
    for (let i = 0; i < 50; i++) {
      files.append(PATH, line(1, "stdout", "F", `line ${i}`));
      await flushMicrotasks();
    }
    expect(f.got.text.split("\n")).toHaveLength(51);
    expect(state.statusCalls).toBe(1);
    await clock.advance(1000);
    files.append(PATH, line(2, "stdout", "F", "later"));
    await flushMicrotasks();
    expect(state.statusCalls).toBe(2);
    f.ac.abort();
    await f.run;
  });

  test("without a watch event the file is re-checked every second (logForceCheckPeriod)", async () => {
    const { files, deps, clock } = setup();
    files.append(PATH, "");
    files.autoNotify = false;
    const f = follow(deps, opts());
    await flushMicrotasks();
    files.append(PATH, line(1, "stdout", "F", "quiet write"));
    await clock.advance(999);
    expect(f.got.text).toBe("");
    await clock.advance(1);
    expect(f.got.text).toBe("quiet write\n");
    f.ac.abort();
    await f.run;
  });

  test("rotation: the rest of the old file, then the new file from its start", async () => {
    const { files, deps, state, clock } = setup();
    files.append(PATH, line(1, "stdout", "F", "a"));
    const f = follow(deps, opts());
    await flushMicrotasks();
    expect(f.got.text).toBe("a\n");
    // Written just before the rename, not yet read.
    files.autoNotify = false;
    files.append(PATH, line(2, "stdout", "F", "b (old file)"));
    files.autoNotify = true;
    files.rotate(PATH, `${PATH}.20260101-000003`);
    await flushMicrotasks();
    files.append(PATH, line(4, "stdout", "F", "c (new file)"));
    await flushMicrotasks();
    expect(f.got.text).toBe("a\nb (old file)\nc (new file)\n");
    // The old file's handle is closed once the new one is open.
    expect(files.openHandles).toBe(1);
    state.running = false;
    await clock.advance(1000);
    await f.run;
    expect(files.openHandles).toBe(0);
  });

  test("rotation before the new file exists: keeps waiting, switches once it is there", async () => {
    const { files, deps, clock } = setup();
    files.append(PATH, line(1, "stdout", "F", "a"));
    const f = follow(deps, opts());
    await flushMicrotasks();
    files.rotate(PATH, `${PATH}.1`, false);
    await clock.advance(1000);
    expect(f.got.done).toBe(false);
    files.append(PATH, line(2, "stdout", "F", "b"));
    await flushMicrotasks();
    expect(f.got.text).toBe("a\nb\n");
    f.ac.abort();
    await f.run;
  });

  test("the container exited: what it wrote is read to the end, then the stream ends", async () => {
    const { files, deps, state, clock } = setup();
    files.append(PATH, line(1, "stdout", "F", "a"));
    const f = follow(deps, opts());
    await flushMicrotasks();
    files.autoNotify = false;
    files.append(PATH, line(2, "stdout", "F", "last words"));
    state.running = false;
    await clock.advance(1000);
    await f.run;
    expect(f.got.text).toBe("a\nlast words\n");
    expect(f.got.done).toBe(true);
  });

  test("a runtime that cannot say (the container was removed) ends the stream as an exit does", async () => {
    const { files, deps } = setup();
    files.append(PATH, line(1, "stdout", "F", "a"));
    deps.isRunning = async () => {
      throw new Error("NotFound");
    };
    const f = follow(deps, opts());
    await f.run;
    expect(f.got).toMatchObject({ text: "a\n", done: true });
  });

  test("the client going away ends the wait at once and leaves no watch, timer or open file", async () => {
    const { files, deps, clock } = setup();
    files.append(PATH, line(1, "stdout", "F", "a"));
    const f = follow(deps, opts());
    await flushMicrotasks();
    expect(files.liveWatches).toBe(1);
    expect(clock.pending()).toBe(1);
    f.ac.abort();
    await f.run;
    expect(f.got.done).toBe(true);
    expect(files.liveWatches).toBe(0);
    expect(clock.pending()).toBe(0);
    expect(files.openHandles).toBe(0);
  });

  test("a reader stopped by its consumer (return()) closes everything too", async () => {
    const { files, deps, clock } = setup();
    files.append(PATH, line(1, "stdout", "F", "a") + line(2, "stdout", "F", "b"));
    const ac = new AbortController();
    const { lines } = await openLogs(PATH, opts({ follow: true }), deps, ac.signal);
    const first = await lines.next();
    expect(new TextDecoder().decode(first.value as Uint8Array)).toBe("a\nb\n");
    const pending = lines.next();
    await flushMicrotasks();
    ac.abort();
    await pending;
    await lines.return();
    expect(files.liveWatches).toBe(0);
    expect(clock.pending()).toBe(0);
    expect(files.openHandles).toBe(0);
  });

  test("limitBytes ends a follow too", async () => {
    const { files, deps } = setup();
    files.append(PATH, line(1, "stdout", "F", "abc"));
    const f = follow(deps, opts({ bytes: 6 }));
    await flushMicrotasks();
    files.append(PATH, line(2, "stdout", "F", "defgh"));
    await f.run;
    expect(f.got.text).toBe("abc\nde");
  });

  test("a missing file is an error at open, before any output", async () => {
    const { deps } = setup();
    await expect(openLogs(PATH, opts(), deps, new AbortController().signal)).rejects.toThrow("ENOENT");
  });
});
