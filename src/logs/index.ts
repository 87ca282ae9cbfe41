// src/logs owns reading container logs as `kubectl logs` shows them: the CRI log-file format
// (log-line.ts), the query (log-options.ts), which instance a request reads (container-log-status.ts)
// and the kubelet's ReadLogs loop — tail, limitBytes, since, follow across rotation (read-logs.ts).
// It sees files through LogFiles and time through Clock; it may import src/util and kubernetes-types only.
// log-request.ts is the client half, for `nodeagent logs`: the default container and the query.
export { ContainerLogStatusError, containerIdForLogs, hasContainer, runtimeContainerId } from "./container-log-status";
export { NodeLogFiles, type Closer, type LogFile, type LogFiles } from "./log-files";
export { formatLogTime, logTimeBefore, logTimeFromMs, MalformedLineError, parseCriLine, parseDockerJsonLine, parseLogLine, parseLogTime, type LogLine, type LogStream, type LogTime } from "./log-line";
export { DECODE_ERROR, INVALID_ERROR, LogQueryError, parsePodLogOptions, toLogOptions, type LogOptions, type PodLogOptions } from "./log-options";
export { LOG_FORCE_CHECK_MS, MAX_JOINED_BYTES, MAX_LINE_BYTES, openLogs, type OpenedLogs, type ReadLogsDeps } from "./read-logs";
export { findTailStart } from "./tail";
export { ContainerChoiceError, DEFAULT_CONTAINER_ANNOTATION, defaultContainer, logsQuery } from "./log-request";
