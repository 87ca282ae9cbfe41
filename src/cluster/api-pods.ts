// The API pods as the mirror pods see them: the view of the pods bound to this node (the status
// manager's ApiPodView, src/status), which pods are static or mirror pods, and a static pod's hash.
import type { Pod } from "kubernetes-types/core/v1";
import { CONFIG_HASH_ANNOTATION, CONFIG_MIRROR_ANNOTATION, podKey } from "../api";

/** The view itself is the status manager's seam (src/status), which mirror pods read too. */
export type { ApiPodEvent, ApiPodView } from "../status";

/** A pod that did not come from the API server (kubetypes.IsStaticPod), from src/api. */
export { isStaticPod } from "../api";

/** An API pod that stands for a static pod (kubetypes.IsMirrorPod: it has the mirror annotation). */
export { isMirrorPod } from "../config";

/** The static pod's config hash: the value its mirror pod's annotation must carry. */
export const staticPodHash = (pod: Pod) => pod.metadata?.annotations?.[CONFIG_HASH_ANNOTATION] ?? pod.metadata?.uid ?? "";

/** pod.IsMirrorPodOf: the mirror pod of exactly this version of the static pod (same full name and hash). */
export function isMirrorPodOf(mirror: Pod, staticPod: Pod): boolean {
  return podKey(mirror) === podKey(staticPod) && mirror.metadata?.annotations?.[CONFIG_MIRROR_ANNOTATION] === staticPodHash(staticPod);
}
