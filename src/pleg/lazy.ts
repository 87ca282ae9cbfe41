// What src/pleg loads only on demand, each an import() of its own chunk of the binary: the door
// re-exports these loaders from this file, so that only the commands that call one get its import()
// (a loader written in index.ts would be in every chunk that imports anything through the door).
/** The PLEG, for `nodeagent pleg watch` once its flags are checked. */
export const loadPleg = () => import("./pleg");
