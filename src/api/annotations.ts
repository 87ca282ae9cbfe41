// Well-known annotations, named once for every layer that reads or writes them. The manifest layer
// stamps a static pod's hash and source, PodConfig adds the source and the time it first saw a pod,
// the cluster layer reads and writes mirror pods, and the HTTP API hides kubectl's copy of a
// manifest from anonymous readers. They live here, at the bottom, so that no lower folder has to
// import a higher one to spell them (src/manifest once imported src/config/types for them).

/**
 * The annotations the kubelet puts on pods from its sources (pkg/kubelet/types/pod_update.go
 * ConfigHashAnnotationKey, ConfigSourceAnnotationKey, ConfigFirstSeenAnnotationKey,
 * ConfigMirrorAnnotationKey).
 */
export const CONFIG_HASH_ANNOTATION = "kubernetes.io/config.hash";
export const CONFIG_SOURCE_ANNOTATION = "kubernetes.io/config.source";
export const CONFIG_SEEN_ANNOTATION = "kubernetes.io/config.seen";
export const CONFIG_MIRROR_ANNOTATION = "kubernetes.io/config.mirror";

/** kubectl apply's copy of the manifest (k8s.io/api/core/v1 LastAppliedConfigAnnotation). */
export const LAST_APPLIED_ANNOTATION = "kubectl.kubernetes.io/last-applied-configuration";
