// src/admission owns the pod admit handlers (the kubelet's lifecycle.PodAdmitHandler chain): the checks a
// new pod must pass before it runs — resources, pod count, affinity, host ports, taints and OS through the
// scheduler's own predicates, critical-pod preemption, sysctls, unsupported fields — and their reasons.
export { admitPod, type PodAdmitAttributes, type PodAdmitHandler, type PodAdmitResult } from "./types";
export {
  generalPredicates,
  insufficientResourceMessage,
  NO_FAILURE_HANDLER,
  PredicateAdmitHandler,
  type AdmissionFailureHandler,
  type PredicateAdmitHandlerOptions,
  type PredicateFailure,
} from "./predicate-admit-handler";
export {
  CriticalPodAdmissionHandler,
  podsToPreempt,
  PREEMPTED_MESSAGE,
  PREEMPTING_REASON,
  type CriticalPodAdmissionOptions,
  type PreemptionTarget,
  type QOSClass,
} from "./critical-pod-admission";
export { SAFE_SYSCTLS, SYSCTL_FORBIDDEN_REASON, SysctlAdmitHandler, SysctlAllowlist } from "./sysctls";
export { FIELD_NOT_SUPPORTED_REASON, UnsupportedFieldsAdmitHandler, unsupportedFieldProblem } from "./unsupported-fields";
export { NewerFieldsAdmitHandler, newerFieldRefusal } from "./newer-fields";
export { APPARMOR_NOT_ADMITTED_REASON, AppArmorAdmitHandler, appArmorHostProblem, appArmorProblem } from "./apparmor";
export { resolveAllowedUnsafeSysctls, SYSCTL_SETTINGS } from "./settings";
export {
  nodeSupportsSupplementalGroupsPolicy,
  SUPPLEMENTAL_GROUPS_POLICY_NOT_SUPPORTED_REASON,
  supplementalGroupsPolicyRefusal,
} from "./supplemental-groups-policy";
