// The CRI calls a pod sync makes (SyncRuntime: the CriClient on a node, a fake in tests), and the one
// rule every stop and removal shares: an object the runtime no longer has is already where it should be.
import { type CriClient, NotFoundError } from "../cri";

export type SyncRuntime = Pick<
  CriClient,
  | "runPodSandbox"
  | "stopPodSandbox"
  | "removePodSandbox"
  | "podSandboxStatus"
  | "createContainer"
  | "startContainer"
  | "stopContainer"
  | "removeContainer"
  | "updateContainerResources"
  | "execSync"
  | "pullImage"
  | "imageStatus"
>;

/** A stop or removal of what is already gone succeeded. */
export async function ignoreNotFound(p: Promise<unknown>): Promise<void> {
  try {
    await p;
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
  }
}
