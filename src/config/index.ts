// src/config owns the pod sources (static pod directory, manifest URL, HTTP push, API server) and PodConfig,
// which merges them into per-source ADD/UPDATE/DELETE/REMOVE/RECONCILE operations; and the settle state
// machine a watched file goes through before it is read (settle.ts), shared with src/objects' local source.
export { FileSource } from "./file-source";
export type { FileSourceOptions } from "./file-source-options";
export { documentError } from "./file-records";
export { MAX_MANIFEST_BYTES } from "./source-limits";
export {
  BACKUP_FILE_MESSAGE,
  BACKUP_SUFFIXES,
  byteOrder,
  fsWatch,
  isBackupFileName,
  isDirectory,
  type WatchedDirectoryOptions,
  type WatchEventKind,
  type WatchFn,
  type Watcher,
} from "./watched-directory";
export { newVersion, noteRead, readVersion, settleVerdict, type FileRead, type FileVersion } from "./settle";
export { readFileCapped, statKey, type CappedFile } from "./source-limits";
export { HttpSource, type HttpSourceOptions } from "./http-source";
export { PushSource, PushUnavailableError, MAX_PUSHED_PODS, conflictCheck, type PushSourceOptions } from "./push-source";
export { PUSH_POLICIES, pushPolicyCheck, restrictedViolations, type PushCheck, type PushPolicy, type PushRefusal } from "./push-policy";
export { ApiserverSource, isMirrorPod, type PodInformer } from "./apiserver-source";
export { PodConfig, type PodConfigOptions, type PodConflict, type PodUpdateListener, type SourceReport } from "./pod-config";
export * from "./types";
export { resolveCheckFrequency, resolveManifestSources, resolvePushPolicy, SOURCE_SETTINGS, type SourceSettings } from "./settings";
