// src/admission owns the pod admit handlers: the checks a new pod must pass before the node starts it
// (the kubelet's lifecycle.PodAdmitHandler chain). A refused pod gets phase Failed with the handler's
// reason and message and never runs. The agent runs the chain on every ADD, in the kubelet's order:
// the eviction manager's handler (src/eviction), the sysctl allowlist (sysctls.ts), the predicate
// handler (predicate-admit-handler.ts: resources, pod count, node affinity, node name, host ports,
// NoExecute taints, OS; critical pods preempt others instead of being refused for resources,
// critical-pod-admission.ts), then node shutdown. It imports src/api, src/util, the scheduler's model
// and filter code (src/scheduler: the node runs the scheduler's own predicates, as the kubelet does) and
// src/api's critical priority (pod-priority.ts); never src/agent.
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
export { APPARMOR_NOT_ADMITTED_REASON, AppArmorAdmitHandler, appArmorHostProblem, appArmorProblem } from "./apparmor";
export { resolveAllowedUnsafeSysctls, SYSCTL_SETTINGS } from "./settings";
