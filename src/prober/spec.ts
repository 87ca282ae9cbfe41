// From a container's probe spec to what is run: timing with the API defaults, and the action for one
// container instance (the kubelet's ProberAction builders in prober.go and pkg/probe/http/request.go).
import type { Container, Probe } from "kubernetes-types/core/v1";
import { errorMessage } from "../util";
import type { ProbeAction, ProbeTiming, ProbeType } from "./types";

/** The kubelet's User-Agent for HTTP and gRPC probes, "kube-probe/<major>.<minor>" of the API followed. */
export const PROBE_USER_AGENT = "kube-probe/1.30";

/** A probe that cannot be turned into an action (a named port the container does not have). */
export class ProbeSpecError extends Error {}

/** SetDefaults_Probe (k/k pkg/apis/core/v1/defaults.go): zero or unset fields take the defaults. */
export function probeTiming(p: Probe): ProbeTiming {
  const seconds = (v: number | undefined, def: number) => (v ? v : def) * 1000;
  return {
    initialDelayMs: (p.initialDelaySeconds ?? 0) * 1000,
    periodMs: seconds(p.periodSeconds, 10),
    timeoutMs: seconds(p.timeoutSeconds, 1),
    successThreshold: p.successThreshold || 1,
    failureThreshold: p.failureThreshold || 3,
  };
}

export function probeOf(c: Container, type: ProbeType): Probe | undefined {
  switch (type) {
    case "liveness":
      return c.livenessProbe;
    case "readiness":
      return c.readinessProbe;
    case "startup":
      return c.startupProbe;
  }
}

/** Which handler a probe has, for messages and the command's output. */
export function handlerName(p: Probe): "exec" | "httpGet" | "tcpSocket" | "grpc" | undefined {
  if (p.exec) return "exec";
  if (p.httpGet) return "httpGet";
  if (p.tcpSocket) return "tcpSocket";
  if (p.grpc) return "grpc";
  return undefined;
}

/**
 * probe.ResolveContainerPort: a number, or the name of one of the container's ports, or (the
 * kubelet's last resort) a number written as a string.
 */
export function resolvePort(port: number | string, c: Pick<Container, "name" | "ports">): number {
  let n: number;
  if (typeof port === "number") n = port;
  else {
    const named = c.ports?.find((p) => p.name === port);
    if (named) n = named.containerPort;
    else if (/^[+-]?\d+$/.test(port)) n = Number(port);
    else throw new ProbeSpecError(`port ${JSON.stringify(port)} is neither a number nor the name of a port of container ${JSON.stringify(c.name)}`);
  }
  if (!(n > 0 && n < 65536)) throw new ProbeSpecError(`invalid port number: ${n}`);
  return n;
}

/**
 * Expands $(VAR) in an exec probe's command with the container's env values as written, without
 * downward API or secret values (ExpandContainerCommandOnlyStatic): `$$` is a literal `$`, and a
 * reference to an unknown variable is left as it is.
 */
export function expandStatic(arg: string, env: Container["env"]): string {
  const values = new Map<string, string>();
  for (const e of env ?? []) values.set(e.name, e.value ?? "");
  let out = "";
  for (let i = 0; i < arg.length; i++) {
    const ch = arg[i]!;
    if (ch !== "$" || i + 1 >= arg.length) {
      out += ch;
      continue;
    }
    const next = arg[i + 1];
    if (next === "$") {
      out += "$";
      i++;
    } else if (next === "(") {
      const close = arg.indexOf(")", i + 2);
      const name = close < 0 ? undefined : arg.slice(i + 2, close);
      if (name === undefined || !values.has(name)) {
        out += ch;
        continue;
      }
      out += values.get(name);
      i = close;
    } else out += ch;
  }
  return out;
}

/** host:port with IPv6 literals in brackets (net.JoinHostPort). */
export function joinHostPort(host: string, port: number): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}

/** The container instance a probe runs against: its ID (exec) and the address network probes dial. */
export interface ProbeTargetAddress {
  containerId: string;
  /** The pod IP, or 127.0.0.1 for a host-network pod. */
  host: string;
}

/**
 * The action for a probe against one container instance. httpGet: scheme lower-cased, host from the
 * probe or the target, path parsed as a URL reference (a query string is kept), headers as given;
 * the request headers the kubelet adds itself are added by the HTTP prober. tcpSocket dials the
 * probe's host if it sets one; grpc always dials the target (GRPCAction has no host).
 */
export function probeAction(p: Probe, c: Container, target: ProbeTargetAddress): ProbeAction {
  if (p.exec) return { kind: "exec", containerId: target.containerId, command: (p.exec.command ?? []).map((a) => expandStatic(a, c.env)) };
  if (p.httpGet) {
    const h = p.httpGet;
    const scheme = (h.scheme || "HTTP").toLowerCase();
    const hostPort = joinHostPort(h.host || target.host, resolvePort(h.port, c));
    let url: URL;
    try {
      // formatURL: the path is parsed as a URL reference, then scheme and host are set over it, so
      // a path such as "//other/x" or "http://other/x" cannot send the probe to another host.
      url = new URL(h.path ?? "", `${scheme}://${hostPort}/`);
      url.protocol = `${scheme}:`;
      url.host = hostPort;
    } catch (err) {
      throw new ProbeSpecError(`httpGet ${scheme}://${hostPort}${h.path ?? ""}: ${errorMessage(err)}`);
    }
    return { kind: "httpGet", url, headers: (h.httpHeaders ?? []).map((x) => [x.name, x.value]) };
  }
  if (p.tcpSocket) return { kind: "tcpSocket", host: p.tcpSocket.host || target.host, port: resolvePort(p.tcpSocket.port, c) };
  if (p.grpc) return { kind: "grpc", host: target.host, port: resolvePort(p.grpc.port, c), service: p.grpc.service ?? "" };
  throw new ProbeSpecError(`missing probe handler for container ${JSON.stringify(c.name)}`);
}

/** What an action targets, as one line: the command, URL or address. */
export function describeAction(a: ProbeAction): string {
  switch (a.kind) {
    case "exec":
      return a.command.join(" ");
    case "httpGet":
      return a.url.href;
    case "tcpSocket":
      return joinHostPort(a.host, a.port);
    case "grpc":
      return `${joinHostPort(a.host, a.port)}${a.service ? `/${a.service}` : ""}`;
  }
}

/** Probe output on one line (events, tables): whitespace runs folded, at most `max` characters. */
export function oneLine(s: string, max = 256): string {
  const flat = s.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
