// ImageGCManager: the kubelet's image garbage collector (k/k@1.24.1 pkg/kubelet/images/image_gc_manager.go,
// started by pkg/kubelet/kubelet.go StartGarbageCollection). It keeps a record of every image the
// runtime holds — when it was first detected, when a container last used it, its size, whether the
// runtime pins it — and when the image filesystem fills up it removes the least recently used images
// nobody uses until usage is back at the low threshold.
//
// Two loops, as the kubelet's:
//   detection   every period (the kubelet's 5 min): list images and containers, update the records.
//               The first detection dates the images it finds at "unknown, long ago" (the kubelet's
//               zero time): an image already there when the agent starts is old enough at once.
//   collection  every period (ImageGCPeriod, 5 min), the first time at once: usage% of the image
//               filesystem = 100 − available×100/capacity (capacity and available from statfs of the
//               mountpoint CRI ImageFsInfo names, as cAdvisor's GetDirFsInfo); at or above
//               imageGCHighThresholdPercent it frees capacity×(100−low)/100 − available bytes.
//               Capacity 0 is an error (InvalidDiskCapacity); freeing less than asked is an error
//               (FreeDiskSpaceFailed); two failed collections in a row are ImageGCFailed. High 100
//               turns collection off (the kubelet stubs the manager then).
//
// Which images may go (freeSpace): not used by any container the runtime has (running or exited: an
// exited container's image is still its rootfs), not the pod-infra (sandbox) image, not pinned (CRI
// Image.pinned, containerd 1.7 pins its sandbox image), not used at this collection's time, and
// first detected at least imageMinimumGCAge ago (an image just pulled is about to be used). They are
// removed least recently used first (lastUsed, then firstDetected), one RemoveImage each, until the
// bytes freed reach the amount; a failed removal is logged and the next one tried.
//
// deleteUnusedImages() is the eviction manager's node-level reclaim (DeleteUnusedImages): the same
// choice, with no amount to stop at. Its Node events go through the onEvent hook (the node
// records them, src/events); the reason and message are logged too.
import type { CriClient, ImageFsInfoResponse } from "../cri";
import { fsStats, SYSTEM_HOST_FILES, type HostFiles } from "../stats";
import { type Clock, errorMessage, type Logger, runUntil } from "../util";

/** The kubelet's ImageGCPeriod: how often images are detected and collected. */
export const IMAGE_GC_PERIOD_MS = 5 * 60_000;

/** The kubelet's image GC policy (KubeletConfiguration imageGC*; the v1beta1 defaults). */
export interface ImageGCPolicy {
  /** imageGCHighThresholdPercent (--image-gc-high-threshold), 85: at or above it images are collected; 100 turns it off. */
  highThresholdPercent: number;
  /** imageGCLowThresholdPercent (--image-gc-low-threshold), 80: collection frees down to it. */
  lowThresholdPercent: number;
  /** imageMinimumGCAge (--minimum-image-ttl-duration), 2 min: a younger image is never collected. */
  minAgeMs: number;
}

export const DEFAULT_IMAGE_GC_POLICY: ImageGCPolicy = { highThresholdPercent: 85, lowThresholdPercent: 80, minAgeMs: 2 * 60_000 };

/** The CRI calls image GC makes: the CriClient on a node, a fake in tests. */
export type ImageGCRuntime = Pick<CriClient, "listImages" | "removeImage" | "listContainers" | "imageStatus">;

/** The image filesystem's size (the kubelet's statsProvider.ImageFsStats); undefined fields are unknown. */
export interface ImageFsStatsProvider {
  imageFsStats(): Promise<{ capacityBytes?: number; availableBytes?: number }>;
}

/** ImageFsInfo's mountpoint, measured with statfs (the CRI stats provider asks cAdvisor the same). */
export class CriImageFsStats implements ImageFsStatsProvider {
  constructor(
    private readonly runtime: { imageFsInfo(): Promise<ImageFsInfoResponse> },
    private readonly files: HostFiles = SYSTEM_HOST_FILES,
  ) {}

  async imageFsStats(): Promise<{ capacityBytes?: number; availableBytes?: number }> {
    const fs = (await this.runtime.imageFsInfo()).imageFilesystems[0];
    const mountpoint = fs?.fsId?.mountpoint;
    if (!mountpoint) throw new Error("the runtime reports no image filesystem (ImageFsInfo)");
    const s = fsStats(this.files, mountpoint, "");
    return { capacityBytes: s.capacityBytes, availableBytes: s.availableBytes };
  }
}

