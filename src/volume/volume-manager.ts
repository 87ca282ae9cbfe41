// VolumeManager: the kubelet's volume manager (pkg/kubelet/volumemanager, k/k 1.24): for each pod
// that should run, the volumes it needs (the desired state of the world), against the volumes made
// (the actual state of the world), and the reconciler that makes, refreshes and removes them. The pod
// sync waits on it (waitForAttachAndMount) before it creates the sandbox and containers.
//
// The state of one volume of one pod (key: pod UID + volume name):
//
//   desired ──setUp ok──▶ mounted(generation 1) ──setUp ok (requiresRemount, each pod sync)──▶ mounted(n+1)
//   desired ──setUp failed──▶ failed(retryAt) ──retryAt passed or its object changed, next sync──▶ setUp again
//   mounted ──setUp failed (a refresh)──▶ still mounted, last content kept, retried with the backoff
//   any ──unmountPod (the pod is gone)──▶ torn down (tmpfs unmounted, folder removed) ──▶ (forgotten)
//
// - Desired state: a pod enters it with its first waitForAttachAndMount (the sync runs only for pods
//   that should run, as the kubelet's populator adds only those) and leaves it with unmountPod (the
//   pod's removal, the kubelet's cleanup path).
// - Reconciling happens inside waitForAttachAndMount, per pod, one at a time for a UID, rather than
//   in a 100 ms loop beside it: the kubelet's WaitForAttachAndMount calls ReprocessPod and polls the
//   reconciler for up to 2m3s, holding the pod worker; here a volume that cannot be made fails the
//   wait at once with a VolumeMountError whose retryAt is its backoff's end, and the pod worker's own
//   queue syncs the pod again then. The pod stays Pending and its status says why meanwhile.
// - Backoff: the kubelet's operation executor's exponential backoff per volume: 500 ms, doubling, at
//   most 2m2s (exponentialbackoff.go initialDurationBeforeRetry / maxDurationBeforeRetry). An object
//   that appears or changes (ObjectSource.onChange → objectChanged) ends the wait of the volumes that
//   use it, and the sync loop resyncs their pods, so a pod starts as soon as its configMap exists.
// - Refresh: configMap, secret, downwardAPI and projected plugins (requiresRemount) are set up again
//   on every sync of the pod (ReprocessPod), so a changed object reaches the files within the sync
//   period (syncFrequency, 1 min) or at once on onChange. A refresh that fails keeps the last content
//   and does not stop the pod (the kubelet keeps the volume mounted and only reports FailedMount).
//   Because refreshes run only inside the pod's own sync, never concurrently with its container
//   creation, a subPath resolved by mountSource stays in place until the runtime has bound it.
// - After a restart (kill -9) memory is empty: the folders of pods that still exist are adopted by
//   their first sync (setUp is idempotent: content rewritten only when it differs, a tmpfs never
//   mounted twice); those of pods that are gone are found by cleanupOrphans (housekeeping), which
//   unmounts and removes them.
import { existsSync, readdirSync, realpathSync } from "node:fs";
import { join } from "node:path";
import type { Pod, Volume } from "kubernetes-types/core/v1";
import { podKey, podRef, podVolumesDir } from "../api";
import { podUIDProblem } from "../manifest";
import { assertInside, type Clock, confinedPath, errorMessage, type Logger, removeInside } from "../util";
import { type ObjectRef, type ObjectSource, refKey, volumeObjectRefs } from "../objects";
import { SubPathDirError, safeMakeSubPath } from "./sub-path";
import { VolumeMountError, type MountTable, type PodVolumes, type VolumePlugin } from "./types";

/** The operation executor's backoff for a failed mount (k/k pkg/util/goroutinemap/exponentialbackoff). */
export const MOUNT_RETRY_INITIAL_MS = 500;
export const MOUNT_RETRY_MAX_MS = 2 * 60_000 + 2_000;

export interface VolumeManagerOptions {
  /** <rootDir>/pods: each pod's volumes are under <podsDir>/<uid>/volumes. */
  podsDir: string;
  /** Tried in order; the first whose canSupport() is true makes the volume. */
  plugins: readonly VolumePlugin[];
  /** Pods are registered with it while they should run (the kubelet's RegisterPod / UnregisterPod). */
  objects: ObjectSource;
  mounts: MountTable;
  clock: Clock;
  log: Logger;
}

