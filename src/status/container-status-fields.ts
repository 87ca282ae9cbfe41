// Two fields of a container's status that 1.36 adds beside its state: volumeMounts, read off the spec
// (the runtime does not know the volumes' names), and user, the identity the runtime says the process
// started with. The kubelet's convertToAPIContainerStatuses fills both (RecursiveReadOnlyMounts and
// SupplementalGroupsPolicy, GA and locked on in 1.36).
import type { Container, VolumeMountStatus } from "kubernetes-types/core/v1";
import type { ContainerStatus } from "../cri";

/** v1.ContainerUser (1.31+; kubernetes-types 1.30 has no type for it). */
export interface ContainerUser {
  linux?: { uid: number; gid: number; supplementalGroups?: number[] };
}

/**
 * containerStatuses[].volumeMounts: each of the spec's mounts with its name, path and readOnly, and for
 * a read-only one the recursive read-only mode in effect, Enabled or Disabled. Without a runtime
 * handler that offers recursive read-only mounts (containerd 1.6 and 1.7 offer none) it is Disabled
 * whatever the spec asked: IfPossible falls back to a plain read-only mount, and Enabled never gets
 * this far (the container is CreateContainerConfigError, runtime-config.ts), as the kubelet's
 * resolveRecursiveReadOnly decides. Undefined for a container without mounts (the field is omitted).
 */
export function volumeMountStatuses(spec: Container, runtimeSupportsRRO = false): VolumeMountStatus[] | undefined {
  const mounts = spec.volumeMounts ?? [];
  if (mounts.length === 0) return undefined;
  return mounts.map((m) => {
    const status: VolumeMountStatus = { name: m.name, mountPath: m.mountPath };
    if (!m.readOnly) return status;
    const rro = runtimeSupportsRRO && (m.recursiveReadOnly === "IfPossible" || m.recursiveReadOnly === "Enabled");
    return { ...status, readOnly: true, recursiveReadOnly: rro ? "Enabled" : "Disabled" };
  });
}

/**
 * containerStatuses[].user: the uid, gid and supplementary groups the runtime reports the container's
 * first process started with (CRI ContainerStatus.user). A runtime that does not report it —
 * containerd 1.6 and 1.7 leave the field unset; it came with containerd 2.0 — leaves it out, as the
 * kubelet does: the agent does not guess the image's /etc/passwd and /etc/group.
 */
export function containerUser(c: Pick<ContainerStatus, "user">): ContainerUser | undefined {
  const linux = c.user?.linux;
  if (!c.user) return undefined;
  if (!linux) return {};
  return { linux: { uid: Number(linux.uid ?? 0), gid: Number(linux.gid ?? 0), supplementalGroups: (linux.supplementalGroups ?? []).map(Number) } };
}
