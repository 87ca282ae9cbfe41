// PredicateAdmitHandler: the kubelet's predicate admit handler (k/k@1.24.1 pkg/kubelet/lifecycle/
// predicate.go), the last word on whether a new pod fits this node. It asks the scheduler's own
// questions (GeneralPredicates, through src/scheduler's NodeInfo and plugins' code), so that a pod the
// scheduler would place here is admitted here, and one it would not is refused with the same verdict:
//
//   1. the Node (none → InvalidNodeInfo, "Kubelet cannot get node info."): in a cluster the API server's
//      copy, watched (so labels and taints others put on it, kubectl label or the node lifecycle
//      controller's taints, count, as with the kubelet's nodeLister), else the one the agent builds;
//   2. a NodeInfo of the Node with the other active pods on it: allocatable minus what they request
//      (requests = max(sum of containers, largest init container) + overhead), their host ports;
//   3. the pod's extended resources the node does not have at all are dropped from its requests, as the
//      kubelet's removeMissingExtendedResources does (cluster-level resources the node never advertises);
//   4. GeneralPredicates, every failure collected in this order (scheduler AdmissionCheck): the pod slot
//      and each resource (NodeResourcesFit's fitsRequest: pods, cpu, memory, ephemeral-storage, then the
//      scalar resources), required node affinity with nodeSelector, spec.nodeName, host ports; then
//      untolerated NoExecute taints, for pods that did not come from the API server only (IsStaticPod:
//      a static pod cannot be rescheduled, and file pods tolerate every NoExecute taint anyway);
//   5. a failure goes to the AdmissionFailureHandler (critical-pod preemption on a node,
//      critical-pod-admission.ts), which may clear resource failures by preempting other pods;
//   6. what is left: the first failure is the verdict — `OutOf<resource>` with the scheduler's
//      InsufficientResourceError message (cpu in millicores), or the plugin's name with
//      `Predicate <Name> failed` (the 1.24 wording; later releases append the plugin's reason);
//   7. then the OS checks: a `kubernetes.io/os` pod label unlike the node's (PodOSSelectorNodeLabelDoesNotMatch)
//      and a spec.os.name that is not linux (PodOSNotSupported).
// Before 2.: supplementalGroupsPolicy Strict on a node whose runtime cannot do it is refused
// (SupplementalGroupsPolicyNotSupported, supplemental-groups-policy.ts), as 1.36 does.
import type { Node, Pod } from "kubernetes-types/core/v1";
import { isExtendedResourceName, isStaticPod } from "../api";
import {
  ERR_REASON_NODE_NAME,
  ERR_REASON_NOT_MATCH,
  ERR_REASON_POD as NODE_AFFINITY_REASON,
  ERR_REASON_PORTS,
  findUntoleratedTaint,
  fitsRequest,
  type InsufficientResource,
  Names,
  NodeInfo,
  PodInfo,
  RequiredNodeAffinity,
} from "../scheduler";
import type { Logger } from "../util";
import { supplementalGroupsPolicyRefusal } from "./supplemental-groups-policy";
import type { PodAdmitAttributes, PodAdmitHandler, PodAdmitResult } from "./types";

/** The node label the OS checks read (v1.LabelOSStable). */
const OS_LABEL = "kubernetes.io/os";
/** runtime.GOOS of the agent: it runs Linux containers only. */
const NODE_OS = "linux";

/**
 * A reason GeneralPredicates gave: a resource the node is short of (lifecycle.InsufficientResourceError),
 * or a predicate that failed (lifecycle.PredicateFailureError, named after the scheduler plugin).
 */
export type PredicateFailure = { kind: "resource"; resource: InsufficientResource } | { kind: "predicate"; name: string; reason: string };

/** InsufficientResourceError.Error(). */
export function insufficientResourceMessage(r: Pick<InsufficientResource, "resourceName" | "requested" | "used" | "capacity">): string {
  return `Node didn't have enough resource: ${r.resourceName}, requested: ${r.requested}, used: ${r.used}, capacity: ${r.capacity}`;
}

/**
 * The kubelet's AdmissionFailureHandler: given what failed, what still fails (an empty list admits the
 * pod). An error is a refusal of its own (UnexpectedAdmissionError).
 */
export interface AdmissionFailureHandler {
  handleAdmissionFailure(
    pod: Pod,
    failures: readonly PredicateFailure[],
    otherPods: readonly Pod[],
    dryRun: boolean,
  ): { failures: readonly PredicateFailure[] } | { error: string };
}

/** lifecycle.NewAdmissionFailureHandlerStub: every failure stands. */
export const NO_FAILURE_HANDLER: AdmissionFailureHandler = {
  handleAdmissionFailure: (_pod, failures) => ({ failures }),
};

export interface PredicateAdmitHandlerOptions {
  /**
   * The Node as the agent last built it (labels, taints, allocatable): the kubelet's getNodeAnyWay.
   * Undefined or a throw when it cannot be had: every pod is then refused with InvalidNodeInfo.
   */
  node: () => Node | undefined;
  failureHandler?: AdmissionFailureHandler;
  log?: Logger;
}

