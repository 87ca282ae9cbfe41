// ContainerManager: the node's cgroup hierarchy (the kubelet's containerManagerImpl, k/k@1.24.1
// pkg/kubelet/cm/container_manager_linux.go, its cgroup part). With --cgroups-per-qos (the default):
//
//   <cgroup-root>/kubepods                  node allocatable: capacity, or capacity − reserved
//                 ├── pod<uid>              Guaranteed pods
//                 ├── burstable/pod<uid>    burstable shares = Σ Burstable pods' cpu requests
//                 └── besteffort/pod<uid>   besteffort shares = 2
//
// each name in the --cgroup-driver's spelling (cgroupfs paths, or systemd slices). start() makes
// kubepods and the QoS cgroups before any pod starts (setupNode); a pod's sync makes its cgroup with
// the pod's values before its sandbox (ensure: the kubelet's syncPod → UpdateQOSCgroups +
// EnsureExists) and the sandbox's cgroup_parent is that cgroup; when the pod is gone its cgroup is
// removed (remove) and the QoS shares follow. Without --cgroups-per-qos every pod gets
// <cgroup-root>/pod<uid> as its parent and nothing is set at pod level (nodeagent's flat layout,
// where the kubelet would put the sandboxes straight into cgroup-root).
import type { Pod } from "kubernetes-types/core/v1";
import { existsSync } from "node:fs";
import { podRef } from "../api";
import { type Clock, ConfigError, errorMessage, type LogFields, RealClock } from "../util";
import { childName, parseCgroupfsName, toCgroupfs, type CgroupName } from "./cgroup-name";
import { CgroupBusyError, FsCgroupManager, type CgroupManager } from "./cgroup-manager";
import type { NodeEventRecorder } from "../events";
import { enforceReservedCgroups, nodeAllocatableConfig, type NodeAllocatableOptions } from "./node-allocatable";
import { PodContainerManager, podCgroupSuffix } from "./pod-container-manager";
import { QosContainerManager } from "./qos-container-manager";
import type { ResourceConfig } from "./resource-config";

/** What a pod's sync needs of the container manager. */
export interface PodCgroups {
  /** The pod's cgroup in the driver's spelling: the sandbox's cgroup_parent. */
  parent(pod: Pod): string;
  /** Before the sandbox (and on every sync of a pod that runs): the pod's cgroup exists with its values. Throws why not. */
  ensure(pod: Pod): void;
  /** After the pod is gone: its cgroup is removed, wherever it could be. */
  remove(uid: string): void;
  /**
   * An in-place resize of a running pod (the kubelet's SetPodCgroupConfig): the values given, and only
   * those, are written to the pod's cgroup; the QoS shares follow. Nothing in the flat layout. Throws why not.
   */
  resize(pod: Pod, config: ResourceConfig): void;
  /**
   * Housekeeping: the pod cgroups of pods none of `known` is are removed (cleanupOrphanedPodCgroups)
   * and the QoS shares follow the active pods (the kubelet's periodic UpdateCgroups).
   */
  housekeeping(known: ReadonlySet<string>): void;
}

/** What the container manager logs through (the node's Logger). */
export interface CgroupLog {
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
}

/** defaultNodeAllocatableCgroupName. */
export const NODE_ALLOCATABLE_CGROUP = "kubepods";

/** Where systemd says it is the init system (sd_booted; runc's IsRunningSystemd). */
export const SYSTEMD_RUNNING_MARKER = "/run/systemd/system";

export interface ContainerManagerOptions {
  /** --cgroup-root, in cgroupfs form ("/nodeagent"), as the kubelet reads it whatever the driver. */
  cgroupRoot: string;
  /** --cgroups-per-qos. */
  cgroupsPerQOS: boolean;
  allocatable: NodeAllocatableOptions;
  cgroups: CgroupManager;
  /** The pods the node runs now (the agent's activePods): the burstable shares are summed from them. */
  activePods: () => Pod[];
  log: CgroupLog;
  /** Whether systemd is the init system; /run/systemd/system exists by default. */
  systemdRunning?: () => boolean;
  /** The node's events (NodeAllocatableEnforced, FailedNodeAllocatableEnforcement); none by default. */
  events?: NodeEventRecorder;
  /** When an orphan that could not go is tried again; the real clock by default. */
  clock?: Clock;
}

/** An orphan pod cgroup that could not be removed is tried again after 2 s, doubling, at most every 2 min. */
export const ORPHAN_RETRY_INITIAL_MS = 2_000;
export const ORPHAN_RETRY_MAX_MS = 120_000;

/** An orphan pod cgroup the housekeeping has reported and not yet removed. */
interface OrphanCgroup {
  failures: number;
  retryAt: number;
}

/** The flat layout's parent, <cgroup-root>/pod<uid> (cgroupfs), for a caller without a container manager. */
export function flatPodCgroupParent(cgroupRoot: string, uid: string): string {
  return toCgroupfs(childName(parseCgroupfsName(cgroupRoot), podCgroupSuffix(uid)));
}

