// src/logs owns container logs: reading them as `kubectl logs` shows them — the CRI log-file format
// (log-line.ts), the query (log-options.ts), which instance a request reads (container-log-status.ts),
// the kubelet's ReadLogs loop (read-logs.ts), the client half for `nodeagent logs` (log-request.ts) —
// and rotating them as the kubelet's container log manager does (container-log-manager.ts).
export { ContainerLogStatusError, containerIdForLogs, hasContainer, runtimeContainerId } from "./container-log-status";
export { NodeLogFiles, type Closer, type LogFile, type LogFiles } from "./log-files";
export {
  formatLogTime,
  logTimeBefore,
  logTimeFromMs,
  MalformedLineError,
  parseCriLine,
  parseDockerJsonLine,
  parseLogLine,
  parseLogTime,
  type LogLine,
  type LogStream,
  type LogTime,
} from "./log-line";
export { DECODE_ERROR, INVALID_ERROR, LogQueryError, parsePodLogOptions, toLogOptions, type LogOptions, type PodLogOptions } from "./log-options";
export { LOG_FORCE_CHECK_MS, MAX_JOINED_BYTES, MAX_LINE_BYTES, openLogs, type OpenedLogs, type ReadLogsDeps } from "./read-logs";
export { findTailStart } from "./tail";
export { ContainerChoiceError, DEFAULT_CONTAINER_ANNOTATION, defaultContainer, logsQuery } from "./log-request";
export {
  cleanContainerLogs,
  ContainerLogManager,
  DEFAULT_CONTAINER_LOG_POLICY,
  LOG_MONITOR_PERIOD_MS,
  rotationTimestamp,
  type ContainerLogManagerOptions,
  type ContainerLogPolicy,
  type ContainerLogRuntime,
} from "./container-log-manager";
