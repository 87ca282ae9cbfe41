// Original file: /work/main/proto/api.proto

import type { MountPropagation as _runtime_v1_MountPropagation, MountPropagation__Output as _runtime_v1_MountPropagation__Output } from '../../runtime/v1/MountPropagation';
import type { IDMapping as _runtime_v1_IDMapping, IDMapping__Output as _runtime_v1_IDMapping__Output } from '../../runtime/v1/IDMapping';
import type { ImageSpec as _runtime_v1_ImageSpec, ImageSpec__Output as _runtime_v1_ImageSpec__Output } from '../../runtime/v1/ImageSpec';

/**
 * Mount specifies a host volume to mount into a container.
 */
export interface Mount {
  /**
   * Path of the mount within the container.
   */
  'containerPath'?: (string);
  /**
   * Path of the mount on the host. Has to be empty if the image field below
   * is provided, because those fields are mutually exclusive. If the image
   * field below is nil and the host path doesn't exist, then runtimes should
   * report an error. If the hostpath is a symbolic link, runtimes should
   * follow the symlink and mount the real destination to container.
   */
  'hostPath'?: (string);
  /**
   * If set, the mount is read-only.
   */
  'readonly'?: (boolean);
  /**
   * If set, the mount needs SELinux relabeling.
   */
  'selinuxRelabel'?: (boolean);
  /**
   * Requested propagation mode.
   */
  'propagation'?: (_runtime_v1_MountPropagation);
  /**
   * UidMappings specifies the runtime UID mappings for the mount.
   */
  'uidMappings'?: (_runtime_v1_IDMapping)[];
  /**
   * GidMappings specifies the runtime GID mappings for the mount.
   */
  'gidMappings'?: (_runtime_v1_IDMapping)[];
  /**
   * If set to true, the mount is made recursive read-only.
   * In this CRI API, recursive_read_only is a plain true/false boolean, although its equivalent
   * in the Kubernetes core API is a quaternary that can be nil, "Enabled", "IfPossible", or "Disabled".
   * kubelet translates that quaternary value in the core API into a boolean in this CRI API.
   * Remarks:
   * - nil is just treated as false
   * - when set to true, readonly must be explicitly set to true, and propagation must be PRIVATE (0).
   * - (readonly == false && recursive_read_only == false) does not make the mount read-only.
   */
  'recursiveReadOnly'?: (boolean);
  /**
   * Mount an image reference (image ID, with or without digest), which is a
   * special use case for image volume mounts. If this field is set, then
   * host_path should be unset. All OCI mounts are per feature definition
   * readonly. The kubelet does an PullImage RPC and evaluates the returned
   * PullImageResponse.image_ref value, which is then set to the
   * ImageSpec.image field. Runtimes are expected to mount the image as
   * required.
   * Introduced in the OCI Volume Source KEP: https://kep.k8s.io/4639
   */
  'image'?: (_runtime_v1_ImageSpec | null);
}

/**
 * Mount specifies a host volume to mount into a container.
 */
export interface Mount__Output {
  /**
   * Path of the mount within the container.
   */
  'containerPath': (string);
  /**
   * Path of the mount on the host. Has to be empty if the image field below
   * is provided, because those fields are mutually exclusive. If the image
   * field below is nil and the host path doesn't exist, then runtimes should
   * report an error. If the hostpath is a symbolic link, runtimes should
   * follow the symlink and mount the real destination to container.
   */
  'hostPath': (string);
  /**
   * If set, the mount is read-only.
   */
  'readonly': (boolean);
  /**
   * If set, the mount needs SELinux relabeling.
   */
  'selinuxRelabel': (boolean);
  /**
   * Requested propagation mode.
   */
  'propagation': (_runtime_v1_MountPropagation__Output);
  /**
   * UidMappings specifies the runtime UID mappings for the mount.
   */
  'uidMappings': (_runtime_v1_IDMapping__Output)[];
  /**
   * GidMappings specifies the runtime GID mappings for the mount.
   */
  'gidMappings': (_runtime_v1_IDMapping__Output)[];
  /**
   * If set to true, the mount is made recursive read-only.
   * In this CRI API, recursive_read_only is a plain true/false boolean, although its equivalent
   * in the Kubernetes core API is a quaternary that can be nil, "Enabled", "IfPossible", or "Disabled".
   * kubelet translates that quaternary value in the core API into a boolean in this CRI API.
   * Remarks:
   * - nil is just treated as false
   * - when set to true, readonly must be explicitly set to true, and propagation must be PRIVATE (0).
   * - (readonly == false && recursive_read_only == false) does not make the mount read-only.
   */
  'recursiveReadOnly': (boolean);
  /**
   * Mount an image reference (image ID, with or without digest), which is a
   * special use case for image volume mounts. If this field is set, then
   * host_path should be unset. All OCI mounts are per feature definition
   * readonly. The kubelet does an PullImage RPC and evaluates the returned
   * PullImageResponse.image_ref value, which is then set to the
   * ImageSpec.image field. Runtimes are expected to mount the image as
   * required.
   * Introduced in the OCI Volume Source KEP: https://kep.k8s.io/4639
   */
  'image': (_runtime_v1_ImageSpec__Output | null);
}
