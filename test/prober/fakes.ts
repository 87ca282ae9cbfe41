// Fakes for prober tests: an ExecSync runner whose answers the test scripts per container, pods with
// probes, and a free port on 127.0.0.1.
import type { Container, Pod, Probe } from "kubernetes-types/core/v1";
import { createServer, type AddressInfo } from "node:net";
import type { ContainerCommandRunner } from "../../src/prober/exec";
import type { Clock } from "../../src/util/clock";
import { grpcStatusError } from "../fakes/grpc";

/**
 * What one ExecSync call does: exit with a code (and output), fail with a gRPC code, never answer (a
 * stuck runtime), or — on the fake's clock — take time as a runtime does: `setupMs` to start the
 * process (the runtime's timeout does not count it), then the command runs `runsMs`; past the
 * call's timeout the runtime ends it and answers DeadlineExceeded, as containerd does.
 */
export type ExecBehaviour =
  | { exit: number; stdout?: string; stderr?: string }
  | { grpcCode: number; details?: string }
  | { setupMs?: number; runsMs: number; exit?: number }
  | "hang";

export class FakeExec implements ContainerCommandRunner {
  calls: { containerId: string; cmd: string[]; timeoutSeconds: number; at: number }[] = [];
  /** ExecSyncs not answered yet, and the most there ever were at once. */
  inFlight = 0;
  maxInFlight = 0;
  /** Behaviour per container ID; the default answers exit 0. */
  behaviour = new Map<string, ExecBehaviour>();
  /** One-off behaviours consumed before `behaviour`, per container ID. */
  next = new Map<string, ExecBehaviour[]>();

  /** `clock` times the behaviours that take time (and stamps calls); without it they answer at once. */
  constructor(private readonly clock?: Clock) {}

  set(containerId: string, b: ExecBehaviour): void {
    this.behaviour.set(containerId, b);
  }
  queue(containerId: string, ...b: ExecBehaviour[]): void {
    this.next.set(containerId, [...(this.next.get(containerId) ?? []), ...b]);
  }
  callsFor(containerId: string): number {
    return this.calls.filter((c) => c.containerId === containerId).length;
  }

  execSync(containerId: string, cmd: string[], timeoutSeconds: number): Promise<{ exitCode: number; stdout: Uint8Array; stderr: Uint8Array }> {
    this.calls.push({ containerId, cmd, timeoutSeconds, at: this.clock?.now() ?? 0 });
    const b = this.next.get(containerId)?.shift() ?? this.behaviour.get(containerId) ?? { exit: 0 };
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    if (b === "hang") return new Promise(() => {});
    const answer = (): Promise<{ exitCode: number; stdout: Uint8Array; stderr: Uint8Array }> => {
      this.inFlight--;
      if ("grpcCode" in b) return Promise.reject(grpcStatusError("ExecSync", b.grpcCode, b.details ?? "failed"));
      if ("runsMs" in b) {
        if (b.runsMs > timeoutSeconds * 1000)
          return Promise.reject(grpcStatusError("ExecSync", 4, `timeout ${timeoutSeconds}s exceeded: context deadline exceeded`));
        return Promise.resolve({ exitCode: b.exit ?? 0, stdout: new Uint8Array(), stderr: new Uint8Array() });
      }
      const enc = new TextEncoder();
      return Promise.resolve({ exitCode: b.exit, stdout: enc.encode(b.stdout ?? ""), stderr: enc.encode(b.stderr ?? "") });
    };
    if (!("runsMs" in b)) return answer();
    if (!this.clock) throw new Error("FakeExec: a behaviour that takes time needs the clock");
    const ms = (b.setupMs ?? 0) + Math.min(b.runsMs, timeoutSeconds * 1000);
    return this.clock.sleep(ms).then(answer);
  }
}

export const execProbe = (p: Partial<Probe> = {}): Probe => ({ exec: { command: ["check"] }, ...p });

export function probedPod(uid: string, container: Partial<Container>, extra: Partial<Pod["spec"]> = {}): Pod {
  return {
    metadata: { name: `pod-${uid}`, namespace: "default", uid },
    spec: { containers: [{ name: "app", image: "busybox", ...container }], ...extra },
  };
}

/** A TCP port on 127.0.0.1 that nothing listens on (bound, then closed). */
export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}
