// ContainerGC: the kubelet's container garbage collector (k/k@1.24.1 pkg/kubelet/kuberuntime/kuberuntime_gc.go,
// run every ContainerGCPeriod, 1 min, by pkg/kubelet/kubelet.go StartGarbageCollection). It is the one
// place that decides which dead containers and sandboxes of the node's pods stay: the pod syncs only
// remove what a start replaces (an instance that never ran, old init containers before a new sandbox,
// as the kubelet's SyncPod does) and a removed pod's objects (the pod worker's cleanup).
//
// One collection (GarbageCollect), in the kubelet's order:
//   1. containers: every container that is not running and was created at least MinAge ago is
//      evictable, grouped in evict units (pod UID, container name), each newest first.
//      - when every pod source has been seen, all of a unit whose pod's content may be removed (a pod
//        no source has, or one terminated and removed) go;
//      - of every other unit the MaxPerPodContainer newest stay (−1: no limit); the default 1 keeps
//        the last dead instance of each container, which is its lastState and `kubectl logs --previous`;
//      - above MaxContainers in all (−1: no limit): each unit is cut to MaxContainers / units (at
//        least 1), then the oldest go across units until MaxContainers are left.
//   2. sandboxes: per pod, a sandbox is active while it is ready or any container is in it; of a pod
//      whose content may be removed every inactive sandbox goes, of any other pod all but the newest.
//   3. pod log folders: with every source seen, <pod-logs-dir>/<ns>_<name>_<uid> of a pod whose
//      content may be removed goes. Only a folder whose name is exactly that, with a valid namespace
//      (a DNS-1123 label), name (a DNS-1123 subdomain) and UID (podUIDProblem), is the agent's: any
//      other folder (ssh, a_b, ns_name_Not-A-UID) is left alone and reported once (issue 24: the
//      kubelet takes the UID after the last "_" of any folder, in a folder it hard-codes; with
//      --pod-logs-dir /etc that removed all of /etc).
// Removing a container removes its log files first (the live file and the rotated ones, as the
// kubelet's removeContainerLog → logManager.Clean), then the container; one in an unknown state is
// stopped first. A failed removal is logged and the collection goes on.
//
// deleteAllUnusedContainers() is the eviction manager's reclaim (DeleteAllUnusedContainers): the same
// collection with the same policy (the kubelet's code passes cgc.policy; node.md's "ignores MinAge and
// limits" is not what it does), except that a pod that has terminated but is not yet removed counts
// as removable too (evictNonDeletedPods): its dead containers and sandboxes all go.
//
// A container's pod and name come from the kubelet's labels (io.kubernetes.pod.uid and
// io.kubernetes.container.name, getContainerInfoFromLabels); one without them is not considered (the
// kubelet takes it with an empty UID, which counts as a removed pod: everything of another CRI client
// would go). A sandbox's pod is its metadata's UID, as for the kubelet and the agent's PLEG.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { type Container, CONTAINER_NAME, type CriClient, NotFoundError, POD_UID, type PodSandbox } from "../cri";
import { isDNS1123Label, isDNS1123Subdomain, podUIDProblem } from "../api";
import { type Clock, confinedPath, errorMessage, type Logger, PathEscapeError, removeInside } from "../util";
import { cleanContainerLogs } from "../logs";
import type { GCEvent } from "./image-gc-manager";

/** The kubelet's ContainerGCPeriod. */
export const CONTAINER_GC_PERIOD_MS = 60_000;

/** The kubelet's container GC policy (kubecontainer.GCPolicy), from its deprecated flags only. */
export interface ContainerGCPolicy {
  /** --minimum-container-ttl-duration, 0: a younger dead container is never collected. */
  minAgeMs: number;
  /** --maximum-dead-containers-per-container, 1: dead instances kept per container (−1: no limit). */
  maxPerPodContainer: number;
  /** --maximum-dead-containers, −1: dead containers kept on the node (−1: no limit). */
  maxContainers: number;
}

export const DEFAULT_CONTAINER_GC_POLICY: ContainerGCPolicy = { minAgeMs: 0, maxPerPodContainer: 1, maxContainers: -1 };

