// The in-tree plugin names (pkg/scheduler/framework/plugins/names/names.go).
export const Names = {
  PrioritySort: "PrioritySort",
  SchedulingGates: "SchedulingGates",
  NodeUnschedulable: "NodeUnschedulable",
  NodeName: "NodeName",
  TaintToleration: "TaintToleration",
  NodeAffinity: "NodeAffinity",
  NodePorts: "NodePorts",
  NodeResourcesFit: "NodeResourcesFit",
  NodeResourcesBalancedAllocation: "NodeResourcesBalancedAllocation",
  ImageLocality: "ImageLocality",
  PodTopologySpread: "PodTopologySpread",
  InterPodAffinity: "InterPodAffinity",
  DefaultPreemption: "DefaultPreemption",
  DefaultBinder: "DefaultBinder",
} as const;

/**
 * Upstream plugins nodeagent does not implement: the volume plugins (there are no PersistentVolume,
 * StorageClass or CSINode objects here) and DynamicResources (no ResourceClaims). A configuration
 * that names them is accepted; they are left out with a warning.
 */
export const UNSUPPORTED_PLUGINS = new Set([
  "VolumeRestrictions",
  "NodeVolumeLimits",
  "VolumeBinding",
  "VolumeZone",
  "EBSLimits",
  "GCEPDLimits",
  "AzureDiskLimits",
  "CinderLimits",
  "DynamicResources",
  "GangScheduling",
]);
