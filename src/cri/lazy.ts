// What src/cri loads only on demand, each an import() of its own chunk of the binary: the door
// re-exports these loaders from this file, so that only the commands that call one get its import()
// (a loader written in index.ts would be in every chunk that imports anything through the door).
/** The CRI client, for commands that load it once their flags are checked. */
export const loadCriClient = () => import("./client");
/** Finding (or starting) the runtime, for the same commands. */
export const loadRuntimeResolver = () => import("./runtime");
