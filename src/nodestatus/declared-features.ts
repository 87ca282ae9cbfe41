// Node.status.declaredFeatures (NodeDeclaredFeatures, beta and on by default in 1.36): the features
// whose pods the node can run, by name, sorted. The scheduler sends a pod that needs one only to nodes
// declaring it, and the kubelet's admission refuses one that reaches it anyway; kube-apiserver asks
// before it lets a running pod's spec change in a way that needs one (a resize).
//
// With its default gates the 1.36 kubelet declares four (component-helpers nodedeclaredfeatures'
// registry): ExtendWebSocketsToKubelet, InPlacePodLevelResourcesVerticalScaling,
// InPlacePodVerticalScalingInitContainers and RestartAllContainersOnContainerExits. nodeagent declares
// only what it does, so that a pod needing the rest is kept off this node instead of failing on it:
// - RestartAllContainersOnContainerExits: no (admission refuses a container's restartPolicyRules, the
//   RestartAllContainers action among them: src/admission/newer-fields.ts);
// - InPlacePodLevelResourcesVerticalScaling: no (pod-level resources are not resized in place);
// - InPlacePodVerticalScalingInitContainers: not yet (the resize of init containers is not proven here);
// - ExtendWebSocketsToKubelet: not yet (exec, attach and port-forward over WebSocket are proxied to the
//   runtime's streaming server, but not proven against kube-apiserver's WebSocket path; without the
//   declaration the API server translates to SPDY, which the agent speaks).
// docs/feature-gates.md gives the same answers.

/** The features this node declares; empty, the field is left out of the Node. */
export const DECLARED_FEATURES: readonly string[] = [];
