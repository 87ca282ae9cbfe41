// src/volume owns the volume plugins that turn a pod volume into files and mounts (configMap, secret,
// downwardAPI, projected, emptyDir, hostPath) and the VolumeManager the pod sync waits on before it
// creates containers; the API objects those volumes read come from src/objects.
export * from "./types";
export * from "./atomic-writer";
export * from "./payload";
export * from "./configmap";
export * from "./secret";
export * from "./downward-api";
export * from "./projected";
export * from "./empty-dir";
export * from "./mount";
export { MemoryMounter } from "./memory-mounter";
export * from "./ownership";
export * from "./sub-path";
export * from "./set-up";
export * from "./mount-table";
export * from "./volume-manager";
export * from "./plugins";
