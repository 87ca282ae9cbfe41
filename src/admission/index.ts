// src/admission owns the pod admit handlers: the checks a new pod must pass before the node starts it
// (the kubelet's lifecycle.PodAdmitHandler chain). A refused pod gets phase Failed with the handler's
// reason and message and never runs. It imports src/api only; the agent runs the chain on every ADD.
export { admitPod, type PodAdmitAttributes, type PodAdmitHandler, type PodAdmitResult } from "./types";
export { MaxPodsAdmitHandler, outOfPodsMessage } from "./max-pods";
