// src/nodeshutdown owns graceful node shutdown (the kubelet's pkg/kubelet/nodeshutdown): the
// ShutdownManager that stops the pods by priority group within their budgets and refuses new pods
// meanwhile (a PodAdmitHandler, last in the chain), how the budgets are shared (grace-periods.ts), and
// what starts a shutdown — systemd-logind's PrepareForShutdown behind a delay lock (logind.ts, the
// ShutdownSignal seam), or SIGTERM with --shutdown-pods (src/agent/node.ts). It imports src/api,
// src/admission's types and src/util (the critical priority is src/api's); never src/agent.
export { groupByPriority, migrateGracePeriods, periodRequestedSeconds, sortGroups, type PodShutdownGroup, type ShutdownGracePeriodByPodPriority } from "./grace-periods";
export {
  NODE_SHUTDOWN_MESSAGE,
  NODE_SHUTDOWN_NOT_ADMITTED_MESSAGE,
  NODE_SHUTDOWN_NOT_ADMITTED_REASON,
  NODE_SHUTDOWN_REASON,
  NODE_SHUTTING_DOWN_MESSAGE,
  ShutdownManager,
  watchShutdownSignal,
  type ShutdownManagerOptions,
  type ShutdownSignal,
  type ShutdownTarget,
} from "./shutdown-manager";
export { LogindShutdownSignal, prepareForShutdown, SYSTEM_BUS_SOCKET, type LogindOptions } from "./logind";
export { resolveShutdown, SHUTDOWN_SETTINGS, type ShutdownConfig } from "./settings";
