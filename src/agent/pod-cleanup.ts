// What a pod leaves behind, removed: an instance a start replaces (its logs first), and everything of a
// pod gone for good (containers, sandboxes, volumes, its folder, cgroup and log folders); and the pod
// cgroups' housekeeping. A UID from runtime labels never leads a removal out of its root.
import { readdirSync } from "node:fs";
import { flatPodCgroups, type PodCgroups } from "../cm";
import type { ContainerStatus } from "../cri";
import { podUIDFromLogsDirectory } from "../gc";
import { cleanContainerLogs } from "../logs";
import type { PodStatus } from "../pleg";
import { confinedPath, type Logger, PathEscapeError, removeInside } from "../util";
import type { PodVolumes } from "../volume";
import { podDir, type RuntimeConfigOptions } from "./runtime-config";
import { ignoreNotFound, type SyncRuntime } from "./sync-runtime";

export interface PodCleanupDeps {
  runtime: SyncRuntime;
  log: Logger;
  opts: RuntimeConfigOptions;
  volumes: PodVolumes;
}

export class PodCleanup {
  constructor(private readonly d: PodCleanupDeps) {}

  /** The pods' cgroups: the node's container manager (src/cm), else the flat layout under --cgroup-root. */
  get cgroups(): PodCgroups {
    return this.d.opts.podCgroups ?? (this.flatCgroups ??= flatPodCgroups(this.d.opts.cgroupRoot));
  }

  private flatCgroups: PodCgroups | undefined;

  /**
   * The kubelet's removeContainer for an instance a start replaces: its log files first (a later
   * instance may take the same <restart>.log name), then the container.
   */
  async removeContainer(c: ContainerStatus): Promise<void> {
    if (c.logPath) {
      try {
        cleanContainerLogs(this.d.opts.podLogsRoot, c.logPath);
      } catch (err) {
        if (!(err instanceof PathEscapeError)) throw err;
        this.d.log.warn("the logs of a container are left alone", { id: c.id.slice(0, 12), err });
      }
    }
    await ignoreNotFound(this.d.runtime.removeContainer(c.id));
  }

  /** After a pod is gone for good: remove its containers, sandboxes, volumes and pod cgroup. */
  async removePod(uid: string, status: PodStatus | undefined): Promise<void> {
    for (const c of status?.containerStatuses ?? []) await ignoreNotFound(this.d.runtime.removeContainer(c.id));
    for (const s of status?.sandboxStatuses ?? []) {
      await ignoreNotFound(this.d.runtime.stopPodSandbox(s.id));
      await ignoreNotFound(this.d.runtime.removePodSandbox(s.id));
    }
    // Volumes first (tmpfs unmounted): the folder below is removed recursively only once nothing is
    // mounted in it. A failure throws, and the worker retries the removal.
    await this.d.volumes.unmountPod(uid);
    // The UID may come from runtime labels that any CRI client wrote (an orphan): one that cannot
    // name a folder, or whose folder leads out of the root, leaves the disk alone; the runtime
    // objects above are gone either way.
    try {
      const dir = podDir(uid, this.d.opts);
      removeInside(this.d.opts.podsDir, dir);
      this.cgroups.remove(uid);
      this.removePodLogDirs(uid);
    } catch (err) {
      if (!(err instanceof PathEscapeError)) throw err;
      this.d.log.warn("a pod's folders and cgroup are left alone", { uid, err });
    }
  }

  /**
   * Housekeeping of the pods' cgroups (once every source has been seen): those of pods none of
   * `known` is are removed, and the QoS shares follow the pods.
   */
  cgroupHousekeeping(known: ReadonlySet<string>): void {
    try {
      this.cgroups.housekeeping(known);
    } catch (err) {
      this.d.log.warn("cgroups: removing the cgroups of pods that are gone failed", { err });
    }
  }

  /**
   * The pod's log folders, <pod-logs-dir>/<ns>_<name>_<uid> (one per name the UID was seen under),
   * removed with the pod. The kubelet leaves them to container GC (evictPodLogsDirectories, up to a
   * minute later, which also sweeps what an agent that was down left behind); removing them here is
   * the same end, at once. Only folders whose name ends in _<uid> inside the root are touched.
   */
  private removePodLogDirs(uid: string): void {
    const root = this.d.opts.podLogsRoot;
    let names: string[];
    try {
      names = readdirSync(root);
    } catch {
      return;
    }
    for (const name of names) if (name.endsWith(`_${uid}`) && podUIDFromLogsDirectory(name) === uid) removeInside(root, confinedPath(root, name));
  }
}
