// Fakes of the garbage collectors as the eviction manager reclaims through them (the kubelet's
// DiskGC: DeleteUnusedImages, DeleteAllUnusedContainers): each records its calls, answers what the
// test set, and can run a hook (the test's way to make the reclaim free space in its fake stats).
import type { ContainerGCer } from "../../src/gc/container-gc";
import type { ImageGC } from "../../src/gc/image-gc-manager";

export class FakeImageGC implements ImageGC {
  collections = 0;
  reclaims = 0;
  /** What deleteUnusedImages answers (bytes freed), or the error both calls throw. */
  freed: number | Error = 0;
  onReclaim: (() => void) | undefined;

  async garbageCollect(): Promise<void> {
    this.collections++;
    if (this.freed instanceof Error) throw this.freed;
  }
  async deleteUnusedImages(): Promise<number> {
    this.reclaims++;
    if (this.freed instanceof Error) throw this.freed;
    this.onReclaim?.();
    return this.freed;
  }
}

export class FakeContainerGC implements ContainerGCer {
  collections = 0;
  reclaims = 0;
  error: Error | undefined;
  onReclaim: (() => void) | undefined;

  async garbageCollect(): Promise<void> {
    this.collections++;
    if (this.error) throw this.error;
  }
  async deleteAllUnusedContainers(): Promise<void> {
    this.reclaims++;
    if (this.error) throw this.error;
    this.onReclaim?.();
  }
}
