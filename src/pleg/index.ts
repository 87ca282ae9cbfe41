// src/pleg owns the pod lifecycle event generator: relisting (the only writer of the pod status
// cache), the runtime's event stream used as relist hints, and the events the sync loop consumes.
export { Pleg, EventedPlegUnavailableError, type ModeChange, type PlegModeSetting, type PlegOptions, type PlegRuntime } from "./pleg";
export { PodStatusCache } from "./cache";
export { Relister, type RelistRuntime } from "./relist";
export type * from "./types";
export { loadPleg } from "./lazy";
