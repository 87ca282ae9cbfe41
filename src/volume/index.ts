// src/volume owns the volumes and API-object config that pods carry (issue 15): where configMaps,
// secrets and tokens come from (ObjectSource), the plugins that turn a pod volume into files and
// mounts, and the VolumeManager the pod sync waits on before it creates containers.
export * from "./types";
export * from "./host-volumes";
export * from "./mount-table";
export * from "./no-object-source";
export * from "./object-refs";
export * from "./volume-manager";
