// src/prober owns container probes: the exec (CRI ExecSync), httpGet, tcpSocket and grpc handlers, the
// threshold state machine, per-instance probe workers, the ProbeManager the agent drives, and on-demand
// probe sessions (`probe run`).
export { EXEC_RUNTIME_GRACE_MS, MAX_EXEC_OUTPUT_BYTES, type ContainerCommandRunner, type ExecSlotOptions } from "./exec";
export { ExecLimiter, ProbeSkippedError, type ExecRun } from "./exec-limiter";
export { MAX_HTTP_BODY_BYTES, probeRequestHeaders } from "./http";
export { findRunningContainer, LookupError, type ContainerQuery, type FoundContainer } from "./lookup";
export { defaultExecSlots, ProbeManager, type ProbeManagerOptions, type RunningContainer } from "./manager";
export { MAX_PROBE_TRIES, Prober, type AttemptOptions } from "./prober";
export { fetchPodSpec, parseAdHoc, planProbe, verdictLine, type AdHocProbe, type ProbePlan, type TimingOverrides } from "./probe-run";
export { runProbeSession, type AttemptReport, type ProbeSessionOptions, type ProbeSessionResult } from "./session";
export { describeAction, handlerName, joinHostPort, oneLine, probeAction, probeOf, probeTiming, PROBE_USER_AGENT, ProbeSpecError, resolvePort } from "./spec";
export { initialResult, ProbeThresholds, type ThresholdStep } from "./thresholds";
export { STALL_TOLERANCE_MS } from "./timeout";
export { ProbeWorker, type ProbeTarget } from "./worker";
export * from "./types";
export { execProbe } from "./exec";
export { httpProbe } from "./http";
export { withTimeout } from "./timeout";
export { loadProber } from "./lazy";