/**
 * The flat layout on its own (no --cgroups-per-qos): <cgroup-root>/pod<uid> as the parent, nothing
 * made, the folder removed when the pod goes. What a pod sync uses when no container manager is given.
 */
export function flatPodCgroups(cgroupRoot: string, cgroups: CgroupManager = new FsCgroupManager("cgroupfs")): PodCgroups {
  const none = { milliCpu: 0, memoryBytes: 0 };
  return new ContainerManager({
    cgroupRoot,
    cgroupsPerQOS: false,
    cgroups,
    activePods: () => [],
    log: NO_LOG,
    allocatable: { capacity: none, kubeReserved: {}, systemReserved: {}, enforce: [] },
  });
}

/** The flat layout logs nothing. */
const NO_LOG: CgroupLog = { info() {}, warn() {} };

export class ContainerManager implements PodCgroups {
  private readonly root: CgroupName;
  /** kubepods, with --cgroups-per-qos. */
  readonly nodeAllocatable: CgroupName | undefined;
  private readonly qos: QosContainerManager | undefined;
  private readonly pods: PodContainerManager | undefined;
  /** The kubepods values could not be set at start: tried again at each QoS update. */
  private allocatablePending = false;
  /** Orphan pod cgroups reported and still there, by driver-spelled name: each is logged once, retried with backoff. */
  private readonly orphanCgroups = new Map<string, OrphanCgroup>();
  private readonly clock: Clock;

  constructor(private readonly o: ContainerManagerOptions) {
    this.root = parseCgroupfsName(o.cgroupRoot);
    this.clock = o.clock ?? new RealClock();
    if (o.cgroupsPerQOS) {
      this.nodeAllocatable = childName(this.root, NODE_ALLOCATABLE_CGROUP);
      this.qos = new QosContainerManager(o.cgroups, this.nodeAllocatable, o.activePods);
      this.pods = new PodContainerManager(o.cgroups, this.qos.info);
    }
  }

  /** The cgroup all pods run under, in the driver's spelling (the "pods" system container of the stats). */
  get podsCgroup(): string {
    return this.o.cgroups.name(this.nodeAllocatable ?? this.root);
  }

  /**
   * setupNode: the systemd driver needs systemd; kubepods gets its limits and the reserved cgroups
   * theirs; the QoS cgroups are made. Throws (the node does not start) when any of it fails.
   */
  start(): void {
    const { cgroups, log } = this.o;
    if (cgroups.driver === "systemd" && !(this.o.systemdRunning ?? (() => existsSync(SYSTEMD_RUNNING_MARKER)))()) {
      throw new ConfigError(
        `--cgroup-driver=systemd: systemd is not the init system here (${SYSTEMD_RUNNING_MARKER} does not exist). The systemd driver's cgroups are systemd slices, which the runtime (runc with SystemdCgroup = true) asks systemd for over D-Bus; use --cgroup-driver=cgroupfs with a runtime configured for cgroupfs`,
      );
    }
    if (!this.nodeAllocatable || !this.qos) return;
    const config = nodeAllocatableConfig(this.o.allocatable);
    if (!cgroups.exists(this.nodeAllocatable)) {
      cgroups.create(this.nodeAllocatable, config);
      this.o.events?.("Normal", "NodeAllocatableEnforced", "Updated Node Allocatable limit across pods");
    } else {
      this.applyAllocatable(true);
    }
    for (const done of enforceReservedCgroups(this.o.allocatable, cgroups, cgroups.driver)) log.info("Updated limits on reserved cgroup", done);
    this.qos.start();
    log.info("cgroups: pods and QoS cgroups in place", {
      pods: this.podsCgroup,
      driver: cgroups.driver,
      burstable: this.o.cgroups.name(this.qos.info.Burstable),
      besteffort: this.o.cgroups.name(this.qos.info.BestEffort),
    });
  }

  /**
   * kubepods' limits on a cgroup that exists. Lowering the memory limit below what the pods use
   * fails until they use less: the kubelet retries every minute with a FailedNodeAllocatableEnforcement
   * event; the agent logs it and retries at the next QoS update.
   */
  private applyAllocatable(atStart = false): void {
    try {
      this.o.cgroups.update(this.nodeAllocatable!, nodeAllocatableConfig(this.o.allocatable));
      if (this.allocatablePending) this.o.log.info("NodeAllocatableEnforced: Updated Node Allocatable limit across pods");
      if (this.allocatablePending || atStart) this.o.events?.("Normal", "NodeAllocatableEnforced", "Updated Node Allocatable limit across pods");
      this.allocatablePending = false;
    } catch (err) {
      const message = `Failed to update Node Allocatable Limits "${this.podsCgroup}": ${errorMessage(err)}`;
      if (!this.allocatablePending) {
        this.o.log.warn("FailedNodeAllocatableEnforcement: Failed to update Node Allocatable Limits", { cgroup: this.podsCgroup, err });
        this.o.events?.("Warning", "FailedNodeAllocatableEnforcement", message);
      }
      this.allocatablePending = true;
    }
  }

