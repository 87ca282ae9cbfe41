// What src/kube loads only on demand, each an import() of its own chunk of the binary: the door
// re-exports these loaders from this file, so that only the commands that call one get its import()
// (a loader written in index.ts would be in every chunk that imports anything through the door).
/** The API client (and @kubernetes/client-node with it), for commands that talk to a cluster. */
export const loadKube = () => import("./client");