interface DesiredVolume {
  volume: Volume;
  plugin: VolumePlugin | undefined;
  /** <podsDir>/<uid>/volumes/<plugin~name>/<volume>; undefined when the names cannot make a folder. */
  dir: string | undefined;
}

interface DesiredPod {
  pod: Pod;
  volumes: Map<string, DesiredVolume>;
}

interface MountedVolume {
  plugin: VolumePlugin;
  dir: string;
  /** What containers bind. */
  hostPath: string;
  /** How many set-ups have succeeded (1 after the first mount; each refresh adds one). */
  generation: number;
}

interface FailedVolume {
  failures: number;
  retryAt: number;
  message: string;
}

/** The kubelet's folder name of a plugin: "kubernetes.io/configmap" → "kubernetes.io~configmap". */
export function pluginDirName(plugin: VolumePlugin): string {
  return plugin.name.replaceAll("/", "~");
}

/** The volume's source kind as the API names it (persistentVolumeClaim, nfs, …), for messages. */
function volumeKind(v: Volume): string {
  return Object.keys(v).find((k) => k !== "name") ?? "(no source)";
}

export class VolumeManager implements PodVolumes {
  private readonly desired = new Map<string, DesiredPod>();
  private readonly actual = new Map<string, Map<string, MountedVolume>>();
  private readonly failed = new Map<string, FailedVolume>();
  /** The operation in flight per pod UID: set-ups and tear-downs of one pod never overlap. */
  private readonly busy = new Map<string, Promise<unknown>>();
  private cleaning = false;

  constructor(private readonly o: VolumeManagerOptions) {}

  async waitForAttachAndMount(pod: Pod): Promise<void> {
    const uid = podRef(pod).uid;
    this.o.objects.registerPod(pod);
    if (!pod.spec?.volumes?.length) {
      this.desired.set(uid, { pod, volumes: new Map() });
      return;
    }
    await this.serial(uid, () => this.reconcilePod(pod));
  }

  hostPath(pod: Pod, volumeName: string): string | undefined {
    return this.actual.get(podRef(pod).uid)?.get(volumeName)?.hostPath;
  }

  /**
   * The kubelet bind-mounts a subPath at container creation (volume-subpaths), after resolving its
   * links and checking the result is inside the volume (the fix of CVE-2017-1002101), and never
   * updates it. Here the runtime binds what this returns: the real path, so that for an atomic-writer
   * volume (`key` → `..data/key` → `..2026_…/key`) the mount is of the timestamped folder's file, and a
   * later update (a new timestamped folder, `..data` swapped) does not reach it. A bind mount of the
   * lexical path would also resolve the links, but only when the runtime mounts (containerd resolves
   * at CreateContainer, runc binds at StartContainer); resolving here fixes the moment, and checks the
   * result stays inside the volume. The timestamped folder outlives the container's start because a
   * refresh runs only in the pod's next sync (see above); once bound, the mount holds the file even
   * after the atomic writer removes the folder. Copying the file instead would put a secret's bytes
   * outside its tmpfs. One difference: a restarted container resolves again and sees the content of
   * that moment, where the kubelet reuses its first bind of the subPath while it is mounted.
   */
  mountSource(pod: Pod, volumeName: string, subPath: string, container = ""): string | undefined {
    const root = this.hostPath(pod, volumeName);
    if (root === undefined) return undefined;
    // Validation allows no ".." in a subPath; "a/./b" and "a//b" are fine and normalised here.
    const segments = subPath.split("/").filter((s) => s !== "" && s !== ".");
    if (segments.length === 0) return root;
    const lexical = confinedPath(root, ...segments);
    assertInside(root, lexical);
    if (existsSync(lexical)) return realpathSync(lexical);
    // Not there yet: made now with the volume root's mode (sub-path.ts), as the kubelet's makeMounts
    // does, so that an fsGroup's group-writable root gives a group-writable subPath. The kubelet's
    // message keeps the host's details out of the pod's status; the log has them.
    try {
      return safeMakeSubPath(root, segments);
    } catch (err) {
      this.o.log.warn("failed to create subPath directory for volumeMount", { pod: podKey(pod), volume: volumeName, container, subPath, err });
      throw new SubPathDirError(`failed to create subPath directory for volumeMount "${volumeName}" of container "${container}"`);
    }
  }

