import { describe, expect, test } from "bun:test";
import { formatResult, type Finding, type LintResult } from "../../src/lint";

function result(findings: Finding[], excerpts: Record<number, string> = {}): LintResult {
  return { reports: [{ file: findings[0]?.file ?? "a.yaml", findings, ignored: [], excerpts }], findings, filesChecked: 1 };
}

const base: Finding = {
  file: "dir/a,b:c.yaml",
  line: 3,
  column: 5,
  endLine: 3,
  endColumn: 9,
  field: "spec.x",
  rule: "unknown-field",
  severity: "warning",
  message: "50% of\nit",
  hint: "fix it",
};
const options = { failOn: "error" as const, toolVersion: "1.2.3" };

describe("reporters escape what they must", () => {
  test("github: %, CR and LF in data; also : and , in properties", () => {
    const out = formatResult(result([base]), "github", options);
    expect(out).toBe(
      "::warning file=dir/a%2Cb%3Ac.yaml,line=3,col=5,endLine=3,endColumn=9,title=unknown-field (nodeagent staticpod lint)::50%25 of%0Ait%0Afix it\n",
    );
  });

  test("junit: markup and characters XML cannot hold", () => {
    const out = formatResult(result([{ ...base, message: `<a href="x">&</a> \u0001 \ud800`, severity: "error" }]), "junit", options);
    expect(out).toContain(`message="&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt; \uFFFD \uFFFD"`);
    expect(out).toContain('failures="1"');
  });

  test("junit: findings below --fail-on pass, carrying their text", () => {
    const out = formatResult(result([base]), "junit", options);
    expect(out).toContain("<system-out>");
    expect(out).not.toContain("<failure");
  });

  test("sarif: URIs are encoded; absolute paths become file URIs", () => {
    const sarif = (file: string): string =>
      JSON.parse(formatResult(result([{ ...base, file }]), "sarif", options)).runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri;
    expect(sarif("dir/a b#1.yaml")).toBe("dir/a%20b%231.yaml");
    expect(sarif("/etc/kubernetes/manifests/etcd.yaml")).toBe("file:///etc/kubernetes/manifests/etcd.yaml");
    expect(sarif("<stdin>")).toBe("%3Cstdin%3E");
  });

  test("text: the caret spans the range and keeps tabs aligned", () => {
    const out = formatResult(result([{ ...base, file: "a.yaml", message: "m" }], { 3: "\t  x: abcd" }), "text", options);
    expect(out).toContain("     3 | \t  x: abcd\n       | \t   ^^^^\n");
    expect(out.trimEnd().split("\n").at(-1)).toBe("! 0 errors, 1 warning, 0 info in 1 file checked (0 clean)");
  });

  test("text: a clean run says so", () => {
    expect(formatResult({ reports: [], findings: [], filesChecked: 3 }, "text", options)).toBe("✓ 3 files checked, no problems\n");
  });
});
