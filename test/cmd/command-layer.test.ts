// The command layer (cmd/main.ts, cmd/flags.ts, cmd/help.ts): every subcommand of the real command
// tree refuses an unknown flag and a stray argument with exit 2 and a suggestion before its run is
// called, and one exit-code path maps what a run returns or throws to 0, 1 or 2.
import { describe, expect, test } from "bun:test";
import { defineCommand, type ArgsDef } from "citty";
import { UsageError } from "../../cmd/exit";
import { parseCommandLine } from "../../cmd/flags";
import { runCli, invocation } from "../../cmd/main";
import { root } from "../../cmd/nodeagent";
import { ConfigError } from "../../src/util/errors";

/** Runs the command line against `tree`, capturing stdout and stderr. */
async function cli(argv: string[], tree: Parameters<typeof runCli>[0] = root) {
  let out = "";
  let err = "";
  const code = await runCli(tree, argv, { out: (t) => void (out += t), err: (t) => void (err += t) });
  return { code, out, err };
}

/** Every leaf command of the real tree, with a flag it has and whether it takes operands. */
const LEAVES: Array<{ path: string[]; typo: string; meant: string; operands: boolean }> = [
  { path: ["agent"], typo: "--pod-manifest-paht", meant: "--pod-manifest-path", operands: false },
  { path: ["hollow"], typo: "--name-prefx", meant: "--name-prefix", operands: false },
  { path: ["pleg", "watch"], typo: "--relist-perod", meant: "--relist-period", operands: false },
  { path: ["probe", "run"], typo: "--failure-treshold", meant: "--failure-threshold", operands: true },
  { path: ["schedule"], typo: "--clustr", meant: "--cluster", operands: true },
  { path: ["staticpod", "lint"], typo: "--failon", meant: "--fail-on", operands: true },
];

