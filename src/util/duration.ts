// Go-style durations ("500ms", "1s", "1m30s", "2h") as the kubelet's flags and config take them.
const UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Parses a duration into milliseconds; a bare number is seconds. Throws with the offending text. */
export function parseDuration(text: string): number {
  const s = text.trim();
  if (/^\d+(\.\d+)?$/.test(s)) return Number(s) * 1000;
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/y;
  let total = 0;
  let pos = 0;
  while (pos < s.length) {
    re.lastIndex = pos;
    const m = re.exec(s);
    if (!m) throw new Error(`invalid duration ${JSON.stringify(text)}: use a number with a unit, e.g. 500ms, 1s, 2m`);
    total += Number(m[1]) * UNITS[m[2]!]!;
    pos = re.lastIndex;
  }
  if (s.length === 0) throw new Error(`invalid duration "": use a number with a unit, e.g. 500ms, 1s, 2m`);
  return total;
}

/** Formats milliseconds the way Go prints a time.Duration (1s, 1m30s, 250ms). */
export function formatDuration(ms: number): string {
  // Go prints a zero Duration as "0s" (kubeadm's shutdownGracePeriod: 0s), not "0ms".
  if (ms === 0) return "0s";
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const totalS = ms / 1000;
  const h = Math.floor(totalS / 3600);
  const m = Math.floor((totalS - h * 3600) / 60);
  const sec = totalS - h * 3600 - m * 60;
  const secText = `${Number.isInteger(sec) ? sec : Number(sec.toFixed(3))}s`;
  if (h > 0) return `${h}h${m}m${secText}`;
  if (m > 0) return `${m}m${secText}`;
  return secText;
}
