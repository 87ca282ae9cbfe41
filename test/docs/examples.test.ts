// The examples in README.md and docs/**/*.md are checked, so that a doc cannot drift from the binary:
//  - every `nodeagent …` command in a code block is parsed against the real command tree by the
//    command layer's strict parser: a command that does not exist, a flag the command does not take,
//    a bad enum value, or a deprecated spelling fails here with the doc's file and line;
//  - every `make TARGET` is a target of the Makefile;
//  - every relative link between the docs leads to a file that exists;
//  - the blocks marked ```console run are run from the repository root (the source, through bun: no
//    build needed) and must print what the block shows.
// The examples that need a node (make run's pods, the API, probe run) are run by test/e2e/examples.test.ts.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { commandOf, metaOf, subCommandsOf, type Command } from "../../cmd/help";
import { root } from "../../cmd/nodeagent";
import { checkMake, checkNodeagent, codeBlocks, docFiles, examples, isNodeagent, makeTargets, simpleCommands, where, type Example } from "./doc-examples";

const REPO = resolve(import.meta.dir, "../..");
/** Files linked before they exist on this branch: docs/agent-settings.md comes with the settings table (issue 25). */

const files = docFiles(REPO);
const all: Example[] = files.flatMap((f) => codeBlocks(f, readFileSync(join(REPO, f), "utf8")).flatMap(examples));

describe("the examples' commands", () => {
  test("the docs have examples to check (README.md and docs/commands/*.md among them)", () => {
    const withNodeagent = new Set(all.filter((e) => simpleCommands(e.text).some(isNodeagent)).map((e) => e.file));
    expect(withNodeagent.has("README.md")).toBe(true);
    for (const page of ["agent", "logs", "exec", "events", "hollow", "pleg", "probe", "schedule", "staticpod"])
      expect(withNodeagent.has(`docs/commands/${page}.md`)).toBe(true);
  });

  test("every nodeagent command parses: the command exists and takes every flag as written", async () => {
    const problems: string[] = [];
    for (const e of all) {
      for (const words of simpleCommands(e.text)) {
        if (!isNodeagent(words)) continue;
        const problem = await checkNodeagent(root, words);
        if (problem) problems.push(`${where(REPO, e)}: ${e.text}\n  ${problem}`);
      }
    }
    expect(problems).toEqual([]);
  });

  test("every make target named is in the Makefile", () => {
    const targets = makeTargets(REPO);
    const problems = all.flatMap((e) =>
      simpleCommands(e.text)
        .filter((w) => w[0] === "make")
        .map((w) => checkMake(targets, w))
        .filter((p): p is string => p !== undefined)
        .map((p) => `${where(REPO, e)}: ${p}`),
    );
    expect(problems).toEqual([]);
  });

  test("every relative link between the docs leads to a file", () => {
    const broken: string[] = [];
    for (const f of files) {
      const text = readFileSync(join(REPO, f), "utf8");
      for (const m of text.matchAll(/\]\(([^)\s#]+)(#[^)]*)?\)/g)) {
        const target = m[1]!;
        if (/^[a-z]+:/.test(target)) continue;
        const path = join(dirname(f), target);
        if (!existsSync(join(REPO, path))) broken.push(`${f}: ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });
});

test("every nodeagent example in the commands' --help parses too", async () => {
  const problems: string[] = [];
  const visit = async (c: Command, path: string) => {
    const cmd = await commandOf(c);
    const description = (await metaOf(cmd)).description ?? "";
    // An example line: indented, starting with nodeagent (or kubectl …; nodeagent …); the root's
    // examples have their explanation after two or more spaces.
    for (const line of description.split("\n")) {
      if (!/^\s+(nodeagent|kubectl) /.test(line)) continue;
      for (const words of simpleCommands(line.trim().split(/\s{2,}/)[0]!)) {
        if (!isNodeagent(words)) continue;
        const problem = await checkNodeagent(root, words);
        if (problem) problems.push(`${path} --help: ${line.trim()}\n  ${problem}`);
      }
    }
    for (const [name, sub] of Object.entries((await subCommandsOf(cmd)) ?? {})) await visit(sub, `${path} ${name}`);
  };
  await visit(root, "nodeagent");
  expect(problems).toEqual([]);
});

describe("the checker fails a wrong example", () => {
  const block = (text: string) => codeBlocks("x.md", text).flatMap(examples);
  const problemsOf = async (text: string) => {
    const out: string[] = [];
    for (const e of block(text)) for (const w of simpleCommands(e.text)) if (isNodeagent(w)) out.push((await checkNodeagent(root, w)) ?? "ok");
    return out;
  };

  test("a misspelt flag, an unknown command, a bad value and a deprecated spelling are problems", async () => {
    expect(await problemsOf("```sh\nnodeagent logs --tokn-file t default/web\n```")).toEqual([
      "unknown flag --tokn-file for nodeagent logs; did you mean --token-file?",
    ]);
    expect((await problemsOf("```sh\nnodeagent plg watch\n```"))[0]).toContain('no command "plg"');
    expect((await problemsOf("```console\n$ nodeagent events -o yaml\nout\n```"))[0]).toContain('invalid value "yaml" for --output');
    expect(await problemsOf("```sh\nnodeagent probe run --push-token-file t --pod web --probe readiness\n```")).toEqual([
      "--push-token-file is deprecated for nodeagent probe run: use --token-file",
    ]);
  });

  test("pipes, substitutions, quotes, comments, continuations and env prefixes are read as a shell reads them", async () => {
    const text = "```console\n$ X=1 dist/nodeagent events --for node/$(hostname) \\\n    -o json | jq -r '.items[] | .message' # all\nout\n```";
    const [e] = block(text);
    expect(e!.output).toEqual(["out"]);
    expect(simpleCommands(e!.text)).toEqual([
      ["dist/nodeagent", "events", "--for", "node/$(hostname)", "-o", "json"],
      ["jq", "-r", ".items[] | .message"],
    ]);
    expect(await problemsOf(text)).toEqual(["ok"]);
  });

  test("a make target the Makefile lacks is a problem", () => {
    expect(checkMake(new Set(["run", "test"]), ["make", "run"])).toBeUndefined();
    expect(checkMake(new Set(["run", "test"]), ["make", "bench-footprint", "BASELINE=x"])).toBe("make: no target bench-footprint in the Makefile");
  });
});

describe("the runnable examples print what the docs show", () => {
  const runnable = all.filter((e) => e.block.info.includes("run"));

  test("there are some", () => {
    expect(runnable.length).toBeGreaterThan(0);
  });

  for (const e of runnable) {
    test(`${where(REPO, e)}: ${e.text}`, () => {
      const [words, ...more] = simpleCommands(e.text);
      expect(more).toEqual([]); // a runnable example is one nodeagent command
      expect(isNodeagent(words!)).toBe(true);
      const proc = Bun.spawnSync([process.execPath, join(REPO, "cmd/nodeagent.ts"), ...words!.slice(1)], {
        cwd: REPO,
        env: { ...process.env, NO_COLOR: "1" },
        stdout: "pipe",
        stderr: "pipe",
      });
      expect(proc.stdout.toString().trimEnd()).toBe(e.output.join("\n").trimEnd());
    }, 30_000);
  }
});
