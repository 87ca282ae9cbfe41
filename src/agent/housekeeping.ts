// Housekeeping (the sync loop's 2 s tick, the kubelet's HandlePodCleanups): once every source has been
// seen, runtime pods no source has are removed, and so are pod folders, volume mounts and pod cgroups
// of pods nothing knows; evicted pods whose pressure is gone start again; probes, notes and backoffs
// of what is gone are forgotten. It also answers container GC which pods are gone (PodStateProvider).
import type { Pod } from "kubernetes-types/core/v1";
import type { PodAdmitResult } from "../admission";
import { isStaticPod, podKey } from "../api";
import type { PodConfig, PodSource } from "../config";
import { type EventRecorder, podReference } from "../events";
import type { PodStateProvider } from "../gc";
import type { PodLifecycleEventGenerator } from "../pleg";
import type { PodProber } from "../prober";
import type { Logger } from "../util";
import type { VolumeManager } from "../volume";
import type { AgentHooks, EvictionLoop } from "./agent-options";
import type { Backoff } from "./backoff";
import type { ContainerNotes } from "./container-notes";
import { EVICTION_RECOVERED_REASON, evictionRecoveredMessage, type EvictedPods } from "./evicted-pods";
import type { PodSyncer } from "./pod-sync";
import type { PodWorkers } from "./pod-workers";
import type { TerminationMessages } from "./termination-message";

export interface HousekeepingOptions {
  config: PodConfig;
  pleg: PodLifecycleEventGenerator;
  sources: PodSource[];
  workers: PodWorkers;
  syncer: PodSyncer;
  volumes: VolumeManager;
  probes: PodProber;
  notes: ContainerNotes;
  terminationMessages: TerminationMessages;
  evicted: EvictedPods;
  /** The node's allocations (allocation-manager.ts): those of pods nothing knows are forgotten. */
  allocation?: { prune(known: ReadonlySet<string>): void };
  eviction: EvictionLoop;
  crashBackoff: Backoff;
  imageBackoff: Backoff;
  /** Whether a pod may run here now (the admission chain over the active pods). */
  admission: { canAdmitPod(pod: Pod): PodAdmitResult };
  events: EventRecorder;
  hooks?: AgentHooks;
  log: Logger;
  /** When the agent started: notes are pruned only after a relist since then. */
  startedAt: number;
}

export class Housekeeping {
  private allSourcesSeen = false;
  /** Why an evicted pod whose pressure is gone was not admitted again, by UID (said once per reason). */
  private readonly recoveryRefusals = new Map<string, string>();

  constructor(private readonly o: HousekeepingOptions) {}

  /** A pod is gone for good: what was said about its recovery goes too. */
  forget(uid: string): void {
    this.recoveryRefusals.delete(uid);
  }

  /** One pass (the sync loop's housekeeping tick, the kubelet's HandlePodCleanups). */
  run(): void {
    const { config, pleg, sources } = this.o;
    const names = sources.map((s) => s.name);
    const known = new Set(this.o.workers.states().map((s) => s.uid));
    if (config.seenAllSources(names)) {
      if (!this.allSourcesSeen) {
        this.allSourcesSeen = true;
        this.o.log.info("every pod source has been seen: runtime pods that none of them has are removed from now on", { sources: names });
      }
      for (const uid of pleg.cache.uids()) {
        const st = pleg.cache.get(uid)?.status;
        if (known.has(uid) || !st) continue;
        if (st.containerStatuses.length === 0 && st.sandboxStatuses.length === 0) continue;
        this.o.log.info("pod runs but no source has it: removing it", { pod: `${st.namespace}/${st.name}`, uid });
        const orphan: Pod = { metadata: { name: st.name, namespace: st.namespace, uid }, spec: { containers: [] } };
        this.o.workers.updatePod({ type: "kill", pod: orphan, remove: true });
      }
      this.o.evicted.prune(known);
      // The allocated and actuated resources of pods nothing knows (the kubelet's RemoveOrphanedPods).
      this.o.allocation?.prune(known);
      this.o.syncer.resizer.prune(new Set([...known, ...pleg.cache.uids()]));
      // Pod folders (and volume mounts) of pods nothing knows any more: gone while the agent was down
      // (kill -9), or left by a removal cut short. Runtime orphans go through the removal above first.
      // Asked live (not this pass's snapshot): the manager asks again just before it tears a pod down.
      void this.o.volumes.cleanupOrphans((uid) => this.o.workers.get(uid) !== undefined || pleg.cache.get(uid) !== undefined);
      // And their pod cgroups (the kubelet's cleanupOrphanedPodCgroups); the QoS shares follow the pods.
      this.o.syncer.cgroupHousekeeping(new Set([...known, ...pleg.cache.uids()]));
    }
    this.recoverEvictedPods();
    this.o.probes.cleanupPods(known);
    this.pruneNotes();
    this.o.crashBackoff.gc();
    this.o.imageBackoff.gc();
    this.o.hooks?.afterHousekeeping?.();
  }

