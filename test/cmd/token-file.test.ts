// One name for the agent's credential in every client command: --token-file. The old spelling some
// of them had (--push-token-file, the agent's own flag for that file) still works, out of --help, and
// warns; the agent itself keeps --push-token-file.
import { describe, expect, test } from "bun:test";
import type { ArgsDef } from "citty";
import { parseCommandLine, withDeprecatedAlias } from "../../cmd/flags";
import { runCli } from "../../cmd/main";
import { root } from "../../cmd/nodeagent";

async function cli(argv: string[]) {
  let out = "";
  let err = "";
  const code = await runCli(root, argv, { out: (t) => void (out += t), err: (t) => void (err += t) });
  return { code, out, err };
}

describe("withDeprecatedAlias", () => {
  const def: ArgsDef = { "token-file": withDeprecatedAlias({ type: "string" }, "push-token-file"), watch: { type: "boolean" } };

  test("the old spelling sets the new flag and reports a warning; the new one does not", () => {
    const old = parseCommandLine(def, ["--push-token-file", "/t"], "t");
    expect(old.args["token-file"]).toBe("/t");
    expect([...old.given]).toEqual(["token-file"]);
    expect(old.warnings).toEqual(["--push-token-file is deprecated for t: use --token-file"]);
    expect(parseCommandLine(def, ["--push-token-file=/u"], "t").args["token-file"]).toBe("/u");
    expect(parseCommandLine(def, ["--token-file", "/t"], "t").warnings).toEqual([]);
  });

  test("it is not a suggestion and not an alias of anything else", () => {
    expect(() => parseCommandLine({ watch: { type: "boolean" } }, ["--push-token-file", "/t"], "t")).toThrow("unknown flag --push-token-file");
  });
});

const CLIENTS: string[][] = [["logs"], ["exec"], ["events"], ["pleg", "watch"], ["probe", "run"], ["schedule"]];

describe("the client commands", () => {
  for (const path of CLIENTS) {
    test(`${path.join(" ")} --help shows --token-file and not --push-token-file`, async () => {
      const r = await cli([...path, "--help"]);
      expect(r.code).toBe(0);
      expect(r.out).toMatch(/^ {2}--token-file\b/m);
      expect(r.out).not.toMatch(/^ {2}[^ ]*--push-token-file/m);
    });
  }

  test("logs: --push-token-file still reads the token file, with a warning", async () => {
    const r = await cli(["logs", "--push-token-file", "/nonexistent/token", "default/web"]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("warning: --push-token-file is deprecated for nodeagent logs: use --token-file\n");
    expect(r.err).toContain("--token-file /nonexistent/token");
  });

  test("schedule --bind: --token-file is the flag it asks for, and the old spelling fills it", async () => {
    const missing = await cli(["schedule", "--node", "http://127.0.0.1:1", "--bind", "pod.yaml"]);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain("--bind needs --token-file");
    const old = await cli(["schedule", "--node", "http://127.0.0.1:1", "--bind", "--push-token-file", "/nonexistent/token", "pod.yaml"]);
    expect(old.code).toBe(2);
    expect(old.err).toContain("warning: --push-token-file is deprecated for nodeagent schedule: use --token-file\n");
    expect(old.err).toContain("error: --token-file /nonexistent/token: ");
  });

  test("the agent keeps --push-token-file as its own flag", async () => {
    const r = await cli(["agent", "--help"]);
    expect(r.out).toContain("--push-token-file");
  });
});
