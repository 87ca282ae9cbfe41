// What the status manager and the mirror pods read of the API: the pods bound to this node as the API
// source's informer last saw them, in their JSON wire form (a KubeInformer<Pod> is one).
import type { Pod } from "kubernetes-types/core/v1";
import { CONFIG_HASH_ANNOTATION, CONFIG_MIRROR_ANNOTATION } from "../api/annotations";
import { podKey } from "../api/pod";

export type ApiPodEvent = "add" | "update" | "delete";

export interface ApiPodView {
  /** The pod by name and namespace, as last listed or watched. */
  get(name: string, namespace?: string): Pod | undefined;
  /** Every pod bound to this node. */
  list(): readonly Pod[];
  /** Called after each change is in the view. */
  onChange(cb: (event: ApiPodEvent, pod: Pod) => void): void;
}


/** A pod that did not come from the API server (kubetypes.IsStaticPod), from src/api. */
export { isStaticPod } from "../api/pod";

/** An API pod that stands for a static pod (kubetypes.IsMirrorPod: it has the mirror annotation). */
export { isMirrorPod } from "../config/apiserver-source";

/** The static pod's config hash: the value its mirror pod's annotation must carry. */
export const staticPodHash = (pod: Pod) => pod.metadata?.annotations?.[CONFIG_HASH_ANNOTATION] ?? pod.metadata?.uid ?? "";

/** pod.IsMirrorPodOf: the mirror pod of exactly this version of the static pod (same full name and hash). */
export function isMirrorPodOf(mirror: Pod, staticPod: Pod): boolean {
  return podKey(mirror) === podKey(staticPod) && mirror.metadata?.annotations?.[CONFIG_MIRROR_ANNOTATION] === staticPodHash(staticPod);
}
