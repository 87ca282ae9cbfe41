// What src/objects loads only on demand, each an import() of its own chunk of the binary: the door
// re-exports these loaders from this file, so that only the commands that call one get its import()
// (a loader written in index.ts would be in every chunk that imports anything through the door).
/** ConfigMaps, Secrets and tokens from the API server (cluster mode): it brings the Kubernetes client. */
export const loadApiObjectSource = () => import("./api-object-source");
/** Services from the API server for the service environment variables (cluster mode). */
export const loadApiServiceLister = () => import("./api-service-lister");