describe("strict parsing, for every subcommand", () => {
  for (const leaf of LEAVES) {
    const name = leaf.path.join(" ");
    test(`${name}: an unknown flag is exit 2, named, with the flag meant`, async () => {
      const r = await cli([...leaf.path, leaf.typo, "x"]);
      expect(r.code).toBe(2);
      expect(r.err).toBe(`error: unknown flag ${leaf.typo} for nodeagent ${name}; did you mean ${leaf.meant}?\nRun 'nodeagent ${name} --help' for usage.\n`);
      expect(r.out).toBe("");
    });

    test(`${name}: a flag nothing is close to is named without a suggestion`, async () => {
      const r = await cli([...leaf.path, "--bogus-flag"]);
      expect(r.code).toBe(2);
      expect(r.err).toStartWith(`error: unknown flag --bogus-flag for nodeagent ${name}\n`);
    });

    if (!leaf.operands) {
      test(`${name}: a stray argument is exit 2`, async () => {
        const r = await cli([...leaf.path, "examples/manifests"]);
        expect(r.code).toBe(2);
        expect(r.err).toStartWith(`error: unexpected argument "examples/manifests": nodeagent ${name} takes no arguments, only flags (--name value)\n`);
      });
    }

    test(`${name}: --help shows its examples, exit 0`, async () => {
      const r = await cli([...leaf.path, "--bogus", "--help"]);
      expect(r.code).toBe(0);
      expect(r.out).toContain("Examples:\n");
      expect(r.out).toContain(`Usage:\n  nodeagent ${name}`);
      expect(r.out).toContain(`  -h, --help`);
    });
  }

  test("probe run: words before -- without --exec are a usage error naming them", async () => {
    const r = await cli(["probe", "run", "--pod", "web", "--probe", "readiness", "stray"]);
    expect(r.code).toBe(2);
    expect(r.err).toStartWith("error: unexpected arguments: stray\n");
  });

  test("staticpod lint --failon warning is an unknown flag, not a file named warning", async () => {
    const r = await cli(["staticpod", "lint", "--failon", "warning"]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("did you mean --fail-on?");
    expect(r.err).not.toContain("no such file");
  });

  test("values are checked as the flags are read: an enum with the value meant, a missing value", async () => {
    expect((await cli(["pleg", "watch", "--mode", "evnted"])).err).toStartWith(
      `error: invalid value "evnted" for --mode: use auto, generic, evented (did you mean evented?)\n`,
    );
    expect((await cli(["agent", "--port"])).err).toStartWith("error: --port needs a value\n");
    expect((await cli(["agent", "--pod-manifest-path", "--port", "0"])).err).toStartWith(
      "error: --pod-manifest-path needs a value (--port is a flag; write --pod-manifest-path=--port if it is the value)\n",
    );
  });

  test("agent: --max-pods abc and --port abc are usage errors before anything starts", async () => {
    expect(await cli(["agent", "--max-pods", "abc"])).toEqual({
      code: 2,
      out: "",
      err: `error: --max-pods "abc": expected a whole number from 0 to 1000000\n`,
    });
    expect(await cli(["agent", "--port", "abc"])).toEqual({ code: 2, out: "", err: `error: --port "abc": expected a whole number from 0 to 65535\n` });
    expect(await cli(["agent", "--pod-manifest-path", "/no/such/dir"])).toEqual({
      code: 2,
      out: "",
      err: `error: --pod-manifest-path "/no/such/dir": no such file or directory\n`,
    });
  });

  test("commands: an unknown one with the one meant; a group alone shows its help on stderr, exit 2", async () => {
    expect((await cli(["plg", "watch"])).err).toStartWith(
      `error: unknown command "plg" for nodeagent; did you mean pleg? (commands: agent, events, exec, hollow, logs, pleg, probe, schedule, staticpod)\n`,
    );
    expect((await cli(["pleg", "wach"])).err).toStartWith(`error: unknown command "wach" for nodeagent pleg; did you mean watch?`);
    const group = await cli(["pleg"]);
    expect(group.code).toBe(2);
    expect(group.err).toContain("Commands:\n  watch");
  });
});

describe("help", () => {
  test("the root lists its commands one line each, and stays small", async () => {
    const r = await cli(["--help"]);
    expect(r.code).toBe(0);
    expect(r.out.length).toBeLessThan(3_000);
    expect(Math.max(...r.out.split("\n").map((l) => l.length))).toBeLessThan(160);
    for (const c of ["agent", "pleg", "probe", "schedule", "staticpod"]) expect(r.out).toMatch(new RegExp(`^  ${c} +\\S.*$`, "m"));
  });

  test("--version alone prints the version", async () => {
    const r = await cli(["--version"]);
    expect(r).toEqual({ code: 0, out: `${(await import("../../package.json")).version}\n`, err: "" });
  });
});

describe("one exit-code path", () => {
  const tree = (run: () => unknown) =>
    defineCommand({
      meta: { name: "t" },
      subCommands: { sub: defineCommand({ meta: { name: "sub", description: "s" }, args: { n: { type: "string" } }, run }) },
    });

  test("a subcommand's returned status is the exit status (citty dropped it)", async () => {
    expect(
      (
        await cli(
          ["sub"],
          tree(() => 1),
        )
      ).code,
    ).toBe(1);
    expect(
      (
        await cli(
          ["sub"],
          tree(async () => 3),
        )
      ).code,
    ).toBe(3);
    expect(
      (
        await cli(
          ["sub"],
          tree(() => undefined),
        )
      ).code,
    ).toBe(0);
  });

  test("a ConfigError from src is exit 2 with its message alone; a UsageError adds the pointer to --help; anything else is 1", async () => {
    expect(
      await cli(
        ["sub"],
        tree(() => {
          throw new ConfigError("config.yaml:3:1: maxPods: bad");
        }),
      ),
    ).toEqual({ code: 2, out: "", err: "error: config.yaml:3:1: maxPods: bad\n" });
    expect(
      await cli(
        ["sub"],
        tree(() => {
          throw new UsageError("--a and --b exclude each other");
        }),
      ),
    ).toEqual({ code: 2, out: "", err: "error: --a and --b exclude each other\nRun 't sub --help' for usage.\n" });
    expect(
      await cli(
        ["sub"],
        tree(() => {
          throw new Error("listen EADDRINUSE");
        }),
      ),
    ).toEqual({ code: 1, out: "", err: "error: listen EADDRINUSE\n" });
  });

  test("a run is not called when the command line is wrong", async () => {
    let calls = 0;
    const t = tree(() => void calls++);
    expect((await cli(["sub", "--m", "1"], t)).code).toBe(2);
    expect((await cli(["sub", "stray"], t)).code).toBe(2);
    expect(calls).toBe(0);
    expect((await cli(["sub", "--n", "1"], t)).code).toBe(0);
    expect(calls).toBe(1);
  });

  test("the run sees which flags were given and every value of a repeated one", async () => {
    let seen: unknown;
    const t = defineCommand({
      meta: { name: "t" },
      args: { node: { type: "string" }, port: { type: "string", default: "10250" } },
      run: (ctx) => void (seen = { given: [...invocation(ctx).given], all: invocation(ctx).all("node"), port: ctx.args.port }),
    });
    await cli(["--node", "a", "--node=b"], t);
    expect(seen).toEqual({ given: ["node"], all: ["a", "b"], port: "10250" });
  });
});

describe("parseCommandLine", () => {
  const def: ArgsDef = {
    output: { type: "enum", alias: "o", options: ["table", "json"], default: "table" },
    watch: { type: "boolean" },
    period: { type: "string" },
    paths: { type: "positional", required: false },
  };

  test("the forms pflag accepts", () => {
    const p = parseCommandLine(def, ["-o", "json", "--watch", "--period=2s", "a", "-", "--", "--not-a-flag"], "t");
    expect(p.args).toMatchObject({ output: "json", watch: true, period: "2s", _: ["a", "-", "--not-a-flag"], paths: "a" });
    expect([...p.given].sort()).toEqual(["output", "period", "watch"]);
    expect(parseCommandLine(def, ["-ojson", "--no-watch"], "t").args).toMatchObject({ output: "json", watch: false });
    expect(parseCommandLine(def, ["--watch=false"], "t").args.watch).toBe(false);
    expect(parseCommandLine(def, [], "t").args).toMatchObject({ output: "table", _: [] });
  });

  test("a camelCase or underscored spelling suggests the flag", () => {
    expect(() => parseCommandLine({ "pod-manifest-path": { type: "string" } }, ["--podManifestPath", "x"], "t")).toThrow("did you mean --pod-manifest-path?");
    expect(() => parseCommandLine({ "pod-manifest-path": { type: "string" } }, ["--pod_manifest_path=x"], "t")).toThrow("did you mean --pod-manifest-path?");
  });

  test("a boolean takes no other value; an unknown short flag is named", () => {
    expect(() => parseCommandLine(def, ["--watch=yes"], "t")).toThrow("--watch=yes: --watch is true or false");
    expect(() => parseCommandLine(def, ["-x"], "t")).toThrow("unknown flag -x for t");
  });
});