/** removeMissingExtendedResources: the containers' requests without extended resources the node lacks. */
function withoutMissingExtendedResources(pod: Pod, nodeInfo: NodeInfo): Pod {
  const containers = pod.spec?.containers ?? [];
  const missing = (name: string) => isExtendedResourceName(name) && !nodeInfo.allocatable.scalar?.has(name);
  if (!containers.some((c) => Object.keys(c.resources?.requests ?? {}).some(missing))) return pod;
  // Only the app containers, as in 1.24 (init containers keep theirs), and only requests: the fit
  // check reads no limits.
  return {
    ...pod,
    spec: {
      ...pod.spec!,
      containers: containers.map((c) => {
        const requests = c.resources?.requests;
        if (!requests) return c;
        return { ...c, resources: { ...c.resources, requests: Object.fromEntries(Object.entries(requests).filter(([name]) => !missing(name))) } };
      }),
    },
  };
}

/** GeneralPredicates over the NodeInfo (scheduler AdmissionCheck with every failure, then the NoExecute taints). */
export function generalPredicates(pod: Pod, nodeInfo: NodeInfo): PredicateFailure[] {
  const info = new PodInfo(pod);
  const failures: PredicateFailure[] = fitsRequest(info.resource().requests, nodeInfo).map((resource) => ({ kind: "resource", resource }));
  if (!new RequiredNodeAffinity(pod).matches(nodeInfo.node ?? {})) failures.push({ kind: "predicate", name: Names.NodeAffinity, reason: NODE_AFFINITY_REASON });
  const nodeName = pod.spec?.nodeName;
  if (nodeName && nodeName !== nodeInfo.name) failures.push({ kind: "predicate", name: Names.NodeName, reason: ERR_REASON_NODE_NAME });
  if (info.hostPorts().some((p) => nodeInfo.usedPorts.conflicts(p))) failures.push({ kind: "predicate", name: Names.NodePorts, reason: ERR_REASON_PORTS });
  // The kubelet looks only at NoExecute taints (NoSchedule is the scheduler's business: a pod bound by
  // nodeName skips the scheduler on purpose), and never for a static pod.
  if (!isStaticPod(pod) && findUntoleratedTaint(nodeInfo.taints, pod.spec?.tolerations, (t) => t.effect === "NoExecute")) {
    failures.push({ kind: "predicate", name: Names.TaintToleration, reason: ERR_REASON_NOT_MATCH });
  }
  return failures;
}

function verdict(f: PredicateFailure): PodAdmitResult {
  if (f.kind === "resource") return { admit: false, reason: `OutOf${f.resource.resourceName}`, message: insufficientResourceMessage(f.resource) };
  return { admit: false, reason: f.name, message: `Predicate ${f.name} failed` };
}

export class PredicateAdmitHandler implements PodAdmitHandler {
  private readonly failureHandler: AdmissionFailureHandler;

  constructor(private readonly o: PredicateAdmitHandlerOptions) {
    this.failureHandler = o.failureHandler ?? NO_FAILURE_HANDLER;
  }

  admit({ pod, otherPods, dryRun = false }: PodAdmitAttributes): PodAdmitResult {
    let node: Node | undefined;
    try {
      node = this.o.node();
    } catch (err) {
      this.o.log?.warn("admission: cannot get the node", { err });
    }
    if (!node) return { admit: false, reason: "InvalidNodeInfo", message: "Kubelet cannot get node info." };
    // 1.36 checks the runtime's SupplementalGroupsPolicy before the predicates (preemption cannot help).
    const sgp = supplementalGroupsPolicyRefusal(pod, node);
    if (sgp) return sgp;
    const nodeInfo = new NodeInfo(node);
    for (const p of otherPods) nodeInfo.addPodInfo(new PodInfo(p));

    let failures: readonly PredicateFailure[] = generalPredicates(withoutMissingExtendedResources(pod, nodeInfo), nodeInfo);
    if (failures.length > 0) {
      const handled = this.failureHandler.handleAdmissionFailure(pod, failures, otherPods, dryRun);
      if ("error" in handled) {
        return {
          admit: false,
          reason: "UnexpectedAdmissionError",
          message: `Unexpected error while attempting to recover from admission failure: ${handled.error}`,
        };
      }
      failures = handled.failures;
    }
    if (failures.length > 0) return verdict(failures[0]!);

    // rejectPodAdmissionBasedOnOSSelector: the pod's own kubernetes.io/os label (not its nodeSelector).
    // The kubelet sets the node's label to its own GOOS when it is missing or says otherwise, so the
    // comparison is always with linux.
    const podOS = pod.metadata?.labels?.[OS_LABEL];
    if (podOS !== undefined && podOS !== NODE_OS) {
      return {
        admit: false,
        reason: "PodOSSelectorNodeLabelDoesNotMatch",
        message: "Failed to admit pod as the `kubernetes.io/os` label doesn't match node label",
      };
    }
    // rejectPodAdmissionBasedOnOSField.
    const osName = pod.spec?.os?.name;
    if (osName !== undefined && osName !== NODE_OS) {
      return { admit: false, reason: "PodOSNotSupported", message: "Failed to admit pod as the OS field doesn't match node OS" };
    }
    return { admit: true };
  }
}
