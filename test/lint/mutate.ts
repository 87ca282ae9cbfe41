// Seeded mutations of manifests, for the fuzz tests of the linter and of the YAML fast path.

/** A seeded linear congruential generator (Numerical Recipes' constants): a failure replays from its seed. */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 4294967296;
}

const TOKENS = [
  ":",
  "-",
  " ",
  "  ",
  "\t",
  "\n",
  "[",
  "]",
  "{",
  "}",
  "'",
  '"',
  "&a",
  "*a",
  "<<: *a",
  "!!str",
  "---",
  "...",
  "#",
  "|",
  ">",
  "yes",
  "no",
  "0644",
  "0x1F",
  "1e3",
  "null",
  "~",
  "-1",
  "99999999999",
  "💥",
  "\u0000",
  "\r",
  "?",
  "%YAML 1.1",
  "@",
  "`",
  ",",
  "=",
  ".inf",
];
const SCALARS = ["true", "7", "-3", "1.5", "[]", "{}", '""', "null", "[a, b]", "{x: 1}", "'x'", "0", "99999999999999999999", "2024-01-01"];

export function mutate(text: string, rand: () => number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const at = (): number => Math.floor(rand() * (text.length + 1));
  let lines = text.split("\n");
  const edits = 1 + Math.floor(rand() * 4);
  for (let e = 0; e < edits; e++) {
    const kind = Math.floor(rand() * 9);
    const i = Math.floor(rand() * lines.length);
    if (kind === 0) lines.splice(i, 1);
    else if (kind === 1) lines.splice(i, 0, lines[Math.floor(rand() * lines.length)] ?? "");
    else if (kind === 2) lines[i] = " ".repeat(Math.floor(rand() * 6)) + (lines[i] ?? "").trimStart();
    else if (kind === 3) lines[i] = (lines[i] ?? "").replace(/:\s.*$/, `: ${pick(SCALARS)}`);
    else if (kind === 4) {
      const joined = lines.join("\n");
      const p = at();
      lines = (joined.slice(0, p) + pick(TOKENS) + joined.slice(p)).split("\n");
    } else if (kind === 5) {
      const joined = lines.join("\n");
      const p = at();
      lines = (joined.slice(0, p) + joined.slice(p + 1 + Math.floor(rand() * 20))).split("\n");
    } else if (kind === 6) lines = lines.slice(0, i);
    else if (kind === 7) {
      const j = Math.floor(rand() * lines.length);
      [lines[i], lines[j]] = [lines[j] ?? "", lines[i] ?? ""];
    } else
      lines[i] = (lines[i] ?? "").replace(
        /^(\s*)(- )?([A-Za-z]+)/,
        (_m, s: string, d: string | undefined, k: string) => `${s}${d ?? ""}${k}${pick(["x", "", "s"])}`,
      );
  }
  return lines.join("\n");
}
