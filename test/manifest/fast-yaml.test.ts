// The YAML fast path must be invisible: on every input it accepts, parseManifest gives the same data,
// the same problems and the same positions for every field as the `yaml` library path.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseManifest, type ParsedManifest } from "../../src/manifest";
import { FastYaml } from "../../src/manifest/fast-yaml";
import { mutate, prng } from "../lint/mutate";

const FAST = new FastYaml((tags) => tags.filter((t) => typeof t === "string" || t.tag !== "tag:yaml.org,2002:timestamp"));
const CORPUS = join(import.meta.dir, "../fixtures/lint");
const corpus = ["valid", "broken", "manifest-dir"].flatMap((dir) =>
  readdirSync(join(CORPUS, dir), { withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => readFileSync(join(CORPUS, dir, e.name), "utf8")),
);

/** Every field path of a decoded document, as the linter names fields. */
function paths(value: unknown, prefix = ""): string[] {
  const out: string[] = [prefix];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...paths(v, `${prefix}[${i}]`)));
  else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) out.push(...paths(v, /[.[\]]/.test(k) || k === "" ? `${prefix}[${k}]` : prefix ? `${prefix}.${k}` : k));
  }
  return out;
}

function view(p: ParsedManifest, value: unknown): unknown {
  return {
    value: p.value,
    problems: p.problems,
    positions: paths(value).map((f) => [f, p.locate(f), p.locate(f, "key"), p.positionOf(f)]),
  };
}

/** Compares the two paths on a text the fast path accepts; returns whether it did. */
function agree(text: string): boolean {
  if (!FAST.parse(text)) return false;
  const fast = parseManifest(text);
  const slow = parseManifest(text, { fastPath: false });
  expect(view(fast, slow.value)).toEqual(view(slow, slow.value));
  return true;
}

describe("the YAML fast path agrees with the yaml library", () => {
  test("on the corpus, and takes nearly all of it", () => {
    const taken = corpus.filter((text) => agree(text)).length;
    expect(taken).toBeGreaterThanOrEqual(corpus.length - 6);
  });

  test("on what manifests are made of", () => {
    const accepted = [
      "a: yes\nb: no\nc: on\nd: off\ne: y\nf: N\ng: ~\nh: null\ni:\nj: 0644\nk: 0x1F\nl: 1_000\nm: 190:20:30\nn: 1e3\no: .inf\np: -.5\nq: 2024-01-01\n",
      "---\nkey with spaces: value with spaces  # and a comment\nurl: http://example.com:8080/path#frag\nrate: 50%\n",
      "q: \"a \\\"quoted\\\" \\u00e9 \\n value\"\ns: 'it''s'\n\"quoted key\": 1\n'single': [a, 'b', \"c\", 1, yes]\nempty: []\nnone: {}\n",
      'spec:\n  containers:\n  - name: a\n    args: ["--x=1", --y]\n    resources: {limits: 1, requests: 2}\n',
      "spec:\n  containers:\n  - name: a\n    ports:\n    - containerPort: 80\n      name: http\n  - name: b\n    command:\n    - sh\n    - -c\n    - echo hi\nlist:\n- 1\n-\n  nested: true\n",
      "m:\n  -1: negative key\n  yes: bool key\n  true: duplicate of yes\n  1.5: float key\n",
      "a: {x: 1, y: 2}\nb: {x: 1, 'y': \"2\"}\nd: é ü 中文\nf: --flag=value\n",
    ];
    // Outside the subset (or not YAML at all): left to the library.
    const refused = [
      "a: 1\n  b: 2\n",
      "a:\n  - x\n b: 1\n",
      "a: b: c\n",
      "a: |\n  text\n",
      "a: &x 1\nb: *x\n",
      "a: [a: 1]\n",
      "a: -\n",
      "a: {x: {y: 1}}\n",
      "- a\n",
      "a: 1\n---\nb: 2\n",
      "a:\tb\n",
      "a: 'multi\n  line'\n",
      "<<: {a: 1}\n",
      "a: !!str 1\n",
    ];
    for (const text of accepted) expect(agree(text)).toBe(true);
    for (const text of refused) expect(FAST.parse(text)).toBeUndefined();
  });

  test("on 3000 mutations of the corpus", () => {
    let taken = 0;
    for (let seed = 1; seed <= 3000; seed++) {
      const text = mutate(corpus[seed % corpus.length]!, prng(seed));
      try {
        if (agree(text)) taken++;
      } catch (e) {
        throw new Error(`seed ${seed}: ${(e as Error).message}\n--- input ---\n${text}`);
      }
    }
    // Most mutations stay inside the subset; the rest must have been left to the library.
    expect(taken).toBeGreaterThan(1000);
  }, 30_000); // ~1.5 s alone; a loaded 2-core machine has taken 7 s
});
