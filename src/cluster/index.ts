// src/cluster owns the agent as a node of a Kubernetes cluster: Node registration and status reports (the
// status itself is src/nodestatus's), the node Lease, mirror pods and the API status manager, wired together
// by ClusterNode; it loads @kubernetes/client-node, so the agent imports it only with --kubeconfig.
export { startNodeHeartbeat, type NodeHeartbeat, type NodeHeartbeatOptions } from "./heartbeat";
export { NodeLease, NODE_LEASE_NAMESPACE, NODE_LEASE_DURATION_SECONDS, type NodeLeaseOptions } from "./node-lease";
export { NodeStatusReporter, NODE_STATUS_UPDATE_FREQUENCY_MS, NODE_STATUS_REPORT_FREQUENCY_MS, type NodeStatusReporterOptions } from "./node-status-reporter";
export { MirrorPods, type MirrorPodsOptions } from "./mirror-pods";
export { isMirrorPod, isMirrorPodOf, isStaticPod, type ApiPodEvent, type ApiPodView } from "./api-pods";
export type { ClusterNode } from "./cluster-node";
export { loadClusterNode } from "./lazy";
