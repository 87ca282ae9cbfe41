// src/nodeshutdown owns graceful node shutdown (pkg/kubelet/nodeshutdown): the ShutdownManager that stops
// pods by priority group within their budgets and refuses new ones meanwhile, how budgets are shared, and
// what starts a shutdown (logind's PrepareForShutdown behind a delay lock, or SIGTERM with --shutdown-pods).
export {
  groupByPriority,
  migrateGracePeriods,
  periodRequestedSeconds,
  sortGroups,
  type PodShutdownGroup,
  type ShutdownGracePeriodByPodPriority,
} from "./grace-periods";
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
