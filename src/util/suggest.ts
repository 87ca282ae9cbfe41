// "Did you mean …?": the known name a mistyped one was probably meant to be, for flags, fields and
// commands. One edit in four characters at most counts as a typo (not a different word), and names
// that differ only in case, dashes or underscores (podManifestPath, pod_manifest_path) always match.

/** Levenshtein distance: insertions, deletions and substitutions, one each. */
export function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 3) return Math.abs(a.length - b.length);
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return prev[b.length]!;
}

const squash = (s: string) => s.toLowerCase().replace(/[-_]/g, "");

/** The candidate closest to `word` when it is close enough to be a typo of it, else undefined. */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  const list = [...candidates];
  const exact = list.find((c) => squash(c) === squash(word));
  if (exact !== undefined) return exact;
  const w = word.toLowerCase();
  let best: string | undefined;
  let bestDistance = Math.max(1, Math.floor(w.length / 4)) + 1;
  for (const c of list) {
    const d = editDistance(w, c.toLowerCase());
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best;
}
