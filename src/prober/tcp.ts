// The tcpSocket probe: success when a TCP connection opens, then it is closed at once (k/k
// pkg/probe/tcp DoTCPProbe). A refused or timed-out dial is a failure whose output is the dial error,
// worded as the kubelet's Go errors are, so events read the same as on a kubelet node. node:net is
// imported on the first probe, not with this module (see http.ts: a bundle hoists static imports).
import { type Clock, formatDuration } from "../util";
import { joinHostPort } from "./spec";
import { withTimeout } from "./timeout";
import type { HandlerResult } from "./types";

const ERRNO_TEXT: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  EHOSTUNREACH: "no route to host",
  ENETUNREACH: "network is unreachable",
  EADDRNOTAVAIL: "cannot assign requested address",
};

/** The error is one of a failed connect (refused, unreachable, reset). */
export function isDialError(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code !== undefined && code in ERRNO_TEXT;
}

/** A failed dial as Go's net package words it: "dial tcp 10.0.0.1:80: connect: connection refused". */
export function dialError(address: string, err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  const text = (e.code && ERRNO_TEXT[e.code]) ?? e.message ?? String(err);
  return `dial tcp ${address}: connect: ${text}`;
}

export async function tcpProbe(host: string, port: number, timeoutMs: number, clock: Clock, signal?: AbortSignal): Promise<HandlerResult> {
  const address = joinHostPort(host, port);
  const { connect } = await import("node:net");
  return withTimeout(
    clock,
    timeoutMs,
    signal,
    (abort) =>
      new Promise<HandlerResult>((resolve) => {
        const socket = connect({ host, port });
        abort.addEventListener("abort", () => socket.destroy(), { once: true });
        socket.once("connect", () => {
          socket.destroy();
          resolve({ status: "success", output: "" });
        });
        socket.once("error", (err) => {
          socket.destroy();
          resolve({ status: "failure", output: dialError(address, err) });
        });
      }),
    () => ({ status: "failure", output: `dial tcp ${address}: i/o timeout (after ${formatDuration(timeoutMs)})` }),
  );
}
