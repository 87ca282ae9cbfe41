// What src/cluster loads only on demand, each an import() of its own chunk of the binary: the door
// re-exports these loaders from this file, so that only the commands that call one get its import()
// (a loader written in index.ts would be in every chunk that imports anything through the door).
/** The cluster node (--kubeconfig): registration, lease, status manager and mirror pods together. */
export const loadClusterNode = () => import("./cluster-node");
