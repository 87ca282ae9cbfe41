// Timestamps as the Kubernetes API writes them: metav1.Time is RFC 3339 in whole seconds.

/** Milliseconds since the epoch → "2026-01-01T00:00:00Z". */
export function apiTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** Milliseconds since the epoch → "2026-01-01T00:00:00.123000Z": metav1.MicroTime (Lease renewTime), six fraction digits. */
export function apiMicroTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}
