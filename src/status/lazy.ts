// What src/status loads only on demand, each an import() of its own chunk of the binary: the door
// re-exports these loaders from this file, so that only the code that calls one gets its import()
// (a loader written in index.ts would be in every chunk that imports anything through the door).
/**
 * The API server's StatusManager, loaded when a cluster node is made: it brings @kubernetes/client-node,
 * which a standalone agent (whose sync imports this module for computeApiPodStatus) never loads.
 */
export const loadStatusManager = () => import("./status-manager");