/** The CRI calls container GC makes: the CriClient on a node, a fake in tests. */
export type ContainerGCRuntime = Pick<
  CriClient,
  "listContainers" | "listPodSandbox" | "containerStatus" | "stopContainer" | "removeContainer" | "removePodSandbox"
>;

/** What the GC asks of the agent about a pod (the kubelet's podStateProvider and sourcesReady). */
export interface PodStateProvider {
  /** Every pod source has delivered a complete set: an unknown UID is a removed pod. */
  allSourcesReady(): boolean;
  /** The pod's containers, sandboxes and logs may all go: no source has it, or it was removed and has terminated. */
  shouldPodContentBeRemoved(uid: string): boolean;
  /** The pod's runtime objects may go (it has terminated): what the eviction reclaim also takes. */
  shouldPodRuntimeBeRemoved(uid: string): boolean;
}

/** What the eviction manager asks of container GC, with a fake in tests. */
export interface ContainerGCer {
  garbageCollect(): Promise<void>;
  deleteAllUnusedContainers(): Promise<void>;
}

export interface ContainerGCOptions {
  runtime: ContainerGCRuntime;
  pods: PodStateProvider;
  policy: ContainerGCPolicy;
  /** --pod-logs-dir: the pods' log folders, and the only place container logs are removed from. */
  podLogsRoot: string;
  clock: Clock;
  log: Logger;
  /** CONTAINER_GC_PERIOD_MS by default. */
  periodMs?: number;
  onEvent?(e: GCEvent): void;
}

/** A dead container as the GC weighs it (containerGCInfo). */
export interface DeadContainer {
  id: string;
  name: string;
  /** ns since the epoch. */
  createdAt: number;
  /** In an unknown state: stopped before it is removed. */
  unknown: boolean;
}

/** Evictable containers by evict unit, each newest first; the key is `<uid>/<container name>`. */
export type EvictUnits = Map<string, { uid: string; containers: DeadContainer[] }>;

/** What one collection removes, decided before anything is removed (pure: the policy's unit tests). */
export interface ContainerGCPlan {
  containers: DeadContainer[];
}

/**
 * The evict units of the containers listed at `nowMs` (evictableContainers): not running, created at
 * least minAge ago, labelled with their pod and name.
 */
export function evictableContainers(containers: Container[], nowMs: number, minAgeMs: number): EvictUnits {
  const units: EvictUnits = new Map();
  for (const c of containers) {
    if (c.state === "CONTAINER_RUNNING") continue;
    if (c.createdAt / 1e6 + minAgeMs > nowMs) continue;
    const uid = c.labels[POD_UID];
    const name = c.labels[CONTAINER_NAME];
    if (!uid || !name) continue;
    const key = `${uid}/${name}`;
    let unit = units.get(key);
    if (!unit) units.set(key, (unit = { uid, containers: [] }));
    unit.containers.push({ id: c.id, name, createdAt: c.createdAt, unknown: c.state === "CONTAINER_UNKNOWN" });
  }
  for (const u of units.values()) u.containers.sort(newestFirst);
  return units;
}

const newestFirst = (a: { createdAt: number }, b: { createdAt: number }) => b.createdAt - a.createdAt;

/**
 * Which evictable containers go (evictContainers). `removable(uid)` says whether a pod's content may
 * all go; it is asked only when every source has been seen.
 */
export function planContainerEviction(
  units: EvictUnits,
  policy: Pick<ContainerGCPolicy, "maxPerPodContainer" | "maxContainers">,
  allSourcesReady: boolean,
  removable: (uid: string) => boolean,
): ContainerGCPlan {
  const out: DeadContainer[] = [];
  // Each unit keeps its newest `keep`: the rest (its oldest) go.
  const cut = (unit: DeadContainer[], keep: number): DeadContainer[] => {
    if (unit.length <= keep) return unit;
    out.push(...unit.slice(keep));
    return unit.slice(0, keep);
  };
  const left = new Map<string, DeadContainer[]>();
  for (const [key, unit] of units) {
    if (allSourcesReady && removable(unit.uid)) cut(unit.containers, 0);
    else left.set(key, unit.containers);
  }
  if (policy.maxPerPodContainer >= 0) for (const [key, unit] of left) left.set(key, cut(unit, policy.maxPerPodContainer));
  const total = () => [...left.values()].reduce((n, u) => n + u.length, 0);
  if (policy.maxContainers >= 0 && total() > policy.maxContainers) {
    // An equal share per unit (at least 1), then the oldest across units.
    const share = Math.max(1, Math.floor(policy.maxContainers / left.size));
    for (const [key, unit] of left) left.set(key, cut(unit, share));
    const n = total();
    if (n > policy.maxContainers) {
      const flat = [...left.values()].flat().sort(newestFirst);
      out.push(...flat.slice(flat.length - (n - policy.maxContainers)));
    }
  }
  return { containers: out };
}