  async unmountPod(uid: string): Promise<void> {
    await this.serial(uid, () => this.tearDownPod(uid));
  }

  /**
   * An object changed or appeared: the volumes that use it are retried at the pod's next sync rather
   * than at their backoff's end. The pods whose volumes use it (the caller also resyncs those whose env uses it).
   */
  objectChanged(ref: ObjectRef): string[] {
    const key = refKey(ref);
    const uids: string[] = [];
    for (const [uid, d] of this.desired) {
      let uses = false;
      for (const [name, v] of d.volumes) {
        if (!volumeObjectRefs(d.pod, v.volume).some((r) => refKey(r) === key)) continue;
        uses = true;
        const f = this.failed.get(`${uid}/${name}`);
        if (f) f.retryAt = 0;
      }
      if (uses) uids.push(uid);
    }
    return uids;
  }

  /** The generation of a volume's content (how many set-ups succeeded), or undefined when not mounted. */
  generation(uid: string, volumeName: string): number | undefined {
    return this.actual.get(uid)?.get(volumeName)?.generation;
  }

  /**
   * Housekeeping: the folders under <podsDir> of pods the agent does not know (gone while the agent
   * was down, or left by a removal that failed half way or that a late set-up undid) are unmounted and
   * removed. The kubelet's cleanupOrphanedPodDirs with the reconciler's reconstruction of what it had
   * mounted. `isKnown` says whether a pod of that UID exists (the agent's pod workers and the runtime's
   * pods); it is asked again just before the teardown, which runs after any set-up of that UID in flight.
   * Whether this manager still has volumes of a UID does not count: a set-up that finished after the
   * pod's removal (a sync racing the removal) left such an entry, and skipping those kept their tmpfs
   * mounted for good. Candidates are the folders under <podsDir> and the mounts below it (the mount
   * table: /proc/self/mountinfo); each mount unmounted here is logged. One run at a time; a pod whose
   * mounts cannot all be unmounted is left for the next run.
   */
  async cleanupOrphans(isKnown: (uid: string) => boolean): Promise<void> {
    if (this.cleaning) return;
    this.cleaning = true;
    try {
      const uids = new Set<string>();
      try {
        for (const e of readdirSync(this.o.podsDir)) uids.add(e);
      } catch {
        /* no pods folder yet: only mounts can name pods */
      }
      for (const m of this.o.mounts.mountPointsUnder(this.o.podsDir)) {
        const first = m.slice(this.o.podsDir.length + 1).split("/")[0];
        if (first) uids.add(first);
      }
      for (const uid of uids) {
        if (isKnown(uid) || this.busy.has(uid) || podUIDProblem(uid)) continue;
        await this.serial(uid, async () => {
          // Asked again inside: a pod of that UID may have come meanwhile.
          if (isKnown(uid)) return;
          this.o.log.info("no pod of that UID exists any more; unmounting and removing its volumes and folder", { uid });
          await this.tearDownPod(uid, { logUnmounts: true });
          const dir = join(this.o.podsDir, uid);
          // Mounts outside volumes/ (a subPath's bind, anything mounted into the folder): never removed through.
          await this.unmountAll(uid, dir, true);
          removeInside(this.o.podsDir, dir);
        }).catch((err) => this.o.log.warn("cleaning up the folder of a gone pod failed", { uid, err }));
      }
    } finally {
      this.cleaning = false;
    }
  }

