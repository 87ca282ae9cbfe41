// A pod's priority and whether it is critical: the one place every layer asks (eviction ranking and
// its refusal to evict, eviction admission, critical-pod preemption, the OOM score, node shutdown's
// groups, the scheduler's input).
//
// Priority: in a cluster the API server's Priority admission plugin resolves spec.priorityClassName
// into spec.priority, so a pod from the API always carries it. A static pod never passes through that
// plugin: a kubeadm control-plane manifest says `priorityClassName: system-node-critical` and no
// `priority`. The two built-in classes every cluster has (k/k pkg/apis/scheduling
// SystemPriorityClasses) are known by name here; any other class can only be resolved by the API
// server, so a pod naming one without a priority counts as 0 (corev1helpers.PodPriority's default).
//
// Critical (the kubelet's pkg/kubelet/types IsCriticalPod): a static or mirror pod, or a pod whose
// priority is at least SystemCriticalPriority (2×10⁹). Standalone (no --kubeconfig) every pod the
// agent runs is "static" by the kubelet's rule (file, URL, pushed), which would make every pod
// critical: nothing could ever be evicted or preempted. So standalone only the priority counts — a
// departure, documented in the README: a standalone static pod without a critical priority may be
// evicted, while a kubeadm manifest (system-node-critical by name) is critical.
import type { Pod } from "kubernetes-types/core/v1";
import { isMirrorPod, isStaticPod } from "./pod";

/** scheduling.SystemCriticalPriority: a pod at or above it is critical. */
export const SYSTEM_CRITICAL_PRIORITY = 2_000_000_000;

/** The built-in PriorityClasses (scheduling.SystemPriorityClasses): name → value. */
export const SYSTEM_PRIORITY_CLASSES: Readonly<Record<string, number>> = Object.freeze({
  "system-node-critical": SYSTEM_CRITICAL_PRIORITY + 1000,
  "system-cluster-critical": SYSTEM_CRITICAL_PRIORITY,
});

/** The priority class the node's own critical daemons use (scheduling.SystemNodeCritical). */
export const SYSTEM_NODE_CRITICAL = "system-node-critical";

/**
 * The pod's priority when it has one: spec.priority, else the value of a built-in class it names;
 * undefined otherwise (what the kubelet's Preemptable reads as a nil priority).
 */
export function declaredPriority(pod: Pod): number | undefined {
  const p = pod.spec?.priority;
  if (p !== undefined && p !== null) return p;
  const name = pod.spec?.priorityClassName;
  return name ? SYSTEM_PRIORITY_CLASSES[name] : undefined;
}

/** corev1helpers.PodPriority, with the built-in classes resolved by name: 0 without a priority. */
export function podPriority(pod: Pod): number {
  return declaredPriority(pod) ?? 0;
}

/** Where the node stands, for the kubelet's static-pod rule. */
export interface CriticalPodOptions {
  /** The node belongs to a cluster (--kubeconfig): its static and mirror pods are critical. */
  cluster: boolean;
}

/** kubelettypes.IsCriticalPodBasedOnPriority, with the built-in classes resolved by name. */
export function hasCriticalPriority(pod: Pod): boolean {
  return podPriority(pod) >= SYSTEM_CRITICAL_PRIORITY;
}

/** kubelettypes.IsCriticalPod (see the header for the standalone departure). */
export function isCriticalPod(pod: Pod, o: CriticalPodOptions): boolean {
  if (o.cluster && (isStaticPod(pod) || isMirrorPod(pod))) return true;
  return hasCriticalPriority(pod);
}

/** kubelettypes.IsNodeCriticalPod: critical and of the system-node-critical class. */
export function isNodeCriticalPod(pod: Pod, o: CriticalPodOptions): boolean {
  return isCriticalPod(pod, o) && pod.spec?.priorityClassName === SYSTEM_NODE_CRITICAL;
}

/** kubelettypes.Preemptable: a critical pod may preempt a non-critical one, else only a lower priority. */
export function isPreemptable(preemptor: Pod, preemptee: Pod, o: CriticalPodOptions): boolean {
  if (isCriticalPod(preemptor, o) && !isCriticalPod(preemptee, o)) return true;
  const a = declaredPriority(preemptor);
  const b = declaredPriority(preemptee);
  return a !== undefined && b !== undefined && a > b;
}