  private updateQos(): void {
    if (this.allocatablePending) this.applyAllocatable();
    this.qos?.update();
  }

  resize(pod: Pod, config: ResourceConfig): void {
    if (!this.pods) return;
    this.pods.update(pod, config);
    try {
      this.updateQos();
    } catch (err) {
      this.o.log.warn("cgroups: updating the QoS cgroups after a resize failed", { err });
    }
  }

  parent(pod: Pod): string {
    return this.o.cgroups.name(this.pods ? this.pods.name(pod) : childName(this.root, podCgroupSuffix(podRef(pod).uid)));
  }

  ensure(pod: Pod): void {
    if (!this.pods || this.pods.exists(pod)) return;
    // As the kubelet's syncPod: the QoS shares first, with the new pod counted; a failure there is
    // logged and the pod's own cgroup is still made.
    try {
      this.updateQos();
    } catch (err) {
      this.o.log.warn("cgroups: failed to update QoS cgroups while syncing pod", { uid: podRef(pod).uid, err });
    }
    try {
      this.pods.ensureExists(pod);
    } catch (err) {
      throw new Error(`failed to ensure that the pod: ${podRef(pod).uid} cgroups exist and are correctly applied: ${errorMessage(err)}`);
    }
  }

  /**
   * The kubelet's cleanupOrphanedPodCgroups, once every source has been seen: a pod cgroup whose pod
   * nothing knows is removed, bottom-up with whatever sub-cgroups the runtime left (the kubelet's
   * podContainerManager Destroy), then the QoS shares are refreshed when they changed. Each orphan is
   * reported once when found. One that still holds processes anywhere in its subtree is not touched
   * (the kubelet kills them first, tryKillingCgroupProcesses; the agent leaves them to whoever started
   * them), and one that rmdir refuses stays too: both are tried again with an exponential backoff
   * (ORPHAN_RETRY_*), said once in the log when first refused and once when finally removed.
   */
  housekeeping(known: ReadonlySet<string>): void {
    if (!this.pods) return;
    const { cgroups, log } = this.o;
    const now = this.clock.now();
    const present = new Set<string>();
    for (const name of this.pods.orphans(known)) {
      const key = cgroups.name(name);
      present.add(key);
      let orphan = this.orphanCgroups.get(key);
      if (!orphan) {
        log.info("cgroups: removing the cgroup of a pod that is gone", { cgroup: key });
        this.orphanCgroups.set(key, (orphan = { failures: 0, retryAt: now }));
      }
      if (now < orphan.retryAt) continue;
      let reason: string | undefined;
      try {
        const processes = cgroups.processes(name);
        if (processes > 0) reason = `${processes} process(es) left in it or below it`;
        else cgroups.destroy(name);
      } catch (err) {
        reason = errorMessage(err);
      }
      if (reason === undefined) {
        if (orphan.failures > 0) log.info("cgroups: removed the cgroup of a pod that is gone", { cgroup: key, attempts: orphan.failures + 1 });
        this.orphanCgroups.delete(key);
        continue;
      }
      orphan.failures++;
      orphan.retryAt = now + Math.min(ORPHAN_RETRY_INITIAL_MS * 2 ** (orphan.failures - 1), ORPHAN_RETRY_MAX_MS);
      if (orphan.failures === 1)
        log.warn("cgroups: cgroup of a gone pod cannot be removed yet; retrying with backoff", {
          cgroup: key,
          reason,
          maxInterval: `${ORPHAN_RETRY_MAX_MS / 1000}s`,
        });
    }
    // Gone by other means (the pod's own removal, or someone else): forgotten.
    for (const key of this.orphanCgroups.keys()) if (!present.has(key)) this.orphanCgroups.delete(key);
    try {
      if (this.allocatablePending) this.applyAllocatable();
      this.qos?.update(true);
    } catch (err) {
      log.warn("cgroups: updating the QoS cgroups failed", { err });
    }
  }

  remove(uid: string): void {
    try {
      // The flat layout's folder too: a pod started before --cgroups-per-qos was turned on.
      this.o.cgroups.destroy(childName(this.root, podCgroupSuffix(uid)));
      this.pods?.destroy(uid);
    } catch (err) {
      // Left for housekeeping, which finds it as an orphan and retries with backoff.
      if (!(err instanceof CgroupBusyError)) throw err;
      this.o.log.info("cgroups: the pod's cgroup could not be removed yet; housekeeping tries again", { uid, err });
    }
    if (!this.pods) return;
    try {
      this.updateQos();
    } catch (err) {
      this.o.log.warn("cgroups: updating the QoS cgroups after a pod went failed", { uid, err });
    }
  }
}