  /**
   * Every mount at or below `dir`, deepest first; throws when one is still there afterwards. With
   * `log`, each one unmounted is said in the log (a mount a removal missed: what issue 24 found
   * under kube-api-access volumes).
   */
  private async unmountAll(uid: string, dir: string, log: boolean): Promise<void> {
    const problems: string[] = [];
    for (const m of this.o.mounts.mountPointsUnder(dir)) {
      try {
        await this.o.mounts.unmount(m);
        if (log) this.o.log.info("unmounted a mount still there after its pod was gone", { uid, path: m });
      } catch (err) {
        problems.push(errorMessage(err));
      }
    }
    const left = this.o.mounts.mountPointsUnder(dir);
    if (left.length)
      throw new Error(`pod ${uid}: still mounted, its volumes are kept: ${left.join(", ")}${problems.length ? ` (${problems.join("; ")})` : ""}`);
  }

  // ---------------------------------------------------------------------------------------------

  private serial<T>(uid: string, fn: () => Promise<T>): Promise<T> {
    const before = this.busy.get(uid) ?? Promise.resolve();
    const run = before.then(fn, fn);
    const tail = run.catch(() => undefined);
    this.busy.set(uid, tail);
    void tail.then(() => {
      if (this.busy.get(uid) === tail) this.busy.delete(uid);
    });
    return run;
  }

  /** The desired state of the world for the pod, from its newest spec (the kubelet's populator). */
  private populate(pod: Pod): DesiredPod {
    const uid = podRef(pod).uid;
    const volumes = new Map<string, DesiredVolume>();
    for (const v of pod.spec?.volumes ?? []) {
      const plugin = this.o.plugins.find((p) => p.canSupport(v));
      let dir: string | undefined;
      try {
        // The same folders set-up.ts makes (src/api/pod-dirs.ts): <podsDir>/<uid>/volumes/<plugin~name>/<volume>.
        dir = plugin ? confinedPath(podVolumesDir(this.o.podsDir, uid), pluginDirName(plugin), v.name) : undefined;
      } catch {
        dir = undefined;
      }
      volumes.set(v.name, { volume: v, plugin, dir });
    }
    const d = { pod, volumes };
    this.desired.set(uid, d);
    return d;
  }

  /** One reconciliation of the pod's volumes: mount what is missing, refresh what follows objects. */
  private async reconcilePod(pod: Pod): Promise<void> {
    const uid = podRef(pod).uid;
    const desired = this.populate(pod);
    let mounted = this.actual.get(uid);
    if (!mounted) this.actual.set(uid, (mounted = new Map()));
    const unmounted: string[] = [];
    const errors: string[] = [];
    let retryAt = Number.POSITIVE_INFINITY;
    for (const [name, d] of desired.volumes) {
      const have = mounted.get(name);
      if (have && !have.plugin.requiresRemount) continue;
      const key = `${uid}/${name}`;
      const failed = this.failed.get(key);
      if (failed && this.o.clock.now() < failed.retryAt) {
        if (!have) {
          unmounted.push(name);
          errors.push(failed.message);
          retryAt = Math.min(retryAt, failed.retryAt);
        }
        continue;
      }
      try {
        if (!d.plugin) throw new Error(`no volume plugin matched: the agent cannot make ${volumeKind(d.volume)} volumes`);
        if (!d.dir) throw new Error(`the volume's name or the pod's UID cannot name a folder under ${this.o.podsDir}`);
        // Links resolved: a pod folder planted as a link out of the root makes nothing outside it.
        assertInside(this.o.podsDir, d.dir);
        const hostPath = await d.plugin.setUp(pod, d.volume, d.dir);
        mounted.set(name, { plugin: d.plugin, dir: d.dir, hostPath, generation: (have?.generation ?? 0) + 1 });
        if (failed) this.o.log.info(have ? "volume is up to date again" : "volume is mounted again", { pod: podKey(pod), volume: name });
        this.failed.delete(key);
      } catch (err) {
        // operation_generator's "MountVolume.SetUp failed for volume %q" + " : " + the plugin's error.
        const message = `MountVolume.SetUp failed for volume "${name}" : ${errorMessage(err)}`;
        const failures = (failed?.failures ?? 0) + 1;
        const at = this.o.clock.now() + Math.min(MOUNT_RETRY_INITIAL_MS * 2 ** (failures - 1), MOUNT_RETRY_MAX_MS);
        this.failed.set(key, { failures, retryAt: at, message });
        // After a restart the first set-up of a volume whose folder an earlier run filled (an
        // atomic-writer `..data`) adopts that content when the object cannot be read now, as the
        // kubelet's reconstruction of its actual state does: a running pod is not held back.
        if (!have && d.plugin && d.dir && existsSync(join(d.dir, "..data"))) {
          mounted.set(name, { plugin: d.plugin, dir: d.dir, hostPath: d.dir, generation: 0 });
          this.o.log.warn("MountVolume.SetUp failed; keeping the content an earlier run of the agent made", { pod: podKey(pod), volume: name, err });
          continue;
        }
        if (message !== failed?.message)
          this.o.log.warn(have ? "MountVolume.SetUp failed (the volume keeps its last content)" : "MountVolume.SetUp failed", {
            pod: podKey(pod),
            volume: name,
            err,
          });
        if (have) continue;
        unmounted.push(name);
        errors.push(message);
        retryAt = Math.min(retryAt, at);
      }
    }
    if (unmounted.length === 0) return;
    // The kubelet's FailedMount event text: "Unable to attach or mount volumes: " + WaitForAttachAndMount's
    // "unmounted volumes=%v, unattached volumes=%v: %s". Its trailing part is the wait's own error
    // ("timed out waiting for the condition" after 2m3s); the agent does not wait, so it carries the
    // volumes' own errors instead, which the kubelet reports as separate events. No plugin here attaches:
    // a volume counts as unattached until it has been set up once, as the kubelet's list of volumes
    // missing from its actual state.
    const unattached = [...desired.volumes.keys()].filter((n) => !mounted.has(n));
    throw new VolumeMountError(
      unmounted[0]!,
      `Unable to attach or mount volumes: unmounted volumes=[${unmounted.join(" ")}], unattached volumes=[${unattached.join(" ")}]: ${errors.join("; ")}`,
      retryAt,
    );
  }

