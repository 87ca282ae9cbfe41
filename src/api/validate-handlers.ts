// Lifecycle hooks and probes as validateHandler and validateProbe check them: exactly one handler type,
// its port, path and scheme, and the probe timings and thresholds.
import type { Container, HTTPGetAction, Probe } from "kubernetes-types/core/v1";
import { child, type FieldError, forbidden, invalid, notSupported, required } from "./field-error";
import { isValidPortName, isValidPortNum, regexError } from "./name-validation";

const HTTP_SCHEMES = ["HTTP", "HTTPS"];

export function validatePortNumOrName(port: number | string | undefined, path: string, errs: FieldError[]): void {
  if (typeof port === "string") for (const m of isValidPortName(port)) errs.push(invalid(path, port, m));
  else for (const m of isValidPortNum(port ?? 0)) errs.push(invalid(path, port ?? 0, m));
}

function validateHTTPGet(h: HTTPGetAction, path: string, errs: FieldError[]): void {
  if (!h.path) errs.push(required(child(path, "path")));
  validatePortNumOrName(h.port, child(path, "port"), errs);
  if (!HTTP_SCHEMES.includes(h.scheme ?? "")) errs.push(notSupported(child(path, "scheme"), h.scheme ?? "", HTTP_SCHEMES));
  for (const header of h.httpHeaders ?? []) {
    if (!/^[-A-Za-z0-9]+$/.test(header.name ?? "")) {
      errs.push(
        invalid(
          child(path, "httpHeaders"),
          header.name ?? "",
          regexError("a valid HTTP header must consist of alphanumeric characters or '-'", "[-A-Za-z0-9]+", "X-Header-Name"),
        ),
      );
    }
  }
}

interface Handler {
  exec?: { command?: string[] } | undefined;
  httpGet?: HTTPGetAction | undefined;
  tcpSocket?: { port: number | string } | undefined;
  grpc?: { port: number } | undefined;
  sleep?: { seconds: number } | undefined;
}

/** validateHandler: exactly one of exec, httpGet, tcpSocket, grpc (probes) or sleep (lifecycle). */
function validateHandler(h: Handler, gracePeriod: number | undefined, path: string, errs: FieldError[]): void {
  let n = 0;
  const more = (name: string): boolean => {
    if (n > 0) {
      errs.push(forbidden(child(path, name), "may not specify more than 1 handler type"));
      return true;
    }
    n++;
    return false;
  };
  if (h.exec && !more("exec") && (h.exec.command ?? []).length === 0) errs.push(required(child(path, "exec.command")));
  if (h.httpGet && !more("httpGet")) validateHTTPGet(h.httpGet, child(path, "httpGet"), errs);
  if (h.tcpSocket && !more("tcpSocket")) validatePortNumOrName(h.tcpSocket.port, child(path, "tcpSocket.port"), errs);
  if (h.grpc && !more("grpc")) validatePortNumOrName(h.grpc.port, child(path, "grpc.port"), errs);
  if (h.sleep && !more("sleep")) {
    // PodLifecycleSleepActionAllowZero (on since 1.33) allows 0.
    const s = h.sleep.seconds;
    if (gracePeriod !== undefined && (s < 0 || s > gracePeriod)) {
      errs.push(invalid(child(path, "sleep"), s, `must be non-negative and less than terminationGracePeriodSeconds (${gracePeriod})`));
    }
  }
  if (n === 0) errs.push(required(path, "must specify a handler type"));
}

function validateProbe(p: Probe, kind: "liveness" | "readiness" | "startup", gracePeriod: number | undefined, path: string, errs: FieldError[]): void {
  validateHandler({ exec: p.exec, httpGet: p.httpGet, tcpSocket: p.tcpSocket, grpc: p.grpc }, gracePeriod, path, errs);
  for (const f of ["initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold"] as const) {
    const v = p[f] ?? 0;
    if (v < 0) errs.push(invalid(child(path, f), v, "must be greater than or equal to 0"));
  }
  const tgps = p.terminationGracePeriodSeconds;
  if (tgps !== undefined && tgps !== null && tgps <= 0) errs.push(invalid(child(path, "terminationGracePeriodSeconds"), tgps, "must be greater than 0"));
  if (kind === "readiness") {
    if (tgps !== undefined && tgps !== null) errs.push(invalid(child(path, "terminationGracePeriodSeconds"), tgps, "must not be set for readinessProbes"));
  } else if ((p.successThreshold ?? 0) !== 1) {
    errs.push(invalid(child(path, "successThreshold"), p.successThreshold ?? 0, "must be 1"));
  }
}

export function validateLifecycleAndProbes(c: Container, gracePeriod: number | undefined, path: string, errs: FieldError[]): void {
  if (c.lifecycle?.postStart) validateHandler(c.lifecycle.postStart, gracePeriod, child(path, "lifecycle.postStart"), errs);
  if (c.lifecycle?.preStop) validateHandler(c.lifecycle.preStop, gracePeriod, child(path, "lifecycle.preStop"), errs);
  if (c.livenessProbe) validateProbe(c.livenessProbe, "liveness", gracePeriod, child(path, "livenessProbe"), errs);
  if (c.readinessProbe) validateProbe(c.readinessProbe, "readiness", gracePeriod, child(path, "readinessProbe"), errs);
  if (c.startupProbe) validateProbe(c.startupProbe, "startup", gracePeriod, child(path, "startupProbe"), errs);
}
