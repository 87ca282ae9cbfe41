// Original file: /work/main/proto/api.proto

import type { NamespaceOption as _runtime_v1_NamespaceOption, NamespaceOption__Output as _runtime_v1_NamespaceOption__Output } from '../../runtime/v1/NamespaceOption';
import type { SELinuxOption as _runtime_v1_SELinuxOption, SELinuxOption__Output as _runtime_v1_SELinuxOption__Output } from '../../runtime/v1/SELinuxOption';
import type { Int64Value as _runtime_v1_Int64Value, Int64Value__Output as _runtime_v1_Int64Value__Output } from '../../runtime/v1/Int64Value';
import type { SecurityProfile as _runtime_v1_SecurityProfile, SecurityProfile__Output as _runtime_v1_SecurityProfile__Output } from '../../runtime/v1/SecurityProfile';
import type { SupplementalGroupsPolicy as _runtime_v1_SupplementalGroupsPolicy, SupplementalGroupsPolicy__Output as _runtime_v1_SupplementalGroupsPolicy__Output } from '../../runtime/v1/SupplementalGroupsPolicy';
import type { Long } from '@grpc/proto-loader';

/**
 * LinuxSandboxSecurityContext holds linux security configuration that will be
 * applied to a sandbox. Note that:
 * 1) It does not apply to containers in the pods.
 * 2) It may not be applicable to a PodSandbox which does not contain any running
 * process.
 */
export interface LinuxSandboxSecurityContext {
  /**
   * Configurations for the sandbox's namespaces.
   * This will be used only if the PodSandbox uses namespace for isolation.
   */
  'namespaceOptions'?: (_runtime_v1_NamespaceOption | null);
  /**
   * Optional SELinux context to be applied.
   */
  'selinuxOptions'?: (_runtime_v1_SELinuxOption | null);
  /**
   * UID to run sandbox processes as, when applicable.
   */
  'runAsUser'?: (_runtime_v1_Int64Value | null);
  /**
   * If set, the root filesystem of the sandbox is read-only.
   */
  'readonlyRootfs'?: (boolean);
  /**
   * List of groups applied to the first process run in each container.
   * supplemental_groups_policy can control how groups will be calculated.
   */
  'supplementalGroups'?: (number | string | Long)[];
  /**
   * Indicates whether the sandbox will be asked to run a privileged
   * container. If a privileged container is to be executed within it, this
   * MUST be true.
   * This allows a sandbox to take additional security precautions if no
   * privileged containers are expected to be run.
   */
  'privileged'?: (boolean);
  /**
   * Seccomp profile for the sandbox, candidate values are:
   * * runtime/default: the default profile for the container runtime
   * * unconfined: unconfined profile, ie, no seccomp sandboxing
   * * localhost/<full-path-to-profile>: the profile installed on the node.
   * <full-path-to-profile> is the full path of the profile.
   * Default: "", which is identical with unconfined.
   * @deprecated
   */
  'seccompProfilePath'?: (string);
  /**
   * GID to run sandbox processes as, when applicable. run_as_group should only
   * be specified when run_as_user is specified; otherwise, the runtime MUST error.
   */
  'runAsGroup'?: (_runtime_v1_Int64Value | null);
  /**
   * Seccomp profile for the sandbox.
   */
  'seccomp'?: (_runtime_v1_SecurityProfile | null);
  /**
   * AppArmor profile for the sandbox.
   */
  'apparmor'?: (_runtime_v1_SecurityProfile | null);
  /**
   * supplemental_groups_policy defines how supplemental groups of the first
   * container processes are calculated.
   * Valid values are "Merge" and "Strict".
   * If not specified, "Merge" is used.
   */
  'supplementalGroupsPolicy'?: (_runtime_v1_SupplementalGroupsPolicy);
}

/**
 * LinuxSandboxSecurityContext holds linux security configuration that will be
 * applied to a sandbox. Note that:
 * 1) It does not apply to containers in the pods.
 * 2) It may not be applicable to a PodSandbox which does not contain any running
 * process.
 */
export interface LinuxSandboxSecurityContext__Output {
  /**
   * Configurations for the sandbox's namespaces.
   * This will be used only if the PodSandbox uses namespace for isolation.
   */
  'namespaceOptions': (_runtime_v1_NamespaceOption__Output | null);
  /**
   * Optional SELinux context to be applied.
   */
  'selinuxOptions': (_runtime_v1_SELinuxOption__Output | null);
  /**
   * UID to run sandbox processes as, when applicable.
   */
  'runAsUser': (_runtime_v1_Int64Value__Output | null);
  /**
   * If set, the root filesystem of the sandbox is read-only.
   */
  'readonlyRootfs': (boolean);
  /**
   * List of groups applied to the first process run in each container.
   * supplemental_groups_policy can control how groups will be calculated.
   */
  'supplementalGroups': (number)[];
  /**
   * Indicates whether the sandbox will be asked to run a privileged
   * container. If a privileged container is to be executed within it, this
   * MUST be true.
   * This allows a sandbox to take additional security precautions if no
   * privileged containers are expected to be run.
   */
  'privileged': (boolean);
  /**
   * Seccomp profile for the sandbox, candidate values are:
   * * runtime/default: the default profile for the container runtime
   * * unconfined: unconfined profile, ie, no seccomp sandboxing
   * * localhost/<full-path-to-profile>: the profile installed on the node.
   * <full-path-to-profile> is the full path of the profile.
   * Default: "", which is identical with unconfined.
   * @deprecated
   */
  'seccompProfilePath': (string);
  /**
   * GID to run sandbox processes as, when applicable. run_as_group should only
   * be specified when run_as_user is specified; otherwise, the runtime MUST error.
   */
  'runAsGroup': (_runtime_v1_Int64Value__Output | null);
  /**
   * Seccomp profile for the sandbox.
   */
  'seccomp': (_runtime_v1_SecurityProfile__Output | null);
  /**
   * AppArmor profile for the sandbox.
   */
  'apparmor': (_runtime_v1_SecurityProfile__Output | null);
  /**
   * supplemental_groups_policy defines how supplemental groups of the first
   * container processes are calculated.
   * Valid values are "Merge" and "Strict".
   * If not specified, "Merge" is used.
   */
  'supplementalGroupsPolicy': (_runtime_v1_SupplementalGroupsPolicy__Output);
}