  /**
   * Tears down every volume of the pod: those this run mounted, and those found on disk (a run before
   * a restart). Every mount below the volumes folder is unmounted first; only when none is left do
   * the plugins tear their folders down and the folder go, so that a recursive removal never reaches
   * into a mount.
   */
  private async tearDownPod(uid: string, o: { logUnmounts?: boolean } = {}): Promise<void> {
    const d = this.desired.get(uid);
    this.desired.delete(uid);
    if (d) this.o.objects.unregisterPod(d.pod);
    const mounted = this.actual.get(uid);
    this.actual.delete(uid);
    for (const key of [...this.failed.keys()]) if (key.startsWith(`${uid}/`)) this.failed.delete(key);
    if (podUIDProblem(uid)) return;
    const root = podVolumesDir(this.o.podsDir, uid);
    try {
      assertInside(this.o.podsDir, root);
    } catch (err) {
      // A pod folder that is a link out of the root holds none of the agent's volumes: left alone
      // (the caller removes the link itself).
      this.o.log.warn("a pod's volumes are left alone", { uid, err });
      return;
    }
    const dirs = new Map<string, VolumePlugin | undefined>();
    for (const m of mounted?.values() ?? []) dirs.set(m.dir, m.plugin);
    for (const pluginDir of existsSync(root) ? readdirSync(root) : []) {
      const plugin = this.o.plugins.find((p) => pluginDirName(p) === pluginDir);
      let names: string[] = [];
      try {
        names = readdirSync(join(root, pluginDir));
      } catch {
        continue;
      }
      for (const n of names) if (!dirs.has(join(root, pluginDir, n))) dirs.set(join(root, pluginDir, n), plugin);
    }
    // Mounts first, deepest first: a plugin's tearDown or the removal below may remove recursively,
    // and must never reach into a mount (a tmpfs still holding a secret, or a mount someone else made).
    await this.unmountAll(uid, root, o.logUnmounts ?? false);
    const problems: string[] = [];
    for (const [dir, plugin] of dirs) {
      if (!plugin) continue;
      try {
        await plugin.tearDown(dir);
      } catch (err) {
        problems.push(`UnmountVolume.TearDown failed for ${dir}: ${errorMessage(err)}`);
      }
    }
    removeInside(this.o.podsDir, root);
    if (problems.length) this.o.log.warn("tearing down a pod's volumes had problems", { uid, problems });
  }
}
