// NewerFieldsAdmitHandler: fields of the pod API newer than kubernetes-types 1.30 whose feature gates are
// on by default in a 1.36 kubelet and that the agent does not act on. The pod schema (src/api) accepts
// them, so without this handler they would be read and then ignored; here a pod that uses one is Failed
// at admission with a reason and a message naming the field, as docs/feature-gates.md lists them:
//
//   - SupplementalGroupsPolicy=Strict: refused as the 1.36 kubelet refuses it on a node whose runtime
//     does not report the feature (containerd 1.6 and 1.7 do not): reason
//     SupplementalGroupsPolicyNotSupported, its message (GeneralPredicates'
//     rejectPodAdmissionBasedOnSupplementalGroupsPolicy). Merge, the default, is what the agent does.
//   - spec.resources (PodLevelResources): the pod's own requests and limits, for its cgroup and
//     admission; the agent sizes the pod from its containers only.
//   - a container's restartPolicyRules, or an app container's restartPolicy other than the pod's
//     (ContainerRestartRules, RestartAllContainersOnContainerExits): per-container restarts.
//   - env[].valueFrom.fileKeyRef (EnvFiles): a variable read from a file an init container wrote.
//   - spec.hostnameOverride (HostnameOverride): the pod's hostname set apart from its name.
// Each of these is PodFieldNotSupported, as the fields the ledger refuses (unsupported-fields.ts).
import type { Container, Pod } from "kubernetes-types/core/v1";
import type { PodAdmitAttributes, PodAdmitHandler, PodAdmitResult } from "./types";
import { FIELD_NOT_SUPPORTED_REASON } from "./unsupported-fields";

/** The kubelet's reason for a Strict supplementalGroupsPolicy its runtime cannot honour (lifecycle/predicate.go). */
export const SUPPLEMENTAL_GROUPS_POLICY_NOT_SUPPORTED_REASON = "SupplementalGroupsPolicyNotSupported";

/** The 1.31+ fields read here (kubernetes-types 1.30 has no types for them). */
type NewerSpec = {
  resources?: { requests?: Record<string, unknown>; limits?: Record<string, unknown> };
  hostnameOverride?: string;
  securityContext?: { supplementalGroupsPolicy?: string };
};
type NewerContainer = Container & { restartPolicyRules?: unknown[] };
type NewerEnvSource = { fileKeyRef?: unknown };

/** Why the agent cannot run the pod as written (its reason and message), or undefined when it can. */
export function newerFieldRefusal(pod: Pod): { reason: string; message: string } | undefined {
  const spec = pod.spec as (Pod["spec"] & NewerSpec) | undefined;
  if (!spec) return undefined;
  if (spec.securityContext?.supplementalGroupsPolicy === "Strict")
    return { reason: SUPPLEMENTAL_GROUPS_POLICY_NOT_SUPPORTED_REASON, message: "SupplementalGroupsPolicy=Strict is not supported in this node" };
  const refuse = (message: string) => ({ reason: FIELD_NOT_SUPPORTED_REASON, message });
  if (Object.keys(spec.resources?.requests ?? {}).length || Object.keys(spec.resources?.limits ?? {}).length)
    return refuse("spec.resources (pod-level resources) is not supported by nodeagent: it sizes a pod's cgroup and admission from its containers only");
  if (spec.hostnameOverride)
    return refuse("spec.hostnameOverride is not supported by nodeagent: it sets the pod's hostname from spec.hostname or the pod's name");
  const podRestart = spec.restartPolicy ?? "Always";
  for (const c of [...(spec.initContainers ?? []), ...(spec.containers ?? [])] as NewerContainer[]) {
    if ((c.restartPolicyRules ?? []).length > 0)
      return refuse(`restartPolicyRules of container "${c.name}" is not supported by nodeagent: it restarts containers by the pod's restartPolicy`);
    for (const e of c.env ?? []) {
      if ((e.valueFrom as NewerEnvSource | undefined)?.fileKeyRef)
        return refuse(`env ${e.name} of container "${c.name}": valueFrom.fileKeyRef is not supported by nodeagent`);
    }
  }
  for (const c of spec.containers ?? []) {
    if (c.restartPolicy && c.restartPolicy !== podRestart)
      return refuse(
        `restartPolicy ${c.restartPolicy} of container "${c.name}" is not supported by nodeagent: it restarts app containers by the pod's restartPolicy (${podRestart})`,
      );
  }
  return undefined;
}

export class NewerFieldsAdmitHandler implements PodAdmitHandler {
  admit(attrs: PodAdmitAttributes): PodAdmitResult {
    const refusal = newerFieldRefusal(attrs.pod);
    return refusal ? { admit: false, ...refusal } : { admit: true };
  }
}
