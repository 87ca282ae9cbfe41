// src/prober owns container probes: the exec (CRI ExecSync), httpGet, tcpSocket and grpc handlers,
// the threshold state machine, per-instance probe workers, the ProbeManager the agent drives, and
// on-demand probe sessions and their plan (`probe run`). It may import src/cri, src/api and src/util,
// never src/agent.
export { MAX_EXEC_OUTPUT_BYTES, type ContainerCommandRunner } from "./exec";
export { healthServiceDefinition, type HealthCheckRequest, type HealthCheckResponse } from "./grpc";
export { MAX_HTTP_BODY_BYTES, probeRequestHeaders } from "./http";
export { findRunningContainer, LookupError, type ContainerQuery, type FoundContainer } from "./lookup";
export { ProbeManager, type ProbeManagerOptions, type RunningContainer } from "./manager";
export { MAX_PROBE_TRIES, Prober } from "./prober";
export { fetchPodSpec, parseAdHoc, planProbe, verdictLine, type AdHocProbe, type ProbePlan, type TimingOverrides } from "./probe-run";
export { runProbeSession, type AttemptReport, type ProbeSessionOptions, type ProbeSessionResult } from "./session";
export { describeAction, handlerName, joinHostPort, oneLine, probeAction, probeOf, probeTiming, PROBE_USER_AGENT, ProbeSpecError, resolvePort } from "./spec";
export { initialResult, ProbeThresholds, type ThresholdStep } from "./thresholds";
export { ProbeWorker, type ProbeTarget } from "./worker";
export * from "./types";
