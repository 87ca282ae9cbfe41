// `nodeagent staticpod lint`: what the kubelet would reject in static pod manifests, and what would
// hurt, with file:line:col. Thin: arguments, configuration, output; the work is in src/lint.
import { defineCommand, type ArgsDef, type ParsedArgs } from "citty";
import pkg from "../package.json" with { type: "json" };
import {
  ConfigError,
  exitCodeFor,
  findConfig,
  formatResult,
  InputError,
  lintInWorkers,
  loadConfig,
  OUTPUT_FORMATS,
  RULES,
  runLint,
  SEVERITIES,
  type LintConfig,
  type OutputFormat,
  type Severity,
} from "../src/lint";
import { EXIT_USAGE, UsageError } from "./exit";

/** Writes to stdout and waits until it is flushed: main() exits right after, which would cut a pipe short. */
function writeOut(text: string): Promise<void> {
  return new Promise((resolve, reject) => process.stdout.write(text, (err) => (err ? reject(err) : resolve())));
}

function listRules(json: boolean): string {
  if (json) return JSON.stringify(RULES, null, 2) + "\n";
  const lines: string[] = [];
  for (const r of RULES) {
    lines.push(`${r.id.padEnd(26)} ${r.severity.padEnd(8)} ${r.summary}${r.controlPlaneExempt ? " (control-plane pods exempt)" : ""}`);
    lines.push(`    ${r.description}`);
    lines.push(`    hint: ${r.hint}`);
    lines.push("");
  }
  return lines.join("\n");
}

function configFor(path: string | undefined): LintConfig {
  try {
    const found = path ?? findConfig(process.cwd());
    return found ? loadConfig(found) : { rules: {} };
  } catch (e) {
    if (e instanceof ConfigError) throw new UsageError(e.message);
    throw e;
  }
}

function jobsOf(value: string | undefined): number {
  if (value === undefined) return 1;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 256) throw new UsageError(`--jobs ${JSON.stringify(value)}: give a whole number from 1 to 256`);
  return n;
}

const lintArgs = {
  recursive: { type: "boolean", alias: "R", description: "Walk directories recursively (a repository, not a manifest directory)" },
  "node-name": { type: "string", description: "The node's name: check the pod name the kubelet derives, <name>-<node-name>" },
  output: { type: "enum", alias: "o", options: [...OUTPUT_FORMATS], default: "text", description: OUTPUT_FORMATS.join(" | ") },
  "fail-on": { type: "enum", options: [...SEVERITIES], description: "Exit 1 on findings at least this severe: error (default) | warning | info" },
  config: { type: "string", description: "Configuration file (default: .nodeagent-lint.yaml in this directory or a parent)" },
  jobs: { type: "string", alias: "j", description: "Lint with up to this many threads, one per 2,000 files (default 1); the output is the same" },
  "stdin-name": { type: "string", description: "The file name findings give standard input (default <stdin>)" },
  "list-rules": { type: "boolean", description: "Print every rule with its severity, meaning and hint" },
  paths: { type: "positional", required: false, valueHint: "PATH", description: "Manifest files and directories, or - for standard input" },
} as const satisfies ArgsDef;

type LintArgs = ParsedArgs<typeof lintArgs>;

async function lintCommand(args: LintArgs): Promise<number> {
  const format = args.output as OutputFormat;
  if (args["list-rules"]) {
    await writeOut(listRules(format === "json"));
    return 0;
  }
  const paths = args._.map(String);
  if (paths.length === 0) throw new UsageError("give the manifests to check: files, directories, or - for standard input");
  if (paths.filter((p) => p === "-").length > 1) throw new UsageError("standard input (-) can be read only once");
  const config = configFor(args.config);
  const failOn = (args["fail-on"] as Severity | undefined) ?? config.failOn ?? "error";
  const jobs = jobsOf(args.jobs);
  try {
    const result = await runLint(paths, {
      config,
      jobs,
      lintElsewhere: lintInWorkers(),
      ...(args.recursive ? { recursive: true } : {}),
      ...(args["node-name"] ? { nodeName: args["node-name"] } : {}),
      ...(args["stdin-name"] ? { stdinName: args["stdin-name"] } : {}),
    });
    const color = format === "text" && process.stdout.isTTY === true && !process.env.NO_COLOR;
    await writeOut(formatResult(result, format, { failOn, toolVersion: pkg.version, color }));
    return exitCodeFor(result, failOn);
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    console.error(`error: ${e.message}`);
    return EXIT_USAGE;
  }
}

const lint = defineCommand({
  meta: {
    name: "lint",
    description: `Check static pod manifests for what the kubelet would reject, and for what would hurt.

Files are read as the kubelet reads a manifest directory: every file whose name does not start with a
dot, whatever its extension, without recursion (--recursive walks a repository instead, taking .yaml,
.yml and .json files). "-" reads standard input. Errors are what the kubelet rejects, worded as it
words them; warnings are what it runs but should not. Each finding has file:line:col, the field path,
a rule id and a hint; --list-rules documents every rule.

Configuration: .nodeagent-lint.yaml, found upward from the working directory or named by --config:
  rules:
    latest-tag: error            # error | warning | info | off
    missing-readiness-probe: off
  failOn: warning
A pod can turn rules off for itself with the annotation  lint.nodeagent.io/ignore: rule-id,rule-id

Examples:
  nodeagent staticpod lint /etc/kubernetes/manifests --node-name "$(hostname)"
  nodeagent staticpod lint -R deploy/ -o sarif > lint.sarif
  nodeagent staticpod lint -R . -o github --fail-on warning
  git show HEAD:manifests/web.yaml | nodeagent staticpod lint - --stdin-name web.yaml
  nodeagent staticpod lint --list-rules

Exit status: 0 no findings at or above --fail-on (default error), 1 findings, 2 usage or I/O error.`,
  },
  args: lintArgs,
  run: ({ args }) => lintCommand(args),
});

export const staticpodCommand = defineCommand({
  meta: { name: "staticpod", description: "Static pod manifests (see `nodeagent staticpod lint --help`)" },
  subCommands: { lint },
});
