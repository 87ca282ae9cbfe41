// src/util owns what every module needs and nothing Kubernetes-specific: the clock (real and fake),
// durations, bounded queues and a mutex, logging, and atomic state files. It imports nothing else from src/.
export * from "./atomic-file";
export * from "./clock";
export * from "./duration";
export * from "./log";
export * from "./queue";
export * from "./time";
