// scripts/conformance/results.ts: the bookkeeping `make conformance` trusts for its side-by-side lists,
// run as the script runs there, on Ginkgo v2 reports written here.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const SCRIPT = join(import.meta.dir, "../../scripts/conformance/results.ts");
const dir = mkdtempSync(join(tmpdir(), "conformance-results-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const spec = (container: string, it: string, State: string, Message?: string) => ({
  ContainerHierarchyTexts: [container],
  LeafNodeText: it,
  LeafNodeType: "It",
  State,
  RunTime: 2_500_000_000,
  ...(Message ? { Failure: { Message, Location: { FileName: "test/e2e/common/node/pods.go", LineNumber: 42 } } } : {}),
});
const report = (name: string, specs: unknown[]) => {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify([{ SuiteDescription: "Kubernetes e2e suite", SpecReports: specs }]));
  return path;
};
function run(...args: string[]): { code: number; out: string } {
  const p = Bun.spawnSync([process.execPath, SCRIPT, ...args]);
  return { code: p.exitCode, out: p.stdout.toString() };
}

describe("conformance results.ts", () => {
  const names = join(dir, "names.txt");
  writeFileSync(
    names,
    ["[sig-node] Pods should run [NodeConformance]", "[sig-node] Pods should flake [NodeConformance]", "[sig-node] Pods never ran [NodeConformance]"].join(
      "\n",
    ),
  );

  test("collect: the last result of each planned test wins (a rerun after the run), unplanned and focus-skipped ones are left out, a test no report has is a FAIL", () => {
    const shard = report("shard.json", [
      spec("[sig-node] Pods", "should run [NodeConformance]", "passed"),
      spec("[sig-node] Pods", "should flake [NodeConformance]", "failed", 'expected "Running"\nbut got "Pending"'),
      spec("[sig-node] Pods", "is not planned", "failed", "whatever"),
      spec("[sig-node] Pods", "never ran [NodeConformance]", "skipped"),
    ]);
    const rerun = report("rerun.json", [spec("[sig-node] Pods", "should flake [NodeConformance]", "passed")]);
    const out = join(dir, "out");
    rmSync(out, { recursive: true, force: true });
    Bun.spawnSync(["mkdir", "-p", out]);
    const r = run("collect", out, names, shard, rerun);
    expect(r.code).toBe(0);
    expect(r.out).toBe("2 passed, 1 failed, 0 skipped of 3\n");
    expect(readFileSync(join(out, "results.txt"), "utf8")).toBe(
      [
        "FAIL [sig-node] Pods never ran [NodeConformance]",
        "PASS [sig-node] Pods should flake [NodeConformance]",
        "PASS [sig-node] Pods should run [NodeConformance]",
        "",
      ].join("\n"),
    );
    expect(readFileSync(join(out, "reruns.txt"), "utf8")).toBe("FAIL -> PASS [sig-node] Pods should flake [NodeConformance]\n");
    const junit = readFileSync(join(out, "junit.xml"), "utf8");
    expect(junit).toContain('tests="3" failures="1" skipped="0"');
    expect(junit).toContain("not run: no report has a result for it");
  });

  test("compare: counts, and the failure of each test that passes on the control only", () => {
    const control = join(dir, "control");
    const other = join(dir, "other");
    for (const d of [control, other]) Bun.spawnSync(["mkdir", "-p", d]);
    run(
      "collect",
      control,
      names,
      report(
        "c.json",
        ["should run", "should flake", "never ran"].map((t) => spec("[sig-node] Pods", `${t} [NodeConformance]`, "passed")),
      ),
    );
    run(
      "collect",
      other,
      names,
      report("o.json", [
        spec("[sig-node] Pods", "should run [NodeConformance]", "passed"),
        spec("[sig-node] Pods", "should flake [NodeConformance]", "failed", "perms -rwxr-xr-x\nwanted -rwxrwxrwx"),
        spec("[sig-node] Pods", "never ran [NodeConformance]", "passed"),
      ]),
    );
    const r = run("compare", control, other, "kubelet", "nodeagent");
    expect(r.code).toBe(0);
    expect(r.out).toContain("| PASS | 3 | 2 |");
    expect(r.out).toContain("Pass on kubelet, not on nodeagent: 1. Pass on nodeagent only: 0. Fail on both: 0.");
    expect(r.out).toContain("### [sig-node] Pods should flake [NodeConformance]");
    expect(r.out).toContain("perms -rwxr-xr-x");
  });

  test("a wrong call is exit 2 with the usage", () => {
    expect(run("collect").code).toBe(2);
  });
});
