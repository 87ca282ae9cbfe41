// src/manifest owns YAML/JSON decoding with positions, and static pod naming, UID and annotations: the
// loader every pod source runs on a manifest's text.
export {
  decodeDocument,
  parseFieldPath,
  parseManifest,
  tooLargeMessage,
  KUBELET_EMPTY_MANIFEST,
  MAX_MANIFEST_BYTES,
  type DecodeProblem,
  type DecodeProblemCode,
  type DecodeResult,
  type Locator,
  type ParsedManifest,
  type SourcePosition,
  type SourceRange,
} from "./decode";
export { checkManifestKind, checkPodObject, loadStaticPods, type PodCheck, type PodCheckOptions, type PodProblem, type PodProblemStage } from "./load";
export { fnv128a, keepsManifestUID, MAX_POD_UID_LENGTH, podUIDProblem, stableStringify, staticPodName, staticPodUID, toStaticPod } from "./static-pod";
export * from "./types";
export { loadObjects, MAX_OBJECT_DATA_BYTES, type LocalObject, type ObjectsResult } from "./objects";
export { loadStaticPodsWithLocalObjects } from "./load";
