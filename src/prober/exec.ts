// The exec probe: the command runs in the container through CRI ExecSync (k/k pkg/probe/exec and the
// kubelet's RunInContainer). Exit 0 is success, any other exit code a failure; the timeout is
// enforced here as well as by the runtime, and a timeout is a failure, as the kubelet does since 1.20
// (KEP-1972, ExecProbeTimeout); before that timeoutSeconds was ignored for exec probes (k/k #26895).
import { DeadlineExceededError } from "../cri/errors";
import type { Clock } from "../util/clock";
import { withTimeout } from "./timeout";
import type { HandlerResult } from "./types";

/** Combined stdout and stderr kept from a probe command (maxReadLength in pkg/probe/exec). */
export const MAX_EXEC_OUTPUT_BYTES = 10 * 1024;

/** ExecSync: CriClient in the agent, a fake in tests. */
export interface ContainerCommandRunner {
  execSync(containerId: string, cmd: string[], timeoutSeconds: number): Promise<{ exitCode: number; stdout: Uint8Array; stderr: Uint8Array }>;
}

function combinedOutput(stdout: Uint8Array, stderr: Uint8Array): string {
  const all = new Uint8Array(stdout.byteLength + stderr.byteLength);
  all.set(stdout, 0);
  all.set(stderr, stdout.byteLength);
  return new TextDecoder().decode(all.subarray(0, MAX_EXEC_OUTPUT_BYTES));
}

export function execProbe(
  runner: ContainerCommandRunner,
  containerId: string,
  command: string[],
  timeoutMs: number,
  clock: Clock,
  signal?: AbortSignal,
): Promise<HandlerResult> {
  // The remote runtime's timeout error: `command "<cmd>" timed out`.
  const timedOut = (): HandlerResult => ({ status: "failure", output: `command ${JSON.stringify(command.join(" "))} timed out` });
  return withTimeout(clock, timeoutMs, signal, async (): Promise<HandlerResult> => {
    try {
      // CRI takes whole seconds; a sub-second timeout (probe run --timeout 500ms) is enforced here.
      const r = await runner.execSync(containerId, command, Math.max(1, Math.ceil(timeoutMs / 1000)));
      const output = combinedOutput(r.stdout, r.stderr);
      if (r.exitCode === 0) return { status: "success", output };
      return { status: "failure", output: `command '${command.join(" ")}' exited with ${r.exitCode}${output ? `: ${output.trimEnd()}` : ""}` };
    } catch (err) {
      // The runtime ended the command at its own deadline: a timeout, not an error.
      if (err instanceof DeadlineExceededError) return timedOut();
      return { status: "unknown", output: "", error: err as Error };
    }
  }, timedOut);
}