/** What the eviction manager asks of image GC (the kubelet's ImageGCManager), with a fake in tests. */
export interface ImageGC {
  /** One collection against the thresholds (GarbageCollect); throws what went wrong. */
  garbageCollect(): Promise<void>;
  /** Removes every image that may go, regardless of thresholds (DeleteUnusedImages); the bytes freed. */
  deleteUnusedImages(): Promise<number>;
}

/** A Warning event on the Node (recorded by the node through src/events): the kubelet's reasons. */
export interface GCEvent {
  reason: "InvalidDiskCapacity" | "FreeDiskSpaceFailed" | "ImageGCFailed" | "ContainerGCFailed";
  message: string;
}

export interface ImageGCManagerOptions {
  runtime: ImageGCRuntime;
  fsStats: ImageFsStatsProvider;
  policy: ImageGCPolicy;
  /** --pod-infra-container-image: always in use (the kubelet's sandboxImage). */
  sandboxImage: string;
  clock: Clock;
  log: Logger;
  /** IMAGE_GC_PERIOD_MS by default; nodeagent's --image-gc-period shortens it in tests. */
  periodMs?: number;
  onEvent?(e: GCEvent): void;
}

export interface ImageRecord {
  /** ms since the epoch; 0: found by the first detection, "unknown, in the past". */
  firstDetected: number;
  /** ms since the epoch; 0: never seen used. */
  lastUsed: number;
  size: number;
  pinned: boolean;
}

export class ImageGCManager implements ImageGC {
  readonly periodMs: number;
  private readonly records = new Map<string, ImageRecord>();
  private initialized = false;
  private prevFailed = false;

  constructor(private readonly o: ImageGCManagerOptions) {
    this.periodMs = o.periodMs ?? IMAGE_GC_PERIOD_MS;
  }

  /** Whether collection runs at all: high threshold 100 turns it off, as the kubelet. */
  get enabled(): boolean {
    return this.o.policy.highThresholdPercent < 100;
  }

  /** Detects and collects every period, the first time at once, until the signal aborts. */
  async run(signal: AbortSignal): Promise<void> {
    if (!this.enabled) {
      this.o.log.info("image garbage collection is off (image GC high threshold 100)");
      return;
    }
    await runUntil(this.o.clock, this.periodMs, signal, async () => {
      await this.detectOnce();
      await this.collectOnce();
    });
  }

  /** The detection loop's step: the first one dates what it finds at "long ago". */
  async detectOnce(): Promise<void> {
    try {
      await this.detectImages(this.initialized ? this.o.clock.now() : 0);
      this.initialized = true;
    } catch (err) {
      this.o.log.info("image GC: failed to monitor images", { err });
    }
  }

  /** The collection loop's step: errors logged, and a second failure in a row is ImageGCFailed. */
  async collectOnce(): Promise<void> {
    try {
      await this.garbageCollect();
      this.prevFailed = false;
    } catch (err) {
      if (this.prevFailed) this.event({ reason: "ImageGCFailed", message: errorMessage(err) });
      else this.o.log.error("image garbage collection failed once, stats initialization may not have completed yet", { err });
      this.prevFailed = true;
    }
  }

  async garbageCollect(): Promise<void> {
    const { policy } = this.o;
    const s = await this.o.fsStats.imageFsStats();
    const capacity = s.capacityBytes ?? 0;
    const available = Math.min(s.availableBytes ?? 0, capacity);
    if (capacity === 0) {
      const message = "invalid capacity 0 on image filesystem";
      this.event({ reason: "InvalidDiskCapacity", message });
      throw new Error(message);
    }
    const usagePercent = 100 - Math.trunc((available * 100) / capacity);
    if (usagePercent < policy.highThresholdPercent) return;
    const amountToFree = Math.trunc((capacity * (100 - policy.lowThresholdPercent)) / 100) - available;
    // Percentages and bytes as plain numbers, so that a log shipper can compare them.
    this.o.log.info("image GC: disk usage on the image filesystem is at or over the high threshold; freeing down to the low threshold", {
      usagePercent,
      highThresholdPercent: policy.highThresholdPercent,
      bytesToFree: amountToFree,
      lowThresholdPercent: policy.lowThresholdPercent,
    });
    const freed = await this.freeSpace(amountToFree, this.o.clock.now());
    if (freed < amountToFree) {
      const message = `failed to garbage collect required amount of images. Wanted to free ${amountToFree} bytes, but freed ${freed} bytes`;
      this.event({ reason: "FreeDiskSpaceFailed", message });
      throw new Error(message);
    }
  }

