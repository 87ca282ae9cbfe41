// The kubelet's event reasons (k/k@1.24.1 pkg/kubelet/events/event.go, and the literals its managers
// use), one name for each so a typo cannot make a new reason.

// Container
export const CREATED_CONTAINER = "Created";
export const STARTED_CONTAINER = "Started";
export const FAILED_TO_CREATE_CONTAINER = "Failed";
export const FAILED_TO_START_CONTAINER = "Failed";
export const KILLING_CONTAINER = "Killing";
export const PREEMPT_CONTAINER = "Preempting";
export const BACK_OFF_START_CONTAINER = "BackOff";
export const EXCEEDED_GRACE_PERIOD = "ExceededGracePeriod";

// Pod
export const FAILED_TO_KILL_POD = "FailedKillPod";
export const FAILED_TO_CREATE_POD_CONTAINER = "FailedCreatePodContainer";
export const NETWORK_NOT_READY = "NetworkNotReady";

// Image
export const PULLING_IMAGE = "Pulling";
export const PULLED_IMAGE = "Pulled";
export const FAILED_TO_PULL_IMAGE = "Failed";
export const FAILED_TO_INSPECT_IMAGE = "InspectFailed";
export const ERR_IMAGE_NEVER_PULL_POLICY = "ErrImageNeverPull";
export const BACK_OFF_PULL_IMAGE = "BackOff";

// Kubelet and node
export const NODE_READY = "NodeReady";
export const NODE_NOT_READY = "NodeNotReady";
export const STARTING_KUBELET = "Starting";
export const FAILED_MOUNT_VOLUME = "FailedMount";
export const SANDBOX_CHANGED = "SandboxChanged";
export const FAILED_CREATE_POD_SANDBOX = "FailedCreatePodSandBox";
export const CONTAINER_GC_FAILED = "ContainerGCFailed";
export const IMAGE_GC_FAILED = "ImageGCFailed";
export const FAILED_NODE_ALLOCATABLE_ENFORCEMENT = "FailedNodeAllocatableEnforcement";
export const SUCCESSFUL_NODE_ALLOCATABLE_ENFORCEMENT = "NodeAllocatableEnforced";
export const INVALID_DISK_CAPACITY = "InvalidDiskCapacity";
export const FREE_DISK_SPACE_FAILED = "FreeDiskSpaceFailed";

// Probes
export const CONTAINER_UNHEALTHY = "Unhealthy";
export const CONTAINER_PROBE_WARNING = "ProbeWarning";

// Managers' literals
export const EVICTED = "Evicted";
export const EVICTION_THRESHOLD_MET = "EvictionThresholdMet";
export const SYSTEM_OOM = "SystemOOM";
