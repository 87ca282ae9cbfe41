// The exec probe: the command runs in the container through CRI ExecSync (k/k pkg/probe/exec and the
// kubelet's RunInContainer). Exit 0 is success, any other exit code a failure, and a timeout is a
// failure, as the kubelet does since 1.20 (KEP-1972, ExecProbeTimeout; before that timeoutSeconds was
// ignored for exec probes, k/k #26895).
//
// Whose time the timeout measures: the command's, as in the kubelet. The runtime is given the
// timeout and measures it from when the command started (containerd's ExecSync arms it after the
// exec process started), so neither a wait for the runtime's attention nor `runc exec` setting the
// process up counts; the kubelet's own deadline on the call is only a backstop, the timeout plus its
// runtime request timeout (remote_runtime.go ExecSync). The agent's backstop is the timeout plus
// EXEC_RUNTIME_GRACE_MS. Only a timeout that is not whole seconds (`probe run --timeout 500ms`),
// which CRI cannot carry, is enforced here from the call.
//
// In the agent the call first takes one of the node's exec slots (ExecLimiter), waiting its turn
// before the clock starts; a timeout while the runtime was slow for every container is marked
// `excused` (the worker decides what that is worth).
import { DeadlineExceededError } from "../cri";
import type { Clock } from "../util";
import type { ExecLimiter, ExecRun } from "./exec-limiter";
import { withTimeout } from "./timeout";
import type { HandlerResult } from "./types";

/** Combined stdout and stderr kept from a probe command (maxReadLength in pkg/probe/exec). */
export const MAX_EXEC_OUTPUT_BYTES = 10 * 1024;

/**
 * How long past the timeout the agent waits for the runtime's answer. A runtime ends a command that
 * outlives its timeout and answers DeadlineExceeded within milliseconds; seconds more is a runtime
 * that is swamped or stuck, which ExecLimiter.runtimeWasSlow tells apart from a container.
 */
export const EXEC_RUNTIME_GRACE_MS = 5000;

/** ExecSync: CriClient in the agent, a fake in tests. */
export interface ContainerCommandRunner {
  execSync(containerId: string, cmd: string[], timeoutSeconds: number): Promise<{ exitCode: number; stdout: Uint8Array; stderr: Uint8Array }>;
}

/** How an exec probe shares the node's exec capacity (the agent's workers; `probe run` has none). */
export interface ExecSlotOptions {
  limiter: ExecLimiter;
  /** Whose probe this is (its worker): one ExecSync each in the runtime. */
  owner: unknown;
}

function combinedOutput(stdout: Uint8Array, stderr: Uint8Array): string {
  const all = new Uint8Array(stdout.byteLength + stderr.byteLength);
  all.set(stdout, 0);
  all.set(stderr, stdout.byteLength);
  return new TextDecoder().decode(all.subarray(0, MAX_EXEC_OUTPUT_BYTES));
}

export async function execProbe(
  runner: ContainerCommandRunner,
  containerId: string,
  command: string[],
  timeoutMs: number,
  clock: Clock,
  signal?: AbortSignal,
  slots?: ExecSlotOptions,
): Promise<HandlerResult> {
  const queuedFrom = clock.now();
  let run: ExecRun | undefined;
  if (slots) {
    try {
      run = await slots.limiter.acquire(slots.owner, containerId, signal);
    } catch (err) {
      // Skipped (ProbeSkippedError), or the worker stopped while it waited.
      return { status: "unknown", output: "", error: err as Error, queuedMs: clock.now() - queuedFrom };
    }
  }
  const queuedMs = clock.now() - queuedFrom;
  if (signal?.aborted) {
    // Stopped between getting its slot and using it: nothing was sent.
    if (run) slots!.limiter.end(run);
    return { status: "unknown", output: "", error: signal.reason as Error, queuedMs };
  }
  const wholeSeconds = timeoutMs > 0 && timeoutMs % 1000 === 0;
  // No timeout (Infinity, a lifecycle hook's exec): CRI's 0, which the runtime takes as none.
  const call = runner.execSync(containerId, command, Number.isFinite(timeoutMs) ? Math.max(1, Math.ceil(timeoutMs / 1000)) : 0);
  // The slot is the runtime's work, not the prober's patience: it is free when the runtime answers.
  if (run) {
    const done = () => slots!.limiter.end(run!);
    void call.then(done, done);
  }
  let timedOut = false;
  // The remote runtime's timeout error: `command "<cmd>" timed out`.
  const timeout = (): HandlerResult => {
    timedOut = true;
    return { status: "failure", output: `command ${JSON.stringify(command.join(" "))} timed out` };
  };
  const result = await withTimeout(
    clock,
    wholeSeconds ? timeoutMs + EXEC_RUNTIME_GRACE_MS : timeoutMs,
    signal,
    async (): Promise<HandlerResult> => {
      try {
        const r = await call;
        const output = combinedOutput(r.stdout, r.stderr);
        if (r.exitCode === 0) return { status: "success", output };
        return {
          status: "failure",
          output: `command '${command.join(" ")}' exited with ${r.exitCode}${output ? `: ${output.trimEnd()}` : ""}`,
          commandOutput: output,
        };
      } catch (err) {
        // The runtime ended the command at its own deadline: a timeout, not an error.
        if (err instanceof DeadlineExceededError) return timeout();
        return { status: "unknown", output: "", error: err as Error };
      }
    },
    timeout,
  );
  if (timedOut && run && !signal?.aborted && slots!.limiter.runtimeWasSlow(run, timeoutMs)) {
    result.excused = "most other containers' execs were as slow at the time: the runtime, not this container, was slow";
  }
  return { ...result, queuedMs };
}
