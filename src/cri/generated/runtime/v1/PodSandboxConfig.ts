// Original file: /work/main/proto/api.proto

import type { PodSandboxMetadata as _runtime_v1_PodSandboxMetadata, PodSandboxMetadata__Output as _runtime_v1_PodSandboxMetadata__Output } from '../../runtime/v1/PodSandboxMetadata';
import type { DNSConfig as _runtime_v1_DNSConfig, DNSConfig__Output as _runtime_v1_DNSConfig__Output } from '../../runtime/v1/DNSConfig';
import type { PortMapping as _runtime_v1_PortMapping, PortMapping__Output as _runtime_v1_PortMapping__Output } from '../../runtime/v1/PortMapping';
import type { LinuxPodSandboxConfig as _runtime_v1_LinuxPodSandboxConfig, LinuxPodSandboxConfig__Output as _runtime_v1_LinuxPodSandboxConfig__Output } from '../../runtime/v1/LinuxPodSandboxConfig';
import type { WindowsPodSandboxConfig as _runtime_v1_WindowsPodSandboxConfig, WindowsPodSandboxConfig__Output as _runtime_v1_WindowsPodSandboxConfig__Output } from '../../runtime/v1/WindowsPodSandboxConfig';

/**
 * PodSandboxConfig holds all the required and optional fields for creating a
 * sandbox.
 */
export interface PodSandboxConfig {
  /**
   * Metadata of the sandbox. This information will uniquely identify the
   * sandbox, and the runtime should leverage this to ensure correct
   * operation. The runtime may also use this information to improve UX, such
   * as by constructing a readable name.
   */
  'metadata'?: (_runtime_v1_PodSandboxMetadata | null);
  /**
   * Hostname of the sandbox. Hostname could only be empty when the pod
   * network namespace is NODE.
   */
  'hostname'?: (string);
  /**
   * Path to the directory on the host in which container log files are
   * stored.
   * By default the log of a container going into the LogDirectory will be
   * hooked up to STDOUT and STDERR. However, the LogDirectory may contain
   * binary log files with structured logging data from the individual
   * containers. For example, the files might be newline separated JSON
   * structured logs, systemd-journald journal files, gRPC trace files, etc.
   * E.g.,
   * PodSandboxConfig.LogDirectory = `/var/log/pods/<NAMESPACE>_<NAME>_<UID>/`
   * ContainerConfig.LogPath = `containerName/Instance#.log`
   */
  'logDirectory'?: (string);
  /**
   * DNS config for the sandbox.
   */
  'dnsConfig'?: (_runtime_v1_DNSConfig | null);
  /**
   * Port mappings for the sandbox.
   */
  'portMappings'?: (_runtime_v1_PortMapping)[];
  /**
   * Key-value pairs that may be used to scope and select individual resources.
   */
  'labels'?: ({[key: string]: string});
  /**
   * Unstructured key-value map that may be set by the kubelet to store and
   * retrieve arbitrary metadata. This will include any annotations set on a
   * pod through the Kubernetes API.
   * 
   * Annotations MUST NOT be altered by the runtime; the annotations stored
   * here MUST be returned in the PodSandboxStatus associated with the pod
   * this PodSandboxConfig creates.
   * 
   * In general, in order to preserve a well-defined interface between the
   * kubelet and the container runtime, annotations SHOULD NOT influence
   * runtime behaviour.
   * 
   * Annotations can also be useful for runtime authors to experiment with
   * new features that are opaque to the Kubernetes APIs (both user-facing
   * and the CRI). Whenever possible, however, runtime authors SHOULD
   * consider proposing new typed fields for any new features instead.
   */
  'annotations'?: ({[key: string]: string});
  /**
   * Optional configurations specific to Linux hosts.
   */
  'linux'?: (_runtime_v1_LinuxPodSandboxConfig | null);
  /**
   * Optional configurations specific to Windows hosts.
   */
  'windows'?: (_runtime_v1_WindowsPodSandboxConfig | null);
}

/**
 * PodSandboxConfig holds all the required and optional fields for creating a
 * sandbox.
 */
export interface PodSandboxConfig__Output {
  /**
   * Metadata of the sandbox. This information will uniquely identify the
   * sandbox, and the runtime should leverage this to ensure correct
   * operation. The runtime may also use this information to improve UX, such
   * as by constructing a readable name.
   */
  'metadata': (_runtime_v1_PodSandboxMetadata__Output | null);
  /**
   * Hostname of the sandbox. Hostname could only be empty when the pod
   * network namespace is NODE.
   */
  'hostname': (string);
  /**
   * Path to the directory on the host in which container log files are
   * stored.
   * By default the log of a container going into the LogDirectory will be
   * hooked up to STDOUT and STDERR. However, the LogDirectory may contain
   * binary log files with structured logging data from the individual
   * containers. For example, the files might be newline separated JSON
   * structured logs, systemd-journald journal files, gRPC trace files, etc.
   * E.g.,
   * PodSandboxConfig.LogDirectory = `/var/log/pods/<NAMESPACE>_<NAME>_<UID>/`
   * ContainerConfig.LogPath = `containerName/Instance#.log`
   */
  'logDirectory': (string);
  /**
   * DNS config for the sandbox.
   */
  'dnsConfig': (_runtime_v1_DNSConfig__Output | null);
  /**
   * Port mappings for the sandbox.
   */
  'portMappings': (_runtime_v1_PortMapping__Output)[];
  /**
   * Key-value pairs that may be used to scope and select individual resources.
   */
  'labels': ({[key: string]: string});
  /**
   * Unstructured key-value map that may be set by the kubelet to store and
   * retrieve arbitrary metadata. This will include any annotations set on a
   * pod through the Kubernetes API.
   * 
   * Annotations MUST NOT be altered by the runtime; the annotations stored
   * here MUST be returned in the PodSandboxStatus associated with the pod
   * this PodSandboxConfig creates.
   * 
   * In general, in order to preserve a well-defined interface between the
   * kubelet and the container runtime, annotations SHOULD NOT influence
   * runtime behaviour.
   * 
   * Annotations can also be useful for runtime authors to experiment with
   * new features that are opaque to the Kubernetes APIs (both user-facing
   * and the CRI). Whenever possible, however, runtime authors SHOULD
   * consider proposing new typed fields for any new features instead.
   */
  'annotations': ({[key: string]: string});
  /**
   * Optional configurations specific to Linux hosts.
   */
  'linux': (_runtime_v1_LinuxPodSandboxConfig__Output | null);
  /**
   * Optional configurations specific to Windows hosts.
   */
  'windows': (_runtime_v1_WindowsPodSandboxConfig__Output | null);
}
