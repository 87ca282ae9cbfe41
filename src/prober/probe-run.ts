// What `nodeagent probe run` does besides reading its command line and printing: an ad-hoc probe's
// syntax (--http-get, --tcp, --grpc) as a v1 Probe, the pod spec read from the agent (probes are in
// the spec, which CRI does not keep), and the plan of a session — which probe, with which timing,
// against which address — with the verdict explained in the threshold code's own terms.
import type { AgentClient } from "../client";
import type { Container, Pod, Probe } from "kubernetes-types/core/v1";
import { REDACTED } from "../api";
import { ConfigError, errorMessage } from "../util";
import { LookupError, type FoundContainer } from "./lookup";
import type { AttemptReport } from "./session";
import { describeAction, probeAction, probeOf, probeTiming } from "./spec";
import type { ProbeAction, ProbeTiming, ProbeType } from "./types";

/** An ad-hoc probe from --http-get, --tcp, --grpc or --exec: a v1 Probe handler and, maybe, a host. */
export interface AdHocProbe {
  probe: Probe;
  /** The host given on the command line; without one, the pod's address. */
  host?: string;
}

const HOST_PORT = /^(?:\[([^\]]+)\]|([^:/]*)):(\d+)(.*)$/;

function splitHostPort(flag: string, value: string): { host: string | undefined; port: number; rest: string } {
  const m = HOST_PORT.exec(value);
  const port = m ? Number(m[3]) : NaN;
  if (!m || !(port > 0 && port < 65536)) throw new ConfigError(`${flag} ${JSON.stringify(value)}: expected [HOST]:PORT with a port number from 1 to 65535`);
  return { host: (m[1] ?? m[2]) || undefined, port, rest: m[4] ?? "" };
}

/** Parses --http-get [http(s)://][HOST]:PORT[/PATH], --tcp [HOST]:PORT, --grpc [HOST]:PORT[/SERVICE]. */
export function parseAdHoc(kind: "http-get" | "tcp" | "grpc", value: string): AdHocProbe {
  if (kind === "http-get") {
    const scheme = /^(https?):\/\//i.exec(value);
    const { host, port, rest } = splitHostPort("--http-get", scheme ? value.slice(scheme[0].length) : value);
    if (rest && !rest.startsWith("/") && !rest.startsWith("?")) throw new ConfigError(`--http-get ${JSON.stringify(value)}: the path must start with /`);
    return { probe: { httpGet: { port, path: rest || "/", scheme: scheme ? scheme[1]!.toUpperCase() : "HTTP" } }, host };
  }
  const { host, port, rest } = splitHostPort(`--${kind}`, value);
  if (kind === "tcp") {
    if (rest) throw new ConfigError(`--tcp ${JSON.stringify(value)}: expected [HOST]:PORT`);
    return { probe: { tcpSocket: { port } }, host };
  }
  if (rest && !rest.startsWith("/")) throw new ConfigError(`--grpc ${JSON.stringify(value)}: expected [HOST]:PORT[/SERVICE]`);
  return { probe: { grpc: { port, service: rest.slice(1) } }, host };
}

/** The pod as the agent serves it (GET <agent>/pods/<namespace>/<name>). */
export async function fetchPodSpec(client: AgentClient, namespace: string, name: string): Promise<Pod> {
  const agent = client.server;
  const path = `/pods/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}`;
  let res: Response;
  try {
    res = await client.fetch(path, { signal: AbortSignal.timeout(10_000) });
  } catch (e) {
    throw new LookupError(
      `cannot read the spec of pod ${namespace}/${name}: ${errorMessage(e)}; ` +
        "probes are in the pod spec, which the runtime does not keep; start the agent, point --agent at it, or give the probe with --http-get, --tcp, --grpc or --exec",
    );
  }
  if (res.status === 404) throw new LookupError(`the agent at ${agent} has no pod ${namespace}/${name}`);
  if (res.status === 401) throw new LookupError(`the agent at ${agent} needs its bearer token to read pods: give --token-file`);
  if (!res.ok) throw new LookupError(`GET ${agent}${path}: ${(await client.refusal(res)).message}`);
  return (await res.json()) as Pod;
}

/** --period, --timeout and the thresholds, over the spec's. */
export interface TimingOverrides {
  periodMs?: number;
  timeoutMs?: number;
  successThreshold?: number;
  failureThreshold?: number;
}

export interface ProbePlan {
  probe: Probe;
  container: Container;
  timing: ProbeTiming;
  /** What one attempt does (built anew each time: a named port resolves against the spec). */
  action: () => ProbeAction;
  /** The action as one line: the command, URL or address. */
  target: string;
}

/**
 * The probe to run: the ad-hoc one, or the container's own probe of `type` from the pod spec, with
 * the overrides over its timing. An ad-hoc probe starts at once; the spec's waits out its initial
 * delay from the container's start. Throws LookupError when there is nothing to probe.
 */
export function planProbe(o: {
  type: ProbeType;
  adHoc?: AdHocProbe;
  spec?: Pod;
  found?: FoundContainer;
  pod?: { namespace: string; name: string };
  overrides: TimingOverrides;
}): ProbePlan {
  const { spec, found } = o;
  const container: Container = (spec &&
    found &&
    (spec.spec?.containers.find((c) => c.name === found.containerName) ?? spec.spec?.initContainers?.find((c) => c.name === found.containerName))) ?? {
    name: found?.containerName ?? "",
  };
  const probe = o.adHoc?.probe ?? probeOf(container, o.type);
  if (!probe) throw new LookupError(`container ${JSON.stringify(container.name)} of pod ${o.pod?.namespace}/${o.pod?.name} has no ${o.type} probe`);
  // An unauthenticated read of the agent hides header values: never send the placeholder.
  if (probe.httpGet?.httpHeaders?.some((h) => h.value === REDACTED)) {
    throw new LookupError(`the agent hid the HTTP header values of this ${o.type} probe from an unauthenticated read: give --token-file (the agent's token)`);
  }
  const base = probeTiming(probe);
  const timing: ProbeTiming = {
    initialDelayMs: o.adHoc ? 0 : base.initialDelayMs,
    periodMs: o.overrides.periodMs ?? base.periodMs,
    timeoutMs: o.overrides.timeoutMs ?? base.timeoutMs,
    successThreshold: o.overrides.successThreshold ?? base.successThreshold,
    failureThreshold: o.overrides.failureThreshold ?? base.failureThreshold,
  };
  const address = { containerId: found?.containerId ?? "", host: o.adHoc?.host ?? found?.host ?? "" };
  const action = () => probeAction(probe, container, address);
  let target: string;
  try {
    target = describeAction(action());
  } catch (e) {
    throw new LookupError(errorMessage(e));
  }
  return { probe, container, timing, action, target };
}

/** The final verdict and what decided it, in the threshold code's terms. */
export function verdictLine(verdict: string, timing: ProbeTiming, last: AttemptReport | undefined): string {
  if (!last) return `verdict: ${verdict} (no attempt was made)`;
  if (last.result === "error") return `verdict: ${verdict} (unchanged: the last attempt errored)`;
  const [threshold, limit] = last.result === "success" ? ["successThreshold", timing.successThreshold] : ["failureThreshold", timing.failureThreshold];
  const runText = `${last.run} ${last.result === "success" ? (last.run === 1 ? "success" : "successes") : last.run === 1 ? "failure" : "failures"} in a row`;
  return last.settled
    ? `verdict: ${verdict} (${runText} reached ${threshold} ${limit})`
    : `verdict: ${verdict} (unchanged: ${runText}, below ${threshold} ${limit})`;
}