/**
 * The inactive sandboxes that go (evictSandboxes): per pod, all of them when its content may go (or
 * its runtime, for the eviction reclaim), else all but the newest; never one that is ready or still
 * has a container.
 */
export function planSandboxEviction(sandboxes: PodSandbox[], containers: Container[], remove: (uid: string) => boolean): PodSandbox[] {
  const withContainers = new Set(containers.map((c) => c.podSandboxId));
  const byPod = new Map<string, PodSandbox[]>();
  for (const s of sandboxes) {
    const uid = s.metadata?.uid || s.labels[POD_UID];
    if (!uid) continue;
    let list = byPod.get(uid);
    if (!list) byPod.set(uid, (list = []));
    list.push(s);
  }
  const out: PodSandbox[] = [];
  for (const [uid, list] of byPod) {
    list.sort(newestFirst);
    const keep = remove(uid) ? 0 : 1;
    // The newest `keep` stay even when inactive; an active one stays wherever it is.
    for (const s of list.slice(keep)) if (s.state !== "SANDBOX_READY" && !withContainers.has(s.id)) out.push(s);
  }
  return out;
}

/** The pod UID of a log folder <ns>_<name>_<uid> (parsePodUIDFromLogsDirectory: what follows the last "_"). */
export function podUIDFromLogsDirectory(name: string): string {
  return name.slice(name.lastIndexOf("_") + 1);
}

/** A pod's log folder name, <namespace>_<name>_<uid>, taken apart. */
export interface PodLogsDirectoryName {
  namespace: string;
  name: string;
  uid: string;
}

/**
 * The parts of a log folder's name when it is a pod's — <namespace>_<name>_<uid>, the layout the kubelet
 * gives its pod log folders, each part valid (none of them can hold "_") — or why it is not one.
 */
export function parsePodLogsDirectoryName(folder: string): PodLogsDirectoryName | { problem: string } {
  const parts = folder.split("_");
  if (parts.length !== 3) return { problem: `not <namespace>_<name>_<uid> (${parts.length - 1} underscores)` };
  const [namespace, name, uid] = parts as [string, string, string];
  const ns = isDNS1123Label(namespace);
  if (ns.length) return { problem: `the namespace ${JSON.stringify(namespace)} is not a DNS-1123 label` };
  if (isDNS1123Subdomain(name).length) return { problem: `the name ${JSON.stringify(name)} is not a DNS-1123 subdomain` };
  const bad = podUIDProblem(uid);
  if (bad) return { problem: `the UID ${JSON.stringify(uid)} ${bad}` };
  return { namespace, name, uid };
}

export class ContainerGC implements ContainerGCer {
  readonly periodMs: number;
  private running: Promise<void> | undefined;
  /** Folders of --pod-logs-dir already reported as not a pod's: each is reported once. */
  private readonly strangers = new Set<string>();

  constructor(private readonly o: ContainerGCOptions) {
    this.periodMs = o.periodMs ?? CONTAINER_GC_PERIOD_MS;
  }

  /** Collects every period, the first time one period after the start (as the kubelet), until the signal aborts. */
  async run(signal: AbortSignal): Promise<void> {
    for (;;) {
      try {
        await this.o.clock.sleep(this.periodMs, signal);
      } catch {
        return;
      }
      await this.garbageCollect().catch((err) => {
        const message = errorMessage(err);
        this.o.log.warn("ContainerGCFailed", { err: message });
        this.o.onEvent?.({ reason: "ContainerGCFailed", message });
      });
    }
  }

  garbageCollect(): Promise<void> {
    return this.exclusive(() => this.collect(this.o.policy, false));
  }

