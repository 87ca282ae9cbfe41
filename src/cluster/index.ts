// src/cluster: the agent as a node of a Kubernetes cluster — Node registration and status reporting
// (the status itself is src/nodestatus's), the node Lease, mirror pods and the status manager (made
// here, src/status's), wired together by ClusterNode (a pod source of the agent and its
// PodStatusManager); it loads @kubernetes/client-node, so commands import it lazily.
export { startNodeHeartbeat, type NodeHeartbeat, type NodeHeartbeatOptions } from "./heartbeat";
export { NodeLease, NODE_LEASE_NAMESPACE, NODE_LEASE_DURATION_SECONDS, type NodeLeaseOptions } from "./node-lease";
export { NodeStatusReporter, NODE_STATUS_UPDATE_FREQUENCY_MS, NODE_STATUS_REPORT_FREQUENCY_MS, type NodeStatusReporterOptions } from "./node-status-reporter";
export { MirrorPods, type MirrorPodsOptions } from "./mirror-pods";
export { isMirrorPod, isMirrorPodOf, isStaticPod, type ApiPodEvent, type ApiPodView } from "./api-pods";
