// ImageLocality (plugins/imagelocality): prefers nodes that already have the pod's images, by their
// size scaled by how many nodes have them (so one node holding a popular image does not draw every
// pod), between 23 MiB and 1000 MiB per container.
import type { Pod } from "kubernetes-types/core/v1";
import { MAX_NODE_SCORE, type Handle, type ScorePlugin } from "../framework/interface";
import type { CycleState } from "../framework/cycle-state";
import type { ImageState, NodeInfo } from "../model/node-info";
import type { PodInfo } from "../model/pod-info";
import { Names } from "./names";

const MB = 1024 * 1024;
export const MIN_THRESHOLD = 23 * MB;
export const MAX_CONTAINER_THRESHOLD = 1000 * MB;

/** normalizedImageName: an image without a tag (or digest) means :latest. */
export function normalizedImageName(name: string): string {
  return name.lastIndexOf(":") <= name.lastIndexOf("/") ? `${name}:latest` : name;
}

/** scaledImageScore: the image's size × the fraction of nodes that have it. */
function scaledImageScore(state: ImageState, totalNumNodes: number): number {
  return Math.trunc(state.size * (state.nodes.size / totalNumNodes));
}

export function sumImageScores(nodeInfo: NodeInfo, pod: Pod, totalNumNodes: number): number {
  let sum = 0;
  for (const c of [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])]) {
    const st = nodeInfo.imageStates.get(normalizedImageName(c.image ?? ""));
    if (st) sum += scaledImageScore(st, totalNumNodes);
  }
  return sum;
}

/** calculatePriority: the sum clamped to [23 MiB, 1000 MiB × containers], mapped onto 0–100. */
export function calculatePriority(sumScores: number, numContainers: number): number {
  const maxThreshold = MAX_CONTAINER_THRESHOLD * numContainers;
  const s = Math.min(Math.max(sumScores, MIN_THRESHOLD), maxThreshold);
  return Math.trunc((MAX_NODE_SCORE * (s - MIN_THRESHOLD)) / (maxThreshold - MIN_THRESHOLD));
}

export class ImageLocality implements ScorePlugin {
  readonly name = Names.ImageLocality;

  constructor(private readonly handle: Handle) {}

  score(_state: CycleState, pod: PodInfo, nodeInfo: NodeInfo): number {
    if (nodeInfo.imageStates.size === 0) return 0;
    const total = this.handle.snapshot().numNodes();
    const spec = pod.pod.spec;
    const containers = (spec?.initContainers?.length ?? 0) + (spec?.containers?.length ?? 0);
    return calculatePriority(sumImageScores(nodeInfo, pod.pod, total), containers);
  }
}