  deleteAllUnusedContainers(): Promise<void> {
    this.o.log.info("container GC: attempting to delete unused containers");
    return this.exclusive(() => this.collect(this.o.policy, true));
  }

  /** One collection at a time: a second caller waits for the one in progress, then runs its own. */
  private async exclusive(fn: () => Promise<void>): Promise<void> {
    while (this.running) await this.running.catch(() => {});
    const p = fn();
    this.running = p;
    try {
      await p;
    } finally {
      this.running = undefined;
    }
  }

  private async collect(policy: ContainerGCPolicy, evictNonDeletedPods: boolean): Promise<void> {
    const { runtime, pods } = this.o;
    const ready = pods.allSourcesReady();
    const removable = (uid: string) => pods.shouldPodContentBeRemoved(uid) || (evictNonDeletedPods && pods.shouldPodRuntimeBeRemoved(uid));
    const units = evictableContainers(await runtime.listContainers(), this.o.clock.now(), policy.minAgeMs);
    const plan = planContainerEviction(units, policy, ready, removable);
    for (const c of plan.containers) await this.removeContainer(c);

    // Sandboxes are weighed against the containers left after the removals above.
    const [sandboxes, containers] = await Promise.all([runtime.listPodSandbox(), runtime.listContainers()]);
    for (const s of planSandboxEviction(sandboxes, containers, (uid) => ready && removable(uid))) {
      try {
        await runtime.removePodSandbox(s.id);
        this.o.log.info("container GC: removed sandbox", { sandbox: s.id.slice(0, 12), pod: `${s.metadata?.namespace}/${s.metadata?.name}` });
      } catch (err) {
        if (!(err instanceof NotFoundError)) this.o.log.warn("container GC: removing a sandbox failed", { sandbox: s.id.slice(0, 12), err });
      }
    }
    if (ready) this.evictPodLogsDirectories(removable);
  }

  /** The kubelet's removeContainer: its logs, then the container; failures are logged, not thrown. */
  private async removeContainer(c: DeadContainer): Promise<void> {
    const { runtime } = this.o;
    try {
      if (c.unknown) await runtime.stopContainer(c.id, 0).catch(() => {});
      const status = await runtime.containerStatus(c.id).catch((err) => {
        if (err instanceof NotFoundError) return undefined;
        throw err;
      });
      if (!status) return;
      if (status.logPath) {
        try {
          cleanContainerLogs(this.o.podLogsRoot, status.logPath);
        } catch (err) {
          // A log path the runtime reports outside --pod-logs-dir is not the agent's to remove.
          if (!(err instanceof PathEscapeError)) throw err;
          this.o.log.warn("container GC: the logs of a container are left alone", { container: c.name, id: c.id.slice(0, 12), err });
        }
      }
      await runtime.removeContainer(c.id);
      this.o.log.info("container GC: removed dead container", { container: c.name, id: c.id.slice(0, 12) });
    } catch (err) {
      if (!(err instanceof NotFoundError)) this.o.log.warn("container GC: removing a container failed", { container: c.name, id: c.id.slice(0, 12), err });
    }
  }

  /** Log folders of pods whose content may go (evictPodLogsDirectories). */
  private evictPodLogsDirectories(removable: (uid: string) => boolean): void {
    const root = this.o.podLogsRoot;
    let names: string[];
    try {
      names = readdirSync(root, { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => d.name);
    } catch {
      return;
    }
    // A stranger that went away is forgotten (and reported again should it come back).
    const present = new Set(names);
    for (const name of this.strangers) if (!present.has(name)) this.strangers.delete(name);
    for (const name of names) {
      const parsed = parsePodLogsDirectoryName(name);
      if ("problem" in parsed) {
        if (!this.strangers.has(name)) {
          this.strangers.add(name);
          // A name with control characters cannot forge a log line: the logger quotes such a value.
          this.o.log.warn("container GC: leaving a folder alone: not a pod's log folder", { path: join(root, name), problem: parsed.problem });
        }
        continue;
      }
      const { uid } = parsed;
      if (!removable(uid)) continue;
      try {
        removeInside(root, confinedPath(root, name));
        this.o.log.info("container GC: removed the log folder of a pod that is gone", { folder: name });
      } catch (err) {
        this.o.log.warn("container GC: removing a log folder failed", { folder: name, err });
      }
    }
  }
}
