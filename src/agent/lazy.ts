// What src/agent loads only on demand, each an import() of its own chunk of the binary: the door
// re-exports these loaders from this file, so that only the commands that call one get its import()
// (a loader written in index.ts would be in every chunk that imports anything through the door).
/** The node: what `nodeagent agent` runs once its flags are checked. */
export const loadNode = () => import("./node");
