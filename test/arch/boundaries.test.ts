// The module walls of docs/architecture.md, checked on the real tree, and the checker shown to catch
// each kind of breach on a copy of the tree with one planted.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { checkBoundaries, findCycles, MAX_LINES, readDeclarations, readSourceTree, scanImports, type SourceTree } from "./import-graph";

const ROOT = resolve(import.meta.dir, "../..");
const tree = readSourceTree(ROOT);

/** The real tree with `edits` applied: path → new text (appended to the file when `append`). */
function planted(edits: Record<string, string>, append = true): SourceTree {
  const copy = new Map(tree);
  for (const [path, text] of Object.entries(edits)) copy.set(path, append ? `${copy.get(path) ?? ""}\n${text}\n` : text);
  return copy;
}

describe("the module walls", () => {
  test("src/ and cmd/ keep them: doors, declared neighbours, layers, no cycle, no file over 500 lines", () => {
    expect(checkBoundaries(tree)).toEqual([]);
  });

  test("no file of test/ or bench/ is over 500 lines either", () => {
    const long: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(join(ROOT, dir))) {
        const path = `${dir}/${name}`;
        if (statSync(join(ROOT, path)).isDirectory()) walk(path);
        else if (name.endsWith(".ts")) {
          const text = readFileSync(join(ROOT, path), "utf8");
          const lines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
          if (lines > MAX_LINES) long.push(`${path}: ${lines} lines`);
        }
      }
    };
    walk("test");
    walk("bench");
    expect(long).toEqual([]);
  });

  test("every module declares a layer below each neighbour's, util at the bottom and cmd at the top", () => {
    const decls = readDeclarations(tree);
    const layers = [...decls.values()].map((d) => d.layer);
    expect(decls.get("util")!.layer).toBe(Math.min(...layers));
    expect(decls.get("cmd")!.layer).toBe(Math.max(...layers));
    expect(decls.get("util")!.imports).toEqual([]);
    expect(decls.get("agent")!.layer).toBeGreaterThan(decls.get("server")!.layer);
  });
});