  async deleteUnusedImages(): Promise<number> {
    this.o.log.info("image GC: attempting to delete unused images");
    return this.freeSpace(Number.MAX_SAFE_INTEGER, this.o.clock.now());
  }

  /** Updates the records from the runtime; the image IDs in use. */
  private async detectImages(detectTime: number): Promise<Set<string>> {
    const inUse = new Set<string>();
    // The sandbox image is always in use, whether or not a sandbox runs now.
    const sandbox = await this.o.runtime.imageStatus({ image: this.o.sandboxImage }).catch(() => undefined);
    if (sandbox?.image?.id) inUse.add(sandbox.image.id);
    const [images, containers] = await Promise.all([this.o.runtime.listImages(), this.o.runtime.listContainers()]);
    for (const c of containers) {
      if (c.imageRef) inUse.add(c.imageRef);
      // containerd answers imageRef with the image's ID; a runtime that gives a name is matched on it too.
      if (c.image?.image) inUse.add(c.image.image);
    }
    const now = this.o.clock.now();
    const current = new Set<string>();
    for (const image of images) {
      current.add(image.id);
      let r = this.records.get(image.id);
      if (!r) this.records.set(image.id, (r = { firstDetected: detectTime, lastUsed: 0, size: 0, pinned: false }));
      if (inUse.has(image.id) || image.repoTags.some((t) => inUse.has(t)) || image.repoDigests.some((d) => inUse.has(d))) r.lastUsed = now;
      r.size = Number(image.size);
      r.pinned = image.pinned;
    }
    for (const id of [...this.records.keys()]) if (!current.has(id)) this.records.delete(id);
    return inUse;
  }

  /** Removes unused images, least recently used first, until `bytesToFree` are freed; the bytes freed. */
  private async freeSpace(bytesToFree: number, freeTime: number): Promise<number> {
    const inUse = await this.detectImages(freeTime);
    const candidates = imageGCCandidates(this.records, inUse, freeTime, this.o.policy.minAgeMs);
    let freed = 0;
    const errors: string[] = [];
    for (const { id, record } of candidates) {
      try {
        await this.o.runtime.removeImage({ image: id });
      } catch (err) {
        errors.push(errorMessage(err));
        this.o.log.warn("image GC: removing an image failed", { image: id, err });
        continue;
      }
      this.o.log.info("image GC: removed image", { image: id, bytes: record.size });
      this.records.delete(id);
      freed += record.size;
      if (freed >= bytesToFree) break;
    }
    if (errors.length)
      throw new Error(`wanted to free ${bytesToFree} bytes, but freed ${freed} bytes space with errors in image deletion: ${errors.join("; ")}`);
    return freed;
  }

  private event(e: GCEvent): void {
    // The event's reason is the message (a constant: FreeDiskSpaceFailed, ImageGCFailed, …); its text a field.
    this.o.log.warn(e.reason, { message: e.message });
    this.o.onEvent?.(e);
  }
}

/**
 * The images that may be removed at `freeTime`, in removal order (byLastUsedAndDetected): not in use,
 * not used at
 * or after freeTime (a detection at freeTime marked every image in use), not pinned, and first
 * detected at least minAge before.
 */
export function imageGCCandidates(
  records: ReadonlyMap<string, ImageRecord>,
  inUse: ReadonlySet<string>,
  freeTime: number,
  minAgeMs: number,
): { id: string; record: ImageRecord }[] {
  return [...records]
    .filter(([id, r]) => !inUse.has(id) && !r.pinned && r.lastUsed < freeTime && freeTime - r.firstDetected >= minAgeMs)
    .map(([id, record]) => ({ id, record }))
    .sort((a, b) => a.record.lastUsed - b.record.lastUsed || a.record.firstDetected - b.record.firstDetected);
}
