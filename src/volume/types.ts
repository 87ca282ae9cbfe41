// The seams of the volume manager (issue 15). The objects a volume's content comes from are read
// through src/objects' ObjectSource; here:
// - volume plugins turn one pod volume into files (a Payload) and a place on the host (a mount);
// - the VolumeManager keeps, per pod, the volumes it needs (desired state) against the volumes made
//   (actual state), and the pod's sync waits on it before creating containers (WaitForAttachAndMount).
import type { Pod, Volume } from "kubernetes-types/core/v1";

/** One file of a volume's content: path relative to the volume's root, bytes and mode (kubelet FileProjection). */
export interface FileProjection {
  data: Uint8Array;
  mode: number;
  /**
   * The owner the writer gives the file (and its top-level link): the kubelet's FsUser, set on a
   * projected serviceAccountToken when every container runs as the same user (src/volume/projected.ts).
   */
  fsUser?: number;
}

/** A volume's whole content, keyed by relative path ("key", "dir/key"). */
export type Payload = Map<string, FileProjection>;

/** A pod volume that could not be made: the pod waits, its status says FailedMount with this message. */
export class VolumeMountError extends Error {
  constructor(
    readonly volume: string,
    message: string,
    /** When the manager tries again (ms since the epoch). */
    readonly retryAt?: number,
  ) {
    super(message);
    this.name = "VolumeMountError";
  }
}

/** The seam the pod sync uses; the real one is VolumeManager (src/volume/volume-manager.ts), a fake in test/fakes. */
export interface PodVolumes {
  /**
   * Makes every volume of the pod (or checks they are made and current) and resolves when all are
   * ready, the kubelet's WaitForAttachAndMount. A volume that cannot be made rejects with a
   * VolumeMountError naming it; the pod's containers are not created.
   */
  waitForAttachAndMount(pod: Pod): Promise<void>;
  /** The host path a container mount of this volume binds, once made; undefined for an unknown volume. */
  hostPath(pod: Pod, volumeName: string): string | undefined;
  /**
   * The host path a container mount of this volume at `subPath` binds ("" for the whole volume),
   * resolved at container creation: links are followed (through `..data` to the timestamped folder of
   * an atomic-writer volume, so a later update does not reach the mount, as the kubelet's subPath bind
   * mount), and a result outside the volume is refused (PathEscapeError). A subPath not there yet is
   * made with the volume root's mode (src/volume/sub-path.ts; SubPathDirError naming the volume and
   * `container` when it cannot be). Undefined for an unknown volume.
   */
  mountSource(pod: Pod, volumeName: string, subPath: string, container?: string): string | undefined;
  /** The pod is gone: its volumes are unmounted and deleted (tmpfs included). */
  unmountPod(uid: string): Promise<void>;
}

/**
 * One kind of pod volume: the kubelet's VolumePlugin with its Mounter and Unmounter in one (added by
 * i15-manager). The VolumeManager picks the first plugin whose canSupport() is true, gives each
 * volume its folder `<podsDir>/<uid>/volumes/<name with "/" as "~">/<volume>` (the kubelet's layout,
 * e.g. kubernetes.io~configmap/cfg), and calls setUp on every pod sync for plugins whose content
 * follows objects or the pod (requiresRemount), once otherwise.
 */
export interface VolumePlugin {
  /** The kubelet's plugin name: "kubernetes.io/configmap", "kubernetes.io/secret", "kubernetes.io/empty-dir", … */
  readonly name: string;
  /** configMap, secret, downwardAPI, projected: set up again on every pod sync (the kubelet's RequiresRemount). */
  readonly requiresRemount: boolean;
  canSupport(volume: Volume): boolean;
  /**
   * Makes the volume in `dir` (creating it, mounting a tmpfs) or brings its content up to date, and
   * returns the host path containers bind (`dir`, or a hostPath's own path). Idempotent: a folder an
   * earlier run of the agent left (a restart, kill -9) is adopted, never mounted twice.
   * @throws Error whose message is the FailedMount suffix: `configmap "y" not found`.
   */
  setUp(pod: Pod, volume: Volume, dir: string): Promise<string>;
  /**
   * Removes `dir`. The manager has unmounted every mount below the pod's volumes folder first (a
   * tmpfs included), so this finds its mount gone. Also called for folders found on disk after a
   * restart, of pods that are gone, whose spec is no longer known.
   */
  tearDown(dir: string): Promise<void>;
}

/** The host's mount table as the volume manager needs it (added by i15-manager; real one src/volume/mount-table.ts). */
export interface MountTable {
  /** Mount points at `dir` or below it (from /proc/self/mountinfo), deepest first. */
  mountPointsUnder(dir: string): string[];
  unmount(path: string): Promise<void>;
}
