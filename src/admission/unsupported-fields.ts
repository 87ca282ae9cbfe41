// UnsupportedFieldsAdmitHandler: the pod fields the kubelet acts on and the agent does not, refused at
// admission rather than silently ignored (issue 24's field ledger, docs/field-ledger.md). A refused pod
// is Failed with reason PodFieldNotSupported and a message naming the field and what it would need;
// it never runs with less than it asked for.
//
//   - spec.hostUsers: false: the kubelet runs the pod in a user namespace (UserNamespacesSupport); the
//     agent does not, and running it with the host's users would grant what the pod gave up.
//   - spec.resourceClaims (and a container's resources.claims): dynamic resource allocation, which
//     the agent has no driver plugins for.
//   - a container's volumeDevices: raw block devices of persistentVolumeClaim or ephemeral volumes,
//     which the agent does not make.
// (spec.hostAliases and setHostnameAsFQDN, once refused here, are honoured: src/agent/etc-hosts.ts and
// pod-hostname.ts.)
import type { Pod } from "kubernetes-types/core/v1";
import type { PodAdmitAttributes, PodAdmitHandler, PodAdmitResult } from "./types";

export const FIELD_NOT_SUPPORTED_REASON = "PodFieldNotSupported";

/** Why the agent cannot run the pod as written, or undefined when it can. */
export function unsupportedFieldProblem(pod: Pod): string | undefined {
  const spec = pod.spec;
  if (!spec) return undefined;
  if (spec.hostUsers === false) return "spec.hostUsers: false is not supported by nodeagent: it does not run pods in a user namespace";
  if ((spec.resourceClaims ?? []).length > 0) return "spec.resourceClaims is not supported by nodeagent: it has no dynamic resource allocation drivers";
  for (const c of [...(spec.initContainers ?? []), ...spec.containers]) {
    if ((c.resources?.claims ?? []).length > 0)
      return `resources.claims of container "${c.name}" is not supported by nodeagent: it has no dynamic resource allocation drivers`;
  }
  for (const c of [...(spec.initContainers ?? []), ...spec.containers]) {
    if ((c.volumeDevices ?? []).length > 0)
      return `volumeDevices of container "${c.name}" is not supported by nodeagent: it has no raw block volumes (persistentVolumeClaim and ephemeral volumes are not made)`;
  }
  return undefined;
}

export class UnsupportedFieldsAdmitHandler implements PodAdmitHandler {
  admit(attrs: PodAdmitAttributes): PodAdmitResult {
    const message = unsupportedFieldProblem(attrs.pod);
    return message === undefined ? { admit: true } : { admit: false, reason: FIELD_NOT_SUPPORTED_REASON, message };
  }
}
