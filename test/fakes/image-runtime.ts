// FakeImageRuntime: the CRI calls image GC makes (ImageGCRuntime) over a table of images and
// containers the test fills, with an image filesystem whose free space grows by what RemoveImage
// frees (ImageFsStatsProvider). It records every removal, and can refuse one image's removal.
import type { ImageFsStatsProvider, ImageGCRuntime } from "../../src/gc/image-gc-manager";
import type { Container, Image, ImageSpecInput, ImageStatusResponse } from "../../src/cri/types";
import { grpcStatusError } from "./grpc";

export class FakeImageRuntime implements ImageGCRuntime, ImageFsStatsProvider {
  readonly images = new Map<string, Image>();
  containers: Container[] = [];
  readonly removed: string[] = [];
  /** Image IDs whose RemoveImage fails (an image a container outside the CRI's view holds). */
  readonly refuse = new Set<string>();
  capacityBytes = 100_000;
  availableBytes = 50_000;

  addImage(name: string, size: number, o: { pinned?: boolean } = {}): string {
    const id = `sha256:${name.replace(/[^a-z0-9]/g, "")}`;
    this.images.set(id, { id, repoTags: [name], repoDigests: [], size, uid: null, username: "", spec: null, pinned: o.pinned ?? false });
    return id;
  }

  /** A container (running or exited) whose rootfs is the image. */
  useImage(id: string, state: Container["state"] = "CONTAINER_RUNNING"): void {
    this.containers.push({ id: `c${this.containers.length}`, imageRef: id, image: { image: id }, state } as unknown as Container);
  }

  async listImages(): Promise<Image[]> {
    return [...this.images.values()];
  }
  async listContainers(): Promise<Container[]> {
    return this.containers;
  }
  async imageStatus(spec: ImageSpecInput): Promise<ImageStatusResponse> {
    const image = [...this.images.values()].find((i) => i.id === spec.image || i.repoTags.includes(spec.image ?? "")) ?? null;
    return { image, info: {} };
  }
  async removeImage(spec: ImageSpecInput): Promise<void> {
    const id = spec.image ?? "";
    if (this.refuse.has(id)) throw grpcStatusError("RemoveImage", 2, `image ${id} is in use`);
    const image = this.images.get(id);
    if (!image) return;
    this.images.delete(id);
    this.removed.push(id);
    this.availableBytes += image.size;
  }
  async imageFsStats(): Promise<{ capacityBytes?: number; availableBytes?: number }> {
    return { capacityBytes: this.capacityBytes, availableBytes: this.availableBytes };
  }
}
