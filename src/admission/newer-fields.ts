// NewerFieldsAdmitHandler: fields of the pod API newer than kubernetes-types 1.30 whose feature gates are
// on by default in a 1.36 kubelet and that the agent does not act on. The pod schema (src/api) accepts
// them, so without this handler they would be read and then ignored; here a pod that uses one is Failed
// at admission with a reason and a message naming the field, as docs/feature-gates.md lists them:
//
//   - spec.resources (PodLevelResources): the pod's own requests and limits, for its cgroup and
//     admission; the agent sizes the pod from its containers only.
//   - a container's restartPolicyRules, or an app container's restartPolicy other than the pod's
//     (ContainerRestartRules, RestartAllContainersOnContainerExits): per-container restarts.
//   - env[].valueFrom.fileKeyRef (EnvFiles): a variable read from a file an init container wrote.
// Each of these is PodFieldNotSupported, as the fields the ledger refuses (unsupported-fields.ts).
// (supplementalGroupsPolicy Strict is refused, or not, from the runtime's features in
// supplemental-groups-policy.ts; hostnameOverride is honoured in the pod's hostname and /etc/hosts.)
import type { Container, Pod } from "kubernetes-types/core/v1";
import type { PodAdmitAttributes, PodAdmitHandler, PodAdmitResult } from "./types";
import { FIELD_NOT_SUPPORTED_REASON } from "./unsupported-fields";

/** The 1.31+ fields read here (kubernetes-types 1.30 has no types for them). */
type NewerSpec = {
  resources?: { requests?: Record<string, unknown>; limits?: Record<string, unknown> };
};
type NewerContainer = Container & { restartPolicyRules?: unknown[] };
type NewerEnvSource = { fileKeyRef?: unknown };

/** Why the agent cannot run the pod as written (its reason and message), or undefined when it can. */
export function newerFieldRefusal(pod: Pod): { reason: string; message: string } | undefined {
  const spec = pod.spec as (Pod["spec"] & NewerSpec) | undefined;
  if (!spec) return undefined;
  const refuse = (message: string) => ({ reason: FIELD_NOT_SUPPORTED_REASON, message });
  if (Object.keys(spec.resources?.requests ?? {}).length || Object.keys(spec.resources?.limits ?? {}).length)
    return refuse("spec.resources (pod-level resources) is not supported by nodeagent: it sizes a pod's cgroup and admission from its containers only");
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
