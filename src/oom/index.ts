// src/oom owns the node's OOM watcher: it reads the kernel's log (/dev/kmsg), finds each OOM kill, and
// reports it (log, metric, and the node's SystemOOM event through onOom). A container's own OOMKilled reason is
// not made here: it comes from the runtime's ContainerStatus, as in the kubelet.
export { KmsgReader, type KmsgRecord, type KernelLog } from "./kmsg";
export { OomParser, type OomInstance } from "./oom-parser";
export { OomWatcher, SYSTEM_OOM_CONTAINER, type OomWatcherOptions } from "./oom-watcher";
