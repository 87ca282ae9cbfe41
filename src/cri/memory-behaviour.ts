// A hollow pod's own behaviour in the in-memory runtime (memory-runtime.ts), from its annotations.
// The kubelet passes a pod's annotations to RunPodSandbox's config, so a pod spec can say how its
// containers behave on a runtime that runs nothing:
//   hollow.nodeagent.io/exit-after      a duration ("5s", "1m30s", "0s"): every container of the pod
//                                       exits this long after it starts (a Job's pod, an init container)
//   hollow.nodeagent.io/exit-code       the code they exit with then (default 0: Completed; else Error)
//   hollow.nodeagent.io/start-latency   a duration: RunPodSandbox and StartContainer of this pod take
//                                       this long, in place of the runtime's startLatencyMs
//   hollow.nodeagent.io/ignore-sigterm  "true": StopContainer waits the whole grace period and the
//                                       container exits 137, as a process that ignores SIGTERM
//   hollow.nodeagent.io/exec-exit-code  what ExecSync answers in the pod's containers (exec probes,
//                                       hooks): "1" makes exec probes fail (default 0)
// A value that does not parse is ignored, as an unknown annotation is; the runtime's defaults apply.
import { parseDuration } from "../util";
import type { ContainerState, ExecSyncResponse } from "./types";

export const HOLLOW_ANNOTATION_PREFIX = "hollow.nodeagent.io/";
export const EXIT_AFTER_ANNOTATION = "hollow.nodeagent.io/exit-after";
export const EXIT_CODE_ANNOTATION = "hollow.nodeagent.io/exit-code";
export const START_LATENCY_ANNOTATION = "hollow.nodeagent.io/start-latency";
export const IGNORE_SIGTERM_ANNOTATION = "hollow.nodeagent.io/ignore-sigterm";
export const EXEC_EXIT_CODE_ANNOTATION = "hollow.nodeagent.io/exec-exit-code";

export interface PodBehaviour {
  exitAfterMs?: number;
  exitCode?: number;
  startLatencyMs?: number;
  ignoreSigterm?: boolean;
  execExitCode?: number;
}

function duration(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  try {
    const ms = parseDuration(v);
    return ms >= 0 ? ms : undefined;
  } catch {
    return undefined;
  }
}

function code(v: string | undefined): number | undefined {
  if (v === undefined || !/^\d{1,3}$/.test(v.trim())) return undefined;
  const n = Number(v);
  return n <= 255 ? n : undefined;
}

/** The pod's behaviour from its sandbox's annotations; undefined when it sets none (most pods). */
export function podBehaviour(annotations: Record<string, string> | undefined | null): PodBehaviour | undefined {
  if (!annotations) return undefined;
  let any = false;
  for (const k in annotations) if (k.startsWith(HOLLOW_ANNOTATION_PREFIX)) any = true;
  if (!any) return undefined;
  const b: PodBehaviour = {};
  const exitAfter = duration(annotations[EXIT_AFTER_ANNOTATION]);
  if (exitAfter !== undefined) b.exitAfterMs = exitAfter;
  const exitCode = code(annotations[EXIT_CODE_ANNOTATION]);
  if (exitCode !== undefined) b.exitCode = exitCode;
  const latency = duration(annotations[START_LATENCY_ANNOTATION]);
  if (latency !== undefined) b.startLatencyMs = latency;
  if (annotations[IGNORE_SIGTERM_ANNOTATION] === "true") b.ignoreSigterm = true;
  const execCode = code(annotations[EXEC_EXIT_CODE_ANNOTATION]);
  if (execCode !== undefined) b.execExitCode = execCode;
  return b;
}

/** containerd's exit code for a container killed by SIGKILL (128 + 9). */
export const KILLED_EXIT_CODE = 137;

/** When and how a started container exits by itself, or how a stopped one ends. */
export interface ExitPlan {
  afterMs: number;
  exitCode: number;
}

/** A started container's own end: the pod's exit-after, else the runtime's; undefined: it runs until stopped. */
export function exitPlanFor(b: PodBehaviour | undefined, runtime: { exitAfterMs?: number; exitCode?: number }): ExitPlan | undefined {
  const afterMs = b?.exitAfterMs ?? runtime.exitAfterMs;
  if (afterMs === undefined) return undefined;
  return { afterMs, exitCode: b?.exitCode ?? runtime.exitCode ?? 0 };
}

/**
 * How StopContainer ends a container: one that does not run is left as it is (as containerd does); a
 * grace period of 0 is SIGKILL at once (137); a pod that ignores SIGTERM is killed when the grace
 * period ends (137); any other exits at once with 0, as a process that honours SIGTERM.
 */
export function stopPlanFor(state: ContainerState, b: PodBehaviour | undefined, timeoutSeconds: number): ExitPlan | undefined {
  if (state !== "CONTAINER_RUNNING") return undefined;
  if (timeoutSeconds <= 0) return { afterMs: 0, exitCode: KILLED_EXIT_CODE };
  if (b?.ignoreSigterm) return { afterMs: timeoutSeconds * 1000, exitCode: KILLED_EXIT_CODE };
  return { afterMs: 0, exitCode: 0 };
}

/** ExecSync's answer: no output, exit 0 or the pod's exec-exit-code. */
export function execAnswerFor(b: PodBehaviour | undefined): ExecSyncResponse {
  return { exitCode: b?.execExitCode ?? 0, stdout: Buffer.alloc(0), stderr: Buffer.alloc(0) };
}
