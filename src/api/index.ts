// src/api owns the Kubernetes object helpers: quantities, the Pod schema (Go types, unknown fields),
// defaulting, pod validation, well-known annotations, facts about a pod (identity, whether it has
// finished) and the labels a node may set on itself.
// It imports nothing from src/ but src/util; everything that reads or checks a Pod object uses these.
export * from "./quantity";
export * from "./defaults";
export * from "./validation";
export * from "./pod-schema";
export * from "./pod";
export * from "./annotations";
export * from "./node-labels";
export * from "./expansion";
export * from "./subpath";
export * from "./apparmor";
export * from "./pod-references";
export * from "./pod-waits";
export * from "./pod-priority";
export { positiveBytes } from "./settings-parsers";
