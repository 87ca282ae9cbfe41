// Where a pod's folders live on the host, as the kubelet lays them out: <podsDir>/<uid>, and its volumes
//   <podsDir>/<uid>/volumes/kubernetes.io~<plugin>/<volume name>
// (k/k@1.24.1 pkg/kubelet/kubelet_getters.go getPodVolumeDir, pkg/volume/util/strings EscapeQualifiedName:
// the plugin name "kubernetes.io/secret" with "/" escaped as "~"). Every path is built with
// confinedPath from the pod's UID and volume name, so a hostile UID or name cannot leave podsDir.
// Here in src/api, below the volume plugins that make these folders, the stats that measure them and
// the eviction that checks their size.
import type { Pod, Volume } from "kubernetes-types/core/v1";
import { podRef } from "./pod";
import { podUIDProblem } from "./name-validation";
import { confinedPath, PathEscapeError, pathSegmentProblem } from "../util";

/** A pod UID as one path segment (<podsDir>/<uid>, log and cgroup names); PathEscapeError when it cannot be one. */
export function uidSegment(uid: string): string {
  const problem = podUIDProblem(uid);
  if (problem) throw new PathEscapeError(`pod UID ${JSON.stringify(uid)} cannot name a folder: it ${problem}`);
  return uid;
}

/** The plugin directories of the volume kinds the agent makes on the host (hostPath has none). */
export const PLUGIN_DIRS = {
  configMap: "kubernetes.io~configmap",
  secret: "kubernetes.io~secret",
  downwardAPI: "kubernetes.io~downward-api",
  projected: "kubernetes.io~projected",
  emptyDir: "kubernetes.io~empty-dir",
} as const;

export type PluginKind = keyof typeof PLUGIN_DIRS;

/** <podsDir>/<uid>: the pod's own directory; PathEscapeError for a UID that cannot name a folder. */
export function podDirOf(podsDir: string, uid: string): string {
  return confinedPath(podsDir, uidSegment(uid));
}

/**
 * <podsDir>/<uid>/etc-hosts: the hosts file the agent writes for the pod and bind-mounts at each
 * container's /etc/hosts (as the kubelet's getEtcHostsPath); it goes with the pod's directory.
 */
export function podEtcHostsPath(podsDir: string, uid: string): string {
  return confinedPath(podDirOf(podsDir, uid), "etc-hosts");
}

/** <podsDir>/<uid>/volumes: everything the pod's volumes hold; its removal is the pod's volume clean-up. */
export function podVolumesDir(podsDir: string, uid: string): string {
  return confinedPath(podDirOf(podsDir, uid), "volumes");
}

/** <podsDir>/<uid>/volumes/kubernetes.io~<plugin>/<name>. */
export function volumeDir(podsDir: string, uid: string, kind: PluginKind, name: string): string {
  const problem = pathSegmentProblem(name);
  if (problem) throw new PathEscapeError(`volume name ${JSON.stringify(name)} cannot name a folder: it ${problem}`);
  return confinedPath(podVolumesDir(podsDir, uid), PLUGIN_DIRS[kind], name);
}

/** The plugin kind of a volume this layer makes under podsDir, or undefined (hostPath, unsupported kinds). */
export function pluginKind(v: Volume): PluginKind | undefined {
  if (v.configMap) return "configMap";
  if (v.secret) return "secret";
  if (v.downwardAPI) return "downwardAPI";
  if (v.projected) return "projected";
  if (v.emptyDir) return "emptyDir";
  return undefined;
}

/**
 * The host path a container mount of the volume binds: hostPath's own path, or the plugin directory;
 * undefined for a volume kind the agent does not make. Pure: nothing is made.
 */
export function volumeHostPath(pod: Pod, v: Volume, podsDir: string): string | undefined {
  if (v.hostPath) return v.hostPath.path;
  const kind = pluginKind(v);
  return kind ? volumeDir(podsDir, podRef(pod).uid, kind, v.name) : undefined;
}
