// src/api owns the Kubernetes object helpers: quantities, the Pod schema (Go types, unknown fields),
// defaulting, pod validation with apimachinery's name rules and messages, what kind of resource a name
// is, well-known annotations, facts about a pod (identity, whether it has finished), the labels a node
// may set on itself and where a pod's folders and volumes live on the host.
export * from "./quantity";
export * from "./defaults";
export { validatePod } from "./validation";
export type { PodValidationOptions } from "./validate-env";
export { fieldErrorBody, fieldErrorMessage, goQuote, type FieldError, type FieldErrorType } from "./field-error";
export {
  isConfigMapKey,
  isDNS1123Label,
  isDNS1123Subdomain,
  isEnvVarName,
  isQualifiedName,
  isValidLabelValue,
  isValidPortName,
  isValidPortNum,
  labelValueError,
  MAX_POD_UID_LENGTH,
  podUIDProblem,
  qualifiedNameError,
} from "./name-validation";
export { isExtendedResourceName, isHugePageResourceName, isNativeResourceName, isPrefixedNativeResourceName } from "./resource-names";
export { staticPodApiReferenceErrors, type StaticPodReferenceOptions } from "./static-pod-references";
export * from "./pod-schema";
export * from "./pod-decode";
export * from "./pod";
export * from "./annotations";
export * from "./node-labels";
export * from "./expansion";
export * from "./subpath";
export * from "./supplemental-groups";
export * from "./apparmor";
export * from "./pod-references";
export * from "./pod-waits";
export * from "./pod-priority";
export * from "./pod-dirs";
export { positiveBytes } from "./settings-parsers";
export { aggregateContainers } from "./pod-resources";
export { loadPodWaits } from "./lazy";
