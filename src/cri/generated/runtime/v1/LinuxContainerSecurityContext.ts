// Original file: /work/main/proto/api.proto

import type { Capability as _runtime_v1_Capability, Capability__Output as _runtime_v1_Capability__Output } from '../../runtime/v1/Capability';
import type { NamespaceOption as _runtime_v1_NamespaceOption, NamespaceOption__Output as _runtime_v1_NamespaceOption__Output } from '../../runtime/v1/NamespaceOption';
import type { SELinuxOption as _runtime_v1_SELinuxOption, SELinuxOption__Output as _runtime_v1_SELinuxOption__Output } from '../../runtime/v1/SELinuxOption';
import type { Int64Value as _runtime_v1_Int64Value, Int64Value__Output as _runtime_v1_Int64Value__Output } from '../../runtime/v1/Int64Value';
import type { SecurityProfile as _runtime_v1_SecurityProfile, SecurityProfile__Output as _runtime_v1_SecurityProfile__Output } from '../../runtime/v1/SecurityProfile';
import type { SupplementalGroupsPolicy as _runtime_v1_SupplementalGroupsPolicy, SupplementalGroupsPolicy__Output as _runtime_v1_SupplementalGroupsPolicy__Output } from '../../runtime/v1/SupplementalGroupsPolicy';
import type { Long } from '@grpc/proto-loader';

/**
 * LinuxContainerSecurityContext holds linux security configuration that will be applied to a container.
 */
