// The import graph of src/ and cmd/, and the walls it must respect (docs/architecture.md):
//
// - every top-level folder of src/ is a module whose one door is its index.ts; an import from another
//   folder (or from cmd/) names the folder, never a file inside it;
// - each module declares, in module.json beside its door, its layer and the modules and npm packages it
//   may import; an import of a module or package not on that list is a violation, and so is a module on
//   the list that is at the same or a higher layer (util and api at the bottom … agent, then cmd, at the top);
// - inside a module, files import each other directly, never through their own door;
// - no import() crosses a wall: what a module loads on demand, its door exports as load…() functions
//   written in its lazy.ts (an import() of a door would load the whole module, and a loader written in
//   index.ts would put its import() into every chunk of the binary that imports the module);
// - no import cycle between files, type-only imports included;
// - no file over 500 lines but those the exceptions list names, with the reason.
//
// The checker reads text, not the compiler's view: an import is an `import … from "x"`, `export … from
// "x"`, `import "x"` or `import("x")` outside comments, which is every form the project uses.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";

export interface ModuleDecl {
  /** 0 for util … the highest for cmd: a module may import only modules of a lower layer. */
  layer: number;
  /** The modules (folders of src/) it may import through their doors. */
  imports: string[];
  /** The npm packages it may import (a package's name, without its sub-path). */
  packages: string[];
}

/** A repository's source as the checker sees it: file path (relative, with `/`) → text. */
export type SourceTree = Map<string, string>;

export interface ImportRef {
  specifier: string;
  line: number;
  /** `import type …` / `export type … from`: gone from the JavaScript, so no package is loaded for it. */
  typeOnly: boolean;
  /** `import("x")`: loaded when the expression runs, as a chunk of its own in the binary. */
  dynamic: boolean;
}

export const MAX_LINES = 500;

/**
 * Generated code: written by scripts/refresh-cri-proto.sh (proto-loader-gen-types) from the CRI's
 * .proto, not read or edited by people. Exempt from the length limit and the cycle check (its types
 * refer to themselves, as the messages do); it is still inside src/cri's walls.
 */
export const isGenerated = (path: string) => path.startsWith("src/cri/generated/");

/** Hand-written files allowed over MAX_LINES, with the reason (also listed in docs/architecture.md). */
export const LONG_FILE_EXCEPTIONS: ReadonlyMap<string, string> = new Map([]);

/** Where a `/` starts a regular expression literal rather than a division: after these, or a keyword. */
const BEFORE_REGEX = new Set(["", "(", ",", "=", ":", "[", "!", "&", "|", "?", "{", "}", ";", "+", "-", "*", "%", "<", ">", "~", "^"]);

/**
 * Text with its comments and regular expression literals blanked out, each character at its place.
 * With `blankStrings`, the inside of string and template literals is blanked too (the quotes stay), so
 * nothing in a string can look like code.
 */
export function stripComments(text: string, blankStrings = false): string {
  let out = "";
  let i = 0;
  const n = text.length;
  const blank = (from: number, to: number) => text.slice(from, to).replace(/[^\n]/g, " ");
  while (i < n) {
    const c = text[i]!;
    const next = text[i + 1];
    if (c === "/" && next !== "/" && next !== "*") {
      let k = out.length;
      while (k > 0 && /\s/.test(out[k - 1]!)) k--;
      const before = out.slice(Math.max(0, k - 8), k);
      if (BEFORE_REGEX.has(before.slice(-1)) || /\b(?:return|typeof|case|of|in)$/.test(before)) {
        const start = i;
        let inClass = false;
        i++;
        while (i < n && text[i] !== "\n") {
          if (text[i] === "\\") i++;
          else if (text[i] === "[") inClass = true;
          else if (text[i] === "]") inClass = false;
          else if (text[i] === "/" && !inClass) break;
          i++;
        }
        i++;
        out += blank(start, i);
        continue;
      }
    }
    if (c === "/" && (next === "/" || next === "*")) {
      const end = next === "/" ? text.indexOf("\n", i) : text.indexOf("*/", i + 2) + 2;
      const stop = end < (next === "/" ? 0 : 2) ? n : end;
      out += blank(i, stop);
      i = stop;
      continue;
    }
    if (c === '"' || c === "'" || c === "`") {
      const start = i;
      i++;
      while (i < n && text[i] !== c) {
        if (text[i] === "\\") i++;
        else if (c !== "`" && text[i] === "\n") break;
        i++;
      }
      i++;
      out += blankStrings ? c + blank(start + 1, i - 1) + text.slice(i - 1, i) : text.slice(start, i);
      continue;
    }
    out += c;
    i++;
  }
  return out;
}

