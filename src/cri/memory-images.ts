// MemoryImages: the in-memory runtime's image store (memory-runtime.ts), answering the CRI
// ImageService as containerd does: PullImage records the image at once and returns its ID;
// ImageStatus of an image it does not have is an empty answer, not an error; RemoveImage is
// idempotent; ImageFsInfo reports the images' bytes on one image filesystem. An image's ID is
// derived from its name (sha256 of it), so the same name has the same ID on every hollow node; its
// size is a constant. One Image record per image, shared by every answer.
import { createHash } from "node:crypto";
import type { ImageView } from "./memory-records";
import type { Image, ImageFsInfoResponse, ImageSpecInput } from "./types";

export class MemoryImages {
  /** Images by ID. */
  private readonly byId = new Map<string, Image>();
  /** Image IDs by every name (repo tag or digest) they are known by. */
  private readonly byName = new Map<string, string>();

  constructor(
    private readonly sizeBytes: number,
    /** The image filesystem's mountpoint ImageFsInfo reports: the node statfs's it, so it must exist. */
    readonly mountpoint: string,
    private readonly nowNs: () => number,
  ) {}

  /** The image as pulled: recorded under its name, the existing record when it is there already. */
  add(name: string): Image {
    const known = this.find(name);
    if (known) return known;
    const id = `sha256:${createHash("sha256").update(name).digest("hex")}`;
    const image: Image = { id, repoTags: [name], repoDigests: [], size: this.sizeBytes, uid: null, username: "", spec: null, pinned: false };
    this.byId.set(id, image);
    this.byName.set(name, id);
    return image;
  }

  /** The image by ID or by any of its names; undefined when the store has none. */
  find(ref: string): Image | undefined {
    return this.byId.get(ref) ?? this.byId.get(this.byName.get(ref) ?? "");
  }

  /** How containerd shows a container's image: its first tag and its ID when the store has it, else the config's text. */
  view(ref: string): ImageView {
    const image = this.find(ref);
    if (!image) return { image: ref, imageRef: ref, imageId: ref };
    return { image: image.repoTags[0] ?? ref, imageRef: image.repoDigests[0] ?? image.id, imageId: image.id };
  }

  list(filter?: ImageSpecInput): Image[] {
    if (filter?.image) {
      const one = this.find(filter.image);
      return one ? [one] : [];
    }
    return [...this.byId.values()];
  }

  remove(spec: ImageSpecInput): void {
    const image = this.find(spec.image ?? "");
    if (!image) return;
    this.byId.delete(image.id);
    for (const n of [...image.repoTags, ...image.repoDigests]) this.byName.delete(n);
  }

  fsInfo(): ImageFsInfoResponse {
    let used = 0;
    for (const i of this.byId.values()) used += i.size;
    const usage = { timestamp: this.nowNs(), fsId: { mountpoint: this.mountpoint }, usedBytes: { value: used }, inodesUsed: { value: this.byId.size * 100 } };
    return { imageFilesystems: [usage], containerFilesystems: [] };
  }
}
