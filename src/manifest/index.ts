// src/manifest owns YAML/JSON decoding with positions, and static pod naming, UID and annotations: the
// loader every pod source runs on a manifest's text. It imports src/api and src/util (and the annotation
// names from src/config/types, a leaf module of constants and types).
export { decodeDocument, parseFieldPath, KUBELET_EMPTY_MANIFEST, MAX_MANIFEST_BYTES, type DecodeResult, type SourcePosition } from "./decode";
export { loadStaticPods } from "./load";
export { fnv128a, stableStringify, staticPodName, staticPodUID, toStaticPod } from "./static-pod";
export * from "./types";