const IMPORT_FORMS = /(?:^|[^\w$.])(?:from|import)\s*\(?\s*(["'])( +)\1/g;

/** Every module specifier a file imports or re-exports, type-only and dynamic ones included. */
export function scanImports(text: string): ImportRef[] {
  const code = stripComments(text, true);
  const refs: ImportRef[] = [];
  for (const m of code.matchAll(IMPORT_FORMS)) {
    const at = m.index! + m[0].length - m[2]!.length - 1;
    const specifier = text.slice(at, at + m[2]!.length);
    const statement = code.slice(Math.max(0, code.lastIndexOf(";", at)), at);
    const typeOnly = /\b(?:import|export)\s+type\b/.test(statement) && !/\bimport\s*\(\s*["']$/.test(statement);
    const before = code.slice(Math.max(0, at - 40), at);
    const dynamic = /\bimport\s*\(\s*["']$/.test(before) && !/\btypeof\s+import\s*\(\s*["']$/.test(before);
    refs.push({ specifier, line: code.slice(0, at).split("\n").length, typeOnly: typeOnly && !dynamic, dynamic });
  }
  return refs;
}

/** The module a repository path belongs to: the folder under src/, "cmd", or undefined (tests, benches). */
export function moduleOf(path: string): string | undefined {
  const parts = path.split("/");
  if (parts[0] === "cmd") return "cmd";
  if (parts[0] === "src" && parts.length > 2) return parts[1];
  return undefined;
}

/** The package an external specifier names: `@scope/name` or `name`; builtins (`node:`, `bun:`) give undefined. */
export function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith("node:") || specifier.startsWith("bun:") || specifier === "bun") return undefined;
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

/** The repository file a relative specifier names (`x` → x.ts, x/index.ts, or x itself), if the tree has it. */
export function resolveIn(tree: SourceTree, from: string, specifier: string): string | undefined {
  const base = normalize(join(dirname(from), specifier));
  for (const c of [`${base}.ts`, `${base}/index.ts`, base]) if (tree.has(c)) return c;
  return undefined;
}

/** Reads src/ and cmd/ (.ts and module.json files) under the repository root. */
export function readSourceTree(root: string): SourceTree {
  const tree: SourceTree = new Map();
  const walk = (dir: string) => {
    for (const name of readdirSync(join(root, dir)).sort()) {
      const path = `${dir}/${name}`;
      if (statSync(join(root, path)).isDirectory()) walk(path);
      else if (name.endsWith(".ts") || name.endsWith(".json")) tree.set(path, readFileSync(join(root, path), "utf8"));
    }
  };
  walk("src");
  walk("cmd");
  tree.set("package.json", readFileSync(join(root, "package.json"), "utf8"));
  return tree;
}

/** Each module's declaration, read from its module.json. */
export function readDeclarations(tree: SourceTree): Map<string, ModuleDecl> {
  const decls = new Map<string, ModuleDecl>();
  for (const [path, text] of tree) {
    const m = /^(?:src\/([^/]+)|(cmd))\/module\.json$/.exec(path);
    if (!m) continue;
    const d = JSON.parse(text) as Partial<ModuleDecl>;
    decls.set(m[1] ?? m[2]!, { layer: d.layer ?? NaN, imports: d.imports ?? [], packages: d.packages ?? [] });
  }
  return decls;
}

/** The modules of the tree: every folder of src/ that holds a file, and cmd. */
function modulesOf(tree: SourceTree): Set<string> {
  const mods = new Set<string>();
  for (const path of tree.keys()) {
    const m = moduleOf(path);
    if (m && path.endsWith(".ts")) mods.add(m);
  }
  return mods;
}

const doorOf = (mod: string) => (mod === "cmd" ? undefined : `src/${mod}/index.ts`);

/** Cycles among files (each as a list of its files), from Tarjan's strongly connected components. */
export function findCycles(edges: Map<string, Set<string>>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || edges.get(v)?.has(v)) cycles.push(scc.sort());
    }
  };
  for (const v of [...edges.keys()].sort()) if (!index.has(v)) visit(v);
  return cycles;
}

/** Every way the tree breaks the walls, one line each naming the file and line; empty when it keeps them. */
export function checkBoundaries(tree: SourceTree): string[] {
  const problems: string[] = [];
  const decls = readDeclarations(tree);
  const modules = modulesOf(tree);
  const pkg = JSON.parse(tree.get("package.json") ?? "{}") as { dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
  const runtimeDeps = new Set(Object.keys(pkg.dependencies ?? {}));
  // A type-only import of `x` may be served by `@types/x` (sarif's types, say): no code of it is loaded.
  const allDeps = new Set([...runtimeDeps, ...Object.keys(pkg.devDependencies ?? {})].flatMap((d) => (d.startsWith("@types/") ? [d, d.slice(7)] : [d])));

  for (const mod of [...modules].sort()) {
    const decl = decls.get(mod);
    const where = mod === "cmd" ? "cmd/module.json" : `src/${mod}/module.json`;
    if (!decl) {
      problems.push(`${where}: missing: every module declares its layer, imports and packages`);
      continue;
    }
    if (!Number.isInteger(decl.layer)) problems.push(`${where}: "layer" must be an integer`);
    const door = doorOf(mod);
    if (door && !tree.has(door)) problems.push(`${door}: missing: the module's one door`);
    if (door && tree.has(door) && !/^\s*\/\//.test(tree.get(door)!)) problems.push(`${door}:1: the door starts with a comment saying what the module owns`);
    for (const n of decl.imports) {
      const nd = decls.get(n);
      if (!modules.has(n) || !nd) problems.push(`${where}: imports "${n}", which is not a module`);
      else if (!(nd.layer < decl.layer)) problems.push(`${where}: imports "${n}" (layer ${nd.layer}), not below its own layer ${decl.layer}`);
    }
    for (const p of decl.packages) if (!allDeps.has(p)) problems.push(`${where}: package "${p}" is not in package.json`);
  }

  const edges = new Map<string, Set<string>>();
  const used = new Map<string, Set<string>>();
  for (const [file, text] of tree) {
    if (!file.endsWith(".ts")) continue;
    const lines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
    if (lines > MAX_LINES && !LONG_FILE_EXCEPTIONS.has(file) && !isGenerated(file))
      problems.push(`${file}: ${lines} lines, over ${MAX_LINES}: split it along its seams`);
    const mod = moduleOf(file)!;
    const decl = decls.get(mod);
    if (file === doorOf(mod) && scanImports(text).some((r) => r.dynamic))
      problems.push(`${file}: a door holds no import(): a loader in index.ts is in every chunk that imports the module; put it in lazy.ts`);
    const out = new Set<string>();
    edges.set(file, out);
    for (const ref of scanImports(text)) {
      const at = `${file}:${ref.line}`;
      if (!ref.specifier.startsWith(".")) {
        const p = packageOf(ref.specifier);
        if (p && decl && !decl.packages.includes(p)) problems.push(`${at}: imports package "${p}", not in ${mod}'s module.json packages`);
        else if (p && !ref.typeOnly && !runtimeDeps.has(p)) problems.push(`${at}: loads package "${p}", which is not a runtime dependency in package.json`);
        continue;
      }
      const target = resolveIn(tree, file, ref.specifier);
      if (!target) {
        if (!ref.specifier.endsWith(".json")) problems.push(`${at}: "${ref.specifier}" resolves to no file of src/ or cmd/`);
        continue;
      }
      if (!isGenerated(file)) out.add(target);
      const tmod = moduleOf(target);
      if (tmod === undefined) continue; // package.json (the version)
      if (tmod === mod) {
        if (target === doorOf(mod) && file !== target) problems.push(`${at}: imports its own module's door; inside a module, import the file`);
        continue;
      }
      if (ref.dynamic)
        problems.push(`${at}: import() of ${tmod}; call a load…() its door exports (from its lazy.ts) instead: an import() of a door loads the whole module`);
      if (target !== doorOf(tmod)) problems.push(`${at}: enters ${tmod} at ${target}; import "${relative(dirname(file), `src/${tmod}`)}" (its door)`);
      if (decl && !decl.imports.includes(tmod)) problems.push(`${at}: imports ${tmod}, not among ${mod}'s neighbours (module.json)`);
      if (!used.has(mod)) used.set(mod, new Set());
      used.get(mod)!.add(tmod);
    }
  }
  for (const [mod, decl] of decls) {
    for (const n of decl.imports)
      if (modules.has(n) && !used.get(mod)?.has(n))
        problems.push(`${mod === "cmd" ? "cmd" : `src/${mod}`}/module.json: declares "${n}", which it never imports`);
  }
  for (const cycle of findCycles(edges)) problems.push(`import cycle: ${cycle.join(" → ")}`);
  return problems;
}
