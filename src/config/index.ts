// src/config owns the pod sources (static pod directory, manifest URL, HTTP push, API server) and PodConfig, which
// merges them into per-source ADD/UPDATE/DELETE/REMOVE/RECONCILE operations; imports src/manifest,
// src/api and src/util.
export { FileSource, BACKUP_FILE_MESSAGE, BACKUP_SUFFIXES, MAX_MANIFEST_BYTES, documentError, isBackupFileName, type FileSourceOptions, type WatchFn, type Watcher } from "./file-source";
export { HttpSource, type HttpSourceOptions } from "./http-source";
export { PushSource, PushUnavailableError, MAX_PUSHED_PODS, conflictCheck, type PushSourceOptions } from "./push-source";
export { PUSH_POLICIES, pushPolicyCheck, restrictedViolations, type PushCheck, type PushPolicy, type PushRefusal } from "./push-policy";
export { ApiserverSource, isMirrorPod, type PodInformer } from "./apiserver-source";
export { PodConfig, type PodConfigOptions, type PodConflict, type PodUpdateListener, type SourceReport } from "./pod-config";
export * from "./types";
export { resolveCheckFrequency, resolveManifestSources, resolvePushPolicy, SOURCE_SETTINGS, type SourceSettings } from "./settings";
