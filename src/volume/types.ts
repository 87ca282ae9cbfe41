// The seams of the volume manager (issue 15). Three owners meet here:
// - an ObjectSource answers for the API objects pods name (configMaps, secrets, service-account tokens):
//   the API server under --kubeconfig, the --local-objects folder, or nothing (standalone, the kubelet's rule);
// - volume plugins turn one pod volume into files (a Payload) and a place on the host (a mount);
// - the VolumeManager keeps, per pod, the volumes it needs (desired state) against the volumes made
//   (actual state), and the pod's sync waits on it before creating containers (WaitForAttachAndMount).
import type { ConfigMap, Pod, Secret, Service, Volume } from "kubernetes-types/core/v1";

/** An API object a pod names: what the messages and change notifications carry. */
export interface ObjectRef {
  kind: "ConfigMap" | "Secret" | "ServiceAccount";
  namespace: string;
  name: string;
}

/**
 * The object does not exist (the API server's 404, or absent from --local-objects). Its message is the
 * API server's, `configmap "name" not found` / `secret "name" not found`, which the kubelet passes on
 * verbatim into FailedMount and CreateContainerConfigError messages.
 */
export class ObjectNotFoundError extends Error {
  constructor(readonly ref: ObjectRef) {
    super(`${ref.kind.toLowerCase()} "${ref.name}" not found`);
    this.name = "ObjectNotFoundError";
  }
}

/** The object could not be read for another reason (forbidden, server unreachable, no source): retried. */
export class ObjectSourceError extends Error {
  constructor(
    readonly ref: ObjectRef,
    message: string,
  ) {
    super(message);
    this.name = "ObjectSourceError";
  }
}

/** What a projected serviceAccountToken source asks for (TokenRequestSpec, bound to the pod). */
export interface TokenRequest {
  serviceAccountName: string;
  /** Empty means the API server's own audiences. */
  audience: string;
  expirationSeconds: number;
}

export interface ServiceAccountToken {
  token: string;
  /** RFC 3339, as TokenRequestStatus.expirationTimestamp. */
  expirationTimestamp: string;
}

/**
 * Where the configMaps, secrets and service-account tokens of pods come from. The kubelet's
 * configmap/secret managers and token manager in one seam: a pod is registered before its volumes and
 * env are resolved and unregistered when it is gone (RegisterPod/UnregisterPod), so a source that
 * watches or caches keeps exactly what bound pods use. Implementations: the API server (src/volume),
 * --local-objects DIR, none; a fake in test/fakes.
 */
export interface ObjectSource {
  /** For messages: "the API server https://…", "--local-objects /etc/nodeagent/objects", "no object source". */
  readonly description: string;
  registerPod(pod: Pod): void;
  unregisterPod(pod: Pod): void;
  /** @throws ObjectNotFoundError, ObjectSourceError */
  getConfigMap(namespace: string, name: string): Promise<ConfigMap>;
  /** @throws ObjectNotFoundError, ObjectSourceError */
  getSecret(namespace: string, name: string): Promise<Secret>;
  /**
   * A token for the pod's service account, bound to the pod; cached, and requested anew once 80 % of
   * its lifetime has passed or it is older than 24 h (the kubelet's token manager).
   * @throws ObjectNotFoundError, ObjectSourceError
   */
  getServiceAccountToken(pod: Pod, req: TokenRequest): Promise<ServiceAccountToken>;
  /** An object some registered pod uses changed (or appeared): volumes are refreshed, waiting containers retried. */
  onChange(listener: (ref: ObjectRef) => void): () => void;
  close(): void;
}

/**
 * The services a container's service-link variables are made from (added for issue 15's service env):
 * the kubelet's serviceLister and serviceHasSynced (k/k@1.24.1 pkg/kubelet/kubelet.go NewMainKubelet).
 * With a kubeconfig, an informer over the services of every namespace (ApiServiceLister); without, the
 * kubelet's empty indexer that counts as synced (NoServiceLister); a fake in test/fakes.
 */
export interface ServiceLister {
  /** For messages: "services of the API server https://…", "no services (standalone)". */
  readonly description: string;
  /** The services have been listed at least once: until then an API pod's env cannot be made. */
  hasSynced(): boolean;
  /** Every service known, in every namespace, as last listed or watched. */
  list(): readonly Service[];
  close(): void;
}

/** One file of a volume's content: path relative to the volume's root, bytes and mode (kubelet FileProjection). */
export interface FileProjection {
  data: Uint8Array;
  mode: number;
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
   * mount), and a result outside the volume is refused (PathEscapeError). Undefined for an unknown volume.
   * (Added by i15-manager.)
   */
  mountSource(pod: Pod, volumeName: string, subPath: string): string | undefined;
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
