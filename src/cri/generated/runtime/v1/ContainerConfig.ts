// Original file: /work/main/proto/api.proto

import type { ContainerMetadata as _runtime_v1_ContainerMetadata, ContainerMetadata__Output as _runtime_v1_ContainerMetadata__Output } from '../../runtime/v1/ContainerMetadata';
import type { ImageSpec as _runtime_v1_ImageSpec, ImageSpec__Output as _runtime_v1_ImageSpec__Output } from '../../runtime/v1/ImageSpec';
import type { KeyValue as _runtime_v1_KeyValue, KeyValue__Output as _runtime_v1_KeyValue__Output } from '../../runtime/v1/KeyValue';
import type { Mount as _runtime_v1_Mount, Mount__Output as _runtime_v1_Mount__Output } from '../../runtime/v1/Mount';
import type { Device as _runtime_v1_Device, Device__Output as _runtime_v1_Device__Output } from '../../runtime/v1/Device';
import type { LinuxContainerConfig as _runtime_v1_LinuxContainerConfig, LinuxContainerConfig__Output as _runtime_v1_LinuxContainerConfig__Output } from '../../runtime/v1/LinuxContainerConfig';
import type { WindowsContainerConfig as _runtime_v1_WindowsContainerConfig, WindowsContainerConfig__Output as _runtime_v1_WindowsContainerConfig__Output } from '../../runtime/v1/WindowsContainerConfig';
import type { CDIDevice as _runtime_v1_CDIDevice, CDIDevice__Output as _runtime_v1_CDIDevice__Output } from '../../runtime/v1/CDIDevice';

/**
 * ContainerConfig holds all the required and optional fields for creating a
 * container.
 */
export interface ContainerConfig {
  /**
   * Metadata of the container. This information will uniquely identify the
   * container, and the runtime should leverage this to ensure correct
   * operation. The runtime may also use this information to improve UX, such
   * as by constructing a readable name.
   */
  'metadata'?: (_runtime_v1_ContainerMetadata | null);
  /**
   * Image to use.
   */
  'image'?: (_runtime_v1_ImageSpec | null);
  /**
   * Command to execute (i.e., entrypoint for docker)
   */
  'command'?: (string)[];
  /**
   * Args for the Command (i.e., command for docker)
   */
  'args'?: (string)[];
  /**
   * Current working directory of the command.
   */
  'workingDir'?: (string);
  /**
   * List of environment variable to set in the container.
   */
  'envs'?: (_runtime_v1_KeyValue)[];
  /**
   * Mounts for the container.
   */
  'mounts'?: (_runtime_v1_Mount)[];
  /**
   * Devices for the container.
   */
  'devices'?: (_runtime_v1_Device)[];
  /**
   * Key-value pairs that may be used to scope and select individual resources.
   * Label keys are of the form:
   * label-key ::= prefixed-name | name
   * prefixed-name ::= prefix '/' name
   * prefix ::= DNS_SUBDOMAIN
   * name ::= DNS_LABEL
   */
  'labels'?: ({[key: string]: string});
  /**
   * Unstructured key-value map that may be used by the kubelet to store and
   * retrieve arbitrary metadata.
   * 
   * Annotations MUST NOT be altered by the runtime; the annotations stored
   * here MUST be returned in the ContainerStatus associated with the container
   * this ContainerConfig creates.
   * 
   * In general, in order to preserve a well-defined interface between the
   * kubelet and the container runtime, annotations SHOULD NOT influence
   * runtime behaviour.
   */
  'annotations'?: ({[key: string]: string});
  /**
   * Path relative to PodSandboxConfig.LogDirectory for container to store
   * the log (STDOUT and STDERR) on the host.
   * E.g.,
   * PodSandboxConfig.LogDirectory = `/var/log/pods/<NAMESPACE>_<NAME>_<UID>/`
   * ContainerConfig.LogPath = `containerName/Instance#.log`
   */
  'logPath'?: (string);
  /**
   * Variables for interactive containers, these have very specialized
   * use-cases (e.g. debugging).
   */
  'stdin'?: (boolean);
  'stdinOnce'?: (boolean);
  'tty'?: (boolean);
  /**
   * Configuration specific to Linux containers.
   */
  'linux'?: (_runtime_v1_LinuxContainerConfig | null);
  /**
   * Configuration specific to Windows containers.
   */
  'windows'?: (_runtime_v1_WindowsContainerConfig | null);
  /**
   * CDI devices for the container.
   */
  'CDIDevices'?: (_runtime_v1_CDIDevice)[];
}

/**
 * ContainerConfig holds all the required and optional fields for creating a
 * container.
 */
export interface ContainerConfig__Output {
  /**
   * Metadata of the container. This information will uniquely identify the
   * container, and the runtime should leverage this to ensure correct
   * operation. The runtime may also use this information to improve UX, such
   * as by constructing a readable name.
   */
  'metadata': (_runtime_v1_ContainerMetadata__Output | null);
  /**
   * Image to use.
   */
  'image': (_runtime_v1_ImageSpec__Output | null);
  /**
   * Command to execute (i.e., entrypoint for docker)
   */
  'command': (string)[];
  /**
   * Args for the Command (i.e., command for docker)
   */
  'args': (string)[];
  /**
   * Current working directory of the command.
   */
  'workingDir': (string);
  /**
   * List of environment variable to set in the container.
   */
  'envs': (_runtime_v1_KeyValue__Output)[];
  /**
   * Mounts for the container.
   */
  'mounts': (_runtime_v1_Mount__Output)[];
  /**
   * Devices for the container.
   */
  'devices': (_runtime_v1_Device__Output)[];
  /**
   * Key-value pairs that may be used to scope and select individual resources.
   * Label keys are of the form:
   * label-key ::= prefixed-name | name
   * prefixed-name ::= prefix '/' name
   * prefix ::= DNS_SUBDOMAIN
   * name ::= DNS_LABEL
   */
  'labels': ({[key: string]: string});
  /**
   * Unstructured key-value map that may be used by the kubelet to store and
   * retrieve arbitrary metadata.
   * 
   * Annotations MUST NOT be altered by the runtime; the annotations stored
   * here MUST be returned in the ContainerStatus associated with the container
   * this ContainerConfig creates.
   * 
   * In general, in order to preserve a well-defined interface between the
   * kubelet and the container runtime, annotations SHOULD NOT influence
   * runtime behaviour.
   */
  'annotations': ({[key: string]: string});
  /**
   * Path relative to PodSandboxConfig.LogDirectory for container to store
   * the log (STDOUT and STDERR) on the host.
   * E.g.,
   * PodSandboxConfig.LogDirectory = `/var/log/pods/<NAMESPACE>_<NAME>_<UID>/`
   * ContainerConfig.LogPath = `containerName/Instance#.log`
   */
  'logPath': (string);
  /**
   * Variables for interactive containers, these have very specialized
   * use-cases (e.g. debugging).
   */
  'stdin': (boolean);
  'stdinOnce': (boolean);
  'tty': (boolean);
  /**
   * Configuration specific to Linux containers.
   */
  'linux': (_runtime_v1_LinuxContainerConfig__Output | null);
  /**
   * Configuration specific to Windows containers.
   */
  'windows': (_runtime_v1_WindowsContainerConfig__Output | null);
  /**
   * CDI devices for the container.
   */
  'CDIDevices': (_runtime_v1_CDIDevice__Output)[];
}