describe("the checker catches a planted breach", () => {
  const file = "src/pleg/relist.ts";

  test("an import that enters another module other than through its door", () => {
    const problems = checkBoundaries(planted({ [file]: `import { parseDuration } from "../util/duration";` }));
    expect(problems).toContainEqual(
      expect.stringMatching(/^src\/pleg\/relist\.ts:\d+: enters util at src\/util\/duration\.ts; import "\.\.\/util" \(its door\)$/),
    );
  });

  test("an import of a module not among the declared neighbours", () => {
    const problems = checkBoundaries(planted({ [file]: `import type { Agent } from "../agent";` }));
    expect(problems).toContainEqual(expect.stringMatching(/^src\/pleg\/relist\.ts:\d+: imports agent, not among pleg's neighbours/));
  });

  test("a neighbour declared against the layering (upward)", () => {
    const decl = JSON.parse(tree.get("src/util/module.json")!);
    const problems = checkBoundaries(planted({ "src/util/module.json": JSON.stringify({ ...decl, imports: ["agent"] }) }, false));
    expect(problems).toContainEqual(expect.stringMatching(/^src\/util\/module\.json: imports "agent" \(layer \d+\), not below its own layer 0$/));
  });

  test("an import() of another module, and a loader written in a door", () => {
    const problems = checkBoundaries(
      planted({ [file]: `export const later = () => import("../cri");`, "src/pleg/index.ts": `export const loadRelist = () => import("./relist");` }),
    );
    expect(problems).toContainEqual(expect.stringMatching(/^src\/pleg\/relist\.ts:\d+: import\(\) of cri; call a load…\(\) its door exports/));
    expect(problems).toContain(
      "src/pleg/index.ts: a door holds no import(): a loader in index.ts is in every chunk that imports the module; put it in lazy.ts",
    );
  });

  test("a module that imports its own door", () => {
    const problems = checkBoundaries(planted({ [file]: `import { PodStatusCache } from ".";` }));
    expect(problems).toContainEqual(expect.stringMatching(/^src\/pleg\/relist\.ts:\d+: imports its own module's door/));
  });

  test("an import cycle, even type-only", () => {
    const problems = checkBoundaries(
      planted(
        {
          "src/util/planted-a.ts": `import type { B } from "./planted-b";\nexport type A = B[];`,
          "src/util/planted-b.ts": `import type { A } from "./planted-a";\nexport type B = { a: A };`,
        },
        false,
      ),
    );
    expect(problems).toContain("import cycle: src/util/planted-a.ts → src/util/planted-b.ts");
  });

  test("a package not declared, or a dev-only package loaded at run time", () => {
    const undeclared = checkBoundaries(planted({ [file]: `import { parse } from "yaml";` }));
    expect(undeclared).toContainEqual(expect.stringMatching(/^src\/pleg\/relist\.ts:\d+: imports package "yaml", not in pleg's module.json packages$/));
    const decl = JSON.parse(tree.get("src/pleg/module.json")!);
    const dev = checkBoundaries(
      planted(
        { "src/pleg/module.json": JSON.stringify({ ...decl, packages: [...decl.packages, "typescript"] }), [file]: `import ts from "typescript";` },
        false,
      ),
    );
    expect(dev).toContainEqual(expect.stringMatching(/^src\/pleg\/relist\.ts:\d+: loads package "typescript", which is not a runtime dependency/));
  });

  test("a file over 500 lines, and a module without its declaration", () => {
    const long = checkBoundaries(planted({ "src/util/planted.ts": "export const x = 1;\n".repeat(501) }, false));
    expect(long).toContain("src/util/planted.ts: 501 lines, over 500: split it along its seams");
    const copy = new Map(tree);
    copy.delete("src/oom/module.json");
    expect(checkBoundaries(copy)).toContain("src/oom/module.json: missing: every module declares its layer, imports and packages");
  });

  test("a declared neighbour that is never imported", () => {
    const decl = JSON.parse(tree.get("src/oom/module.json")!);
    const problems = checkBoundaries(planted({ "src/oom/module.json": JSON.stringify({ ...decl, imports: [...decl.imports, "api"] }) }, false));
    expect(problems).toContain(`src/oom/module.json: declares "api", which it never imports`);
  });
});

describe("reading imports", () => {
  test("every form, comments and strings that look like imports ignored", () => {
    const text = [
      `import type { A } from "./a";`,
      `const re = /["']from "x"/g; // import y from "./no"`,
      `/* export * from "./no" */ export * from "./b";`,
      `const m = await import("./c");`,
      `const words = ["from", "import", "x"];`,
      `export type { Q } from "q";`,
      `import "./side-effect";`,
    ].join("\n");
    expect(scanImports(text)).toEqual([
      { specifier: "./a", line: 1, typeOnly: true, dynamic: false },
      { specifier: "./b", line: 3, typeOnly: false, dynamic: false },
      { specifier: "./c", line: 4, typeOnly: false, dynamic: true },
      { specifier: "q", line: 6, typeOnly: true, dynamic: false },
      { specifier: "./side-effect", line: 7, typeOnly: false, dynamic: false },
    ]);
  });

  test("cycles are strongly connected components, a self-import included", () => {
    const edges = new Map([
      ["a", new Set(["b"])],
      ["b", new Set(["c"])],
      ["c", new Set(["a"])],
      ["d", new Set(["d"])],
      ["e", new Set(["a"])],
    ]);
    expect(findCycles(edges)).toEqual([["a", "b", "c"], ["d"]]);
  });
});

describe("docs/architecture.md", () => {
  test("its layer table is the modules' module.json: layer and neighbours of each", () => {
    const doc = readFileSync(join(ROOT, "docs/architecture.md"), "utf8");
    const rows = [...doc.matchAll(/^\| (\d+) \| `([a-z]+)\/?` \| [^|]* \| ([^|]+) \|$/gm)].map(([, layer, mod, imports]) => ({
      mod: mod!,
      layer: Number(layer),
      imports: imports!.trim() === "—" ? [] : imports!.split(",").map((s) => s.trim()),
    }));
    const decls = readDeclarations(tree);
    expect(rows.map((r) => r.mod).sort()).toEqual([...decls.keys()].sort());
    for (const r of rows)
      expect({ mod: r.mod, layer: r.layer, imports: r.imports }).toEqual({ mod: r.mod, layer: decls.get(r.mod)!.layer, imports: decls.get(r.mod)!.imports });
  });
});