export interface LinuxContainerSecurityContext {
  /**
   * Capabilities to add or drop.
   */
  'capabilities'?: (_runtime_v1_Capability | null);
  /**
   * If set, run container in privileged mode.
   * Privileged mode is incompatible with the following options. If
   * privileged is set, the following features MAY have no effect:
   * 1. capabilities
   * 2. selinux_options
   * 4. seccomp
   * 5. apparmor
   * 
   * Privileged mode implies the following specific options are applied:
   * 1. All capabilities are added.
   * 2. Sensitive paths, such as kernel module paths within sysfs, are not masked.
   * 3. Any sysfs and procfs mounts are mounted RW.
   * 4. AppArmor confinement is not applied.
   * 5. Seccomp restrictions are not applied.
   * 6. The device cgroup does not restrict access to any devices.
   * 7. All devices from the host's /dev are available within the container.
   * 8. SELinux restrictions are not applied (e.g. label=disabled).
   */
  'privileged'?: (boolean);
  /**
   * Configurations for the container's namespaces.
   * Only used if the container uses namespace for isolation.
   */
  'namespaceOptions'?: (_runtime_v1_NamespaceOption | null);
  /**
   * SELinux context to be optionally applied.
   */
  'selinuxOptions'?: (_runtime_v1_SELinuxOption | null);
  /**
   * UID to run the container process as. Only one of run_as_user and
   * run_as_username can be specified at a time.
   */
  'runAsUser'?: (_runtime_v1_Int64Value | null);
  /**
   * User name to run the container process as. If specified, the user MUST
   * exist in the container image (i.e. in the /etc/passwd inside the image),
   * and be resolved there by the runtime; otherwise, the runtime MUST error.
   */
  'runAsUsername'?: (string);
  /**
   * If set, the root filesystem of the container is read-only.
   */
  'readonlyRootfs'?: (boolean);
  /**
   * List of groups applied to the first process run in each container.
   * supplemental_groups_policy can control how groups will be calculated.
   */
  'supplementalGroups'?: (number | string | Long)[];
  /**
   * AppArmor profile for the container, candidate values are:
   * * runtime/default: equivalent to not specifying a profile.
   * * unconfined: no profiles are loaded
   * * localhost/<profile_name>: profile loaded on the node
   * (localhost) by name. The possible profile names are detailed at
   * https://gitlab.com/apparmor/apparmor/-/wikis/AppArmor_Core_Policy_Reference
   * @deprecated
   */
  'apparmorProfile'?: (string);
  /**
   * Seccomp profile for the container, candidate values are:
   * * runtime/default: the default profile for the container runtime
   * * unconfined: unconfined profile, ie, no seccomp sandboxing
   * * localhost/<full-path-to-profile>: the profile installed on the node.
   * <full-path-to-profile> is the full path of the profile.
   * Default: "", which is identical with unconfined.
   * @deprecated
   */
  'seccompProfilePath'?: (string);
  /**
   * no_new_privs defines if the flag for no_new_privs should be set on the
   * container.
   */
  'noNewPrivs'?: (boolean);
  /**
   * GID to run the container process as. run_as_group should only be specified
   * when run_as_user or run_as_username is specified; otherwise, the runtime
   * MUST error.
   */
  'runAsGroup'?: (_runtime_v1_Int64Value | null);
  /**
   * masked_paths is a slice of paths that should be masked by the container
   * runtime, this can be passed directly to the OCI spec.
   */
  'maskedPaths'?: (string)[];
  /**
   * readonly_paths is a slice of paths that should be set as readonly by the
   * container runtime, this can be passed directly to the OCI spec.
   */
  'readonlyPaths'?: (string)[];
  /**
   * Seccomp profile for the container.
   */
  'seccomp'?: (_runtime_v1_SecurityProfile | null);
  /**
   * AppArmor profile for the container.
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
 * LinuxContainerSecurityContext holds linux security configuration that will be applied to a container.
 */
export interface LinuxContainerSecurityContext__Output {
  /**
   * Capabilities to add or drop.
   */
  'capabilities': (_runtime_v1_Capability__Output | null);
  /**
   * If set, run container in privileged mode.
   * Privileged mode is incompatible with the following options. If
   * privileged is set, the following features MAY have no effect:
   * 1. capabilities
   * 2. selinux_options
   * 4. seccomp
   * 5. apparmor
   * 
   * Privileged mode implies the following specific options are applied:
   * 1. All capabilities are added.
   * 2. Sensitive paths, such as kernel module paths within sysfs, are not masked.
   * 3. Any sysfs and procfs mounts are mounted RW.
   * 4. AppArmor confinement is not applied.
   * 5. Seccomp restrictions are not applied.
   * 6. The device cgroup does not restrict access to any devices.
   * 7. All devices from the host's /dev are available within the container.
   * 8. SELinux restrictions are not applied (e.g. label=disabled).
   */
  'privileged': (boolean);
  /**
   * Configurations for the container's namespaces.
   * Only used if the container uses namespace for isolation.
   */
  'namespaceOptions': (_runtime_v1_NamespaceOption__Output | null);
  /**
   * SELinux context to be optionally applied.
   */
  'selinuxOptions': (_runtime_v1_SELinuxOption__Output | null);
  /**
   * UID to run the container process as. Only one of run_as_user and
   * run_as_username can be specified at a time.
   */
  'runAsUser': (_runtime_v1_Int64Value__Output | null);
  /**
   * User name to run the container process as. If specified, the user MUST
   * exist in the container image (i.e. in the /etc/passwd inside the image),
   * and be resolved there by the runtime; otherwise, the runtime MUST error.
   */
  'runAsUsername': (string);
  /**
   * If set, the root filesystem of the container is read-only.
   */
  'readonlyRootfs': (boolean);
  /**
   * List of groups applied to the first process run in each container.
   * supplemental_groups_policy can control how groups will be calculated.
   */
  'supplementalGroups': (number)[];
  /**
   * AppArmor profile for the container, candidate values are:
   * * runtime/default: equivalent to not specifying a profile.
   * * unconfined: no profiles are loaded
   * * localhost/<profile_name>: profile loaded on the node
   * (localhost) by name. The possible profile names are detailed at
   * https://gitlab.com/apparmor/apparmor/-/wikis/AppArmor_Core_Policy_Reference
   * @deprecated
   */
  'apparmorProfile': (string);
  /**
   * Seccomp profile for the container, candidate values are:
   * * runtime/default: the default profile for the container runtime
   * * unconfined: unconfined profile, ie, no seccomp sandboxing
   * * localhost/<full-path-to-profile>: the profile installed on the node.
   * <full-path-to-profile> is the full path of the profile.
   * Default: "", which is identical with unconfined.
   * @deprecated
   */
  'seccompProfilePath': (string);
  /**
   * no_new_privs defines if the flag for no_new_privs should be set on the
   * container.
   */
  'noNewPrivs': (boolean);
  /**
   * GID to run the container process as. run_as_group should only be specified
   * when run_as_user or run_as_username is specified; otherwise, the runtime
   * MUST error.
   */
  'runAsGroup': (_runtime_v1_Int64Value__Output | null);
  /**
   * masked_paths is a slice of paths that should be masked by the container
   * runtime, this can be passed directly to the OCI spec.
   */
  'maskedPaths': (string)[];
  /**
   * readonly_paths is a slice of paths that should be set as readonly by the
   * container runtime, this can be passed directly to the OCI spec.
   */
  'readonlyPaths': (string)[];
  /**
   * Seccomp profile for the container.
   */
  'seccomp': (_runtime_v1_SecurityProfile__Output | null);
  /**
   * AppArmor profile for the container.
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
