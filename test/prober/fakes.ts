// Fakes for prober tests: an ExecSync runner whose answers the test scripts per container, pods with
// probes, and a free port on 127.0.0.1.
import type { Container, Pod, Probe } from "kubernetes-types/core/v1";
import { createServer, type AddressInfo } from "node:net";
import type { ContainerCommandRunner } from "../../src/prober/exec";
import { grpcStatusError } from "../fakes/grpc";

/** What one ExecSync call does: exit with a code (and output), fail with a gRPC code, or never answer. */
export type ExecBehaviour = { exit: number; stdout?: string; stderr?: string } | { grpcCode: number; details?: string } | "hang";

export class FakeExec implements ContainerCommandRunner {
  calls: { containerId: string; cmd: string[]; timeoutSeconds: number }[] = [];
  /** Behaviour per container ID; the default answers exit 0. */
  behaviour = new Map<string, ExecBehaviour>();
  /** One-off behaviours consumed before `behaviour`, per container ID. */
  next = new Map<string, ExecBehaviour[]>();

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
    this.calls.push({ containerId, cmd, timeoutSeconds });
    const b = this.next.get(containerId)?.shift() ?? this.behaviour.get(containerId) ?? { exit: 0 };
    if (b === "hang") return new Promise(() => {});
    if ("grpcCode" in b) return Promise.reject(grpcStatusError("ExecSync", b.grpcCode, b.details ?? "failed"));
    const enc = new TextEncoder();
    return Promise.resolve({ exitCode: b.exit, stdout: enc.encode(b.stdout ?? ""), stderr: enc.encode(b.stderr ?? "") });
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