  /**
   * A file, URL or pushed pod evicted for node pressure starts again once that pressure is gone: the
   * eviction manager has measured the node and no longer reports the condition (which it keeps for
   * --eviction-pressure-transition-period after the threshold was last met), and the pod passes
   * admission again (another pressure, or a pod that took its place, keeps it Failed until the next
   * pass). A Normal EvictionRecovered event says so. A departure from the kubelet, whose static pods
   * are critical (never evicted) and whose evicted API pods are their controllers' to replace: a
   * standalone node must not lose a service for good to a spike. API pods are never restarted here.
   * Also after a restart: the record (evicted-pods.json) keeps the condition.
   */
  private recoverEvictedPods(): void {
    const pressure = this.o.eviction.observedPressure?.();
    if (!pressure) return;
    for (const s of this.o.workers.states()) {
      if (s.phase !== "terminated" || s.removed || s.restartRequested || !isStaticPod(s.pod)) continue;
      const record = this.o.evicted.get(s.uid);
      if (!record?.condition || pressure.has(record.condition)) continue;
      const admitted = this.o.admission.canAdmitPod(s.pod);
      if (!admitted.admit) {
        const why = `${admitted.reason}: ${admitted.message}`;
        if (this.recoveryRefusals.get(s.uid) !== why)
          this.o.log.info("the pod's node condition is gone, but it is not admitted again yet", {
            pod: podKey(s.pod),
            condition: record.condition,
            reason: why,
          });
        this.recoveryRefusals.set(s.uid, why);
        continue;
      }
      this.recoveryRefusals.delete(s.uid);
      if (!this.o.workers.restartPod(s.uid)) continue;
      this.o.evicted.delete(s.uid);
      const message = evictionRecoveredMessage(record.condition);
      this.o.log.info("the node is no longer under pressure; the pod is started again", { pod: podKey(s.pod), condition: record.condition });
      this.o.events.event(podReference(s.pod), "Normal", EVICTION_RECOVERED_REASON, message);
    }
  }

  /** Notes of containers the runtime no longer has go, once a relist since the start has listed it. */
  private pruneNotes(): void {
    const { pleg } = this.o;
    if (pleg.relistStats.lastRelistTime < this.o.startedAt) return;
    const live = new Set<string>();
    for (const uid of pleg.cache.uids()) for (const c of pleg.cache.get(uid)?.status?.containerStatuses ?? []) live.add(c.id);
    this.o.notes.prune(live);
    this.o.terminationMessages.prune(live);
    this.o.syncer.prunePostStart(live, pleg.relistStats.lastRelistTime);
  }

  /**
   * Which pods container GC may clear (the kubelet's podWorkers.ShouldPodContentBeRemoved and
   * ShouldPodRuntimeBeRemoved, and sourcesReady): a pod the workers know is removable once it has
   * terminated (runtime) and its source removed it (content); an unknown UID is a removed pod once
   * every source has been seen. An evicted pod keeps its dead containers here, unlike the kubelet's
   * (IsEvicted): it stays listed as Failed until its source deletes it, and its status is computed
   * from them.
   */
  podStateProvider(): PodStateProvider {
    return {
      allSourcesReady: () => this.allSourcesSeen,
      shouldPodContentBeRemoved: (uid) => (this.o.workers.knows(uid) ? this.o.workers.shouldPodContentBeRemoved(uid) : this.allSourcesSeen),
      shouldPodRuntimeBeRemoved: (uid) => (this.o.workers.knows(uid) ? this.o.workers.shouldPodRuntimeBeRemoved(uid) : this.allSourcesSeen),
    };
  }
}
