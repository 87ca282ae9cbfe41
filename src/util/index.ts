// src/util owns what every module needs and nothing Kubernetes-specific: the clock (real and fake),
// durations, bounded queues and a mutex, logging, atomic state files, and paths confined to a root.
// It imports nothing else from src/.
export * from "./atomic-file";
export * from "./clock";
export * from "./confined-path";
export * from "./duration";
export * from "./log";
export * from "./queue";
export * from "./time";
