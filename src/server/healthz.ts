// /healthz and /healthz/<check> in the Kubernetes healthz format (k8s.io/apiserver/pkg/server/healthz).
import { failure, oneLine, text } from "./responses";
import type { HealthCheck } from "./types";

/** " (warning: …)" for a check that carries one: shown in the verbose lines, never a failure. */
function warningSuffix(c: HealthCheck): string {
  const w = c.warning ? oneLine(c.warning) : "";
  return w ? ` (warning: ${w})` : "";
}

/**
 * The Kubernetes healthz handler (k8s.io/apiserver/pkg/server/healthz): "ok" when every check passes,
 * otherwise "[+]name ok" / "[-]name failed: …" lines and "healthz check failed" with 500; ?verbose
 * gives the lines always; ?exclude=name skips a check. Unlike the API server, which writes
 * "reason withheld" and logs the reason, we print the message: the kubelet's own checks (PLEG, sync
 * loop) are about this node, and saying why it is unhealthy is the point of the endpoint.
 * A check's warning (a source that cannot be read but keeps its pods) is printed after its line and
 * fails nothing: the plain /healthz stays "ok", so it never makes the node NotReady.
 */
export function healthz(checks: HealthCheck[], url: URL): Response {
  const excluded = new Set(url.searchParams.getAll("exclude"));
  let lines = "";
  let failed = false;
  for (const c of checks) {
    if (excluded.has(c.name)) {
      lines += `[+]${c.name} excluded: ok\n`;
      excluded.delete(c.name);
    } else if (c.ok) {
      lines += `[+]${c.name} ok${warningSuffix(c)}\n`;
    } else {
      lines += `[-]${c.name} failed: ${oneLine(c.message) || "unhealthy"}${warningSuffix(c)}\n`;
      failed = true;
    }
  }
  // The API server warns about excluded checks that do not exist; so do we, in the body.
  for (const name of excluded) lines += `warn: some health checks cannot be excluded: no matches for "${name}"\n`;
  if (failed) return text(`${lines}healthz check failed\n`, 500);
  if (!url.searchParams.has("verbose")) return text("ok");
  return text(`${lines}healthz check passed\n`);
}

/** /healthz/<name>: one check, "ok" or 500 "internal server error: …" (healthz adaptCheckToHandler). */
export function healthzOne(checks: HealthCheck[], name: string): Response {
  const c = checks.find((x) => x.name === name);
  if (!c) return failure(404, `health check "${name}" not found`);
  return c.ok ? text("ok") : text(`internal server error: ${oneLine(c.message)}\n`, 500);
}
