// One-letter boolean flags given together, as pflag and kubectl take them: `exec -it` is `-i -t`
// (the example `nodeagent exec --help` and the root help give was a usage error before).
import { expect, test } from "bun:test";
import type { ArgsDef } from "citty";
import { parseCommandLine } from "../../cmd/flags";
import { runCli } from "../../cmd/main";
import { root } from "../../cmd/nodeagent";

const def: ArgsDef = {
  stdin: { type: "boolean", alias: "i" },
  tty: { type: "boolean", alias: "t" },
  output: { type: "enum", alias: "o", options: ["table", "json"], default: "table" },
  cmd: { type: "positional", required: false },
};

test("-it sets both booleans; a group may end in a flag with a value", () => {
  expect(parseCommandLine(def, ["-it", "pod"], "t").args).toMatchObject({ stdin: true, tty: true, _: ["pod"] });
  expect(parseCommandLine(def, ["-ti"], "t").args).toMatchObject({ stdin: true, tty: true });
  expect(parseCommandLine(def, ["-iojson"], "t").args).toMatchObject({ stdin: true, output: "json" });
  expect(parseCommandLine(def, ["-io", "json"], "t").args).toMatchObject({ stdin: true, output: "json" });
  expect(parseCommandLine(def, ["-i=false"], "t").args.stdin).toBe(false);
});

test("an unknown letter in a group is named", () => {
  expect(() => parseCommandLine(def, ["-ix"], "t")).toThrow("unknown flag -x for t");
});

test("nodeagent exec -it parses (it fails later, on the agent it cannot reach, not on its flags)", async () => {
  let err = "";
  const code = await runCli(root, ["exec", "-it", "--server", "https://127.0.0.1:1", "--certificate-authority", "/nonexistent", "default/web", "--", "sh"], {
    out: () => {},
    err: (t) => void (err += t),
  });
  expect(err).not.toContain("true or false");
  expect(err).toContain("--certificate-authority");
  expect(code).toBe(2);
});
