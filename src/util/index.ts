// src/util owns what every module needs and nothing Kubernetes-specific: the clock (real and fake),
// durations, bounded queues and a mutex, logging, atomic state files, paths confined to a root, IP address
// classes as Go sees them, the bad-input error (ConfigError) and "did you mean" suggestions. It imports nothing else from src/.
export * from "./atomic-file";
export * from "./clock";
export * from "./confined-path";
export * from "./duration";
export * from "./errors";
export * from "./ip";
export * from "./log";
export * from "./queue";
export * from "./random";
export * from "./suggest";
export * from "./time";
export * from "./capped-body";
