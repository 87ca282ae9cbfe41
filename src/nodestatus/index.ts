// src/nodestatus owns the v1 Node object of this host, as the kubelet's pkg/kubelet/nodestatus: the
// host's facts, addresses, capacity and allocatable, conditions, versions, the operator's labels and
// taints, the Node builder, and how a fresh status is laid over the API's copy and patched.
export { buildNode, MAX_IMAGES_IN_NODE_STATUS, MAX_NAMES_PER_IMAGE, type BuildNodeOptions } from "./node";
export { goArch, osPrettyName, readHostFacts, readHugePages, type HostFacts, type HugePagePool } from "./host-facts";
export { formatBytes, formatMillicores, nodeResources, type EvictionReservation, type NodeResourceOptions } from "./capacity";
export { condition, type NodeFeatures, pressureConditions, runtimeConditionErrors, runtimeErrors, type RuntimeConditionErrors } from "./conditions";
export { parseLabels, parseTaint, parseTaints } from "./labels-taints";
export { KUBERNETES_VERSION, kubeletVersion } from "./version";
export {
  chooseHostInterface,
  nodeIPProblem,
  parseDefaultRoutes,
  parseNodeIPs,
  realHostNetwork,
  resolveNodeAddresses,
  type DefaultRoute,
  type HostNetwork,
  type NodeAddressOptions,
  type ResolvedNodeAddresses,
} from "./node-address";
export {
  applyHealth,
  DEFAULT_LABELS,
  nodeStatusChanged,
  nodeStatusPatch,
  OWNED_CONDITIONS,
  reconcileExistingNode,
  withReportedStatus,
  type NodeHealth,
} from "./status-update";
export {
  NODE_SETTINGS,
  realHostLookup,
  resolveMaxPods,
  resolveNodeIdentity,
  resolveNodeRegistration,
  resolveNodeStatusUpdateFrequency,
  sumReserved,
  type HostLookup,
  type NodeSettings,
  type NodeView,
  type ReservedResources,
} from "./settings";
