// StatusManager: writes the status the agent computes for each pod to the API server, as the kubelet's
// status manager does (pkg/kubelet/status/status_manager.go). A change is written at once (the kubelet's
// podStatusChannel), and every 10 s a batch writes whatever is still out of date (syncBatch); at most one
// write per pod is in flight. A static pod's status goes to its mirror pod. After a graceful deletion the
// pod's final status is written and the pod deleted with grace 0 (canBeDeleted).
//
// A pod the node deleted from the API (or that the API answered NotFound for) is never written again:
// the agent still reports its status while the worker finishes (its removal is the last report), and
// the informer may not have seen the delete yet, so such a write went out and came back 404. The
// kubelet's syncPod GETs the pod first and does nothing on NotFound; here the uid is remembered until
// the agent forgets the pod or the informer sees it gone.
//
// The "old" side of each patch: the kubelet GETs the pod before every write. Here it is the API source's
// informer copy, or, while that copy still predates our last write (its resourceVersion is the one it had
// when we wrote), the pod the PATCH answered with. No GET per write, and a stale cache can only make a
// patch carry fields the server already has, never leave out one it lacks.
import type { Pod, PodCondition, PodStatus } from "kubernetes-types/core/v1";
import type { V1DeleteOptions } from "@kubernetes/client-node";
import { PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import { isStaticPod, isTerminalPhase, podKey } from "../api";
import { apiErrorMessage, isConflict, isForbidden, isNotFound, type KubeClient } from "../kube";
import type { Clock, LogFields, Logger, Timer } from "../util";
import type { ApiPodView } from "./api-pod-view";
import { keepNewerGeneration } from "./observed-generation";
import { podStatusPatch, sameJson, wireJson } from "./pod-status-patch";
import { KUBELET_CONDITIONS } from "./kubelet-conditions";

/** syncPeriod in status_manager.go. */
export const STATUS_BATCH_PERIOD_MS = 10_000;
/** At most this many uids of deleted pods are remembered (the oldest go first): a bound, never reached in practice. */
const MAX_DELETED_REMEMBERED = 1000;

export interface MirrorPodLookup {
  /** The API pod that mirrors this version of a static pod, if there is one yet. */
  mirrorOf(staticPod: Pod): Pod | undefined;
}

export interface StatusManagerOptions {
  client: Pick<KubeClient, "core">;
  apiPods: ApiPodView;
  mirrorPods: MirrorPodLookup;
  clock: Clock;
  log: Logger;
  batchPeriodMs?: number;
}

interface PodEntry {
  /** The pod as the agent runs it (a static pod, or the API pod itself). */
  pod: Pod;
  status: PodStatus;
  /** Bumped on each change of status; `written` is the version the API server last confirmed. */
  version: number;
  written: number;
  /** The version a 403 was answered for: not retried until the status changes. */
  forbidden?: number;
  /** The last successful PATCH: the pod it answered with, and the informer's version of it before. */
  acked?: { pod: Pod; informerVersionBefore: string | undefined };
  /** The containers have all stopped after a deletion (podTerminated): delete the API pod once written. */
  finished: boolean;
  inFlight: boolean;
  again: boolean;
}

export class StatusManager {
  private readonly entries = new Map<string, PodEntry>();
  private readonly uidByFullName = new Map<string, string>();
  private readonly warned = new Set<string>();
  /** Uids of pods gone from the API (deleted by this node, or answered NotFound), in the order they went. */
  private readonly deleted = new Set<string>();
  private timer?: Timer;

  constructor(private readonly o: StatusManagerOptions) {
    // Whatever moves the target pod (a mirror pod appearing, a deletionTimestamp, someone else writing
    // its status) is looked at now rather than at the next batch.
    o.apiPods.onChange((event, pod) => {
      if (event === "delete") {
        this.deleted.delete(pod.metadata?.uid ?? "");
        return;
      }
      const uid = this.uidByFullName.get(podKey(pod));
      const e = uid === undefined ? undefined : this.entries.get(uid);
      if (uid !== undefined && e && !e.inFlight && this.needsWrite(e)) this.write(uid);
    });
  }

  /** Starts the batch: every 10 s, whatever is still out of date is written. */
  start(): void {
    if (this.timer) return;
    const tick = () => {
      for (const [uid, e] of this.entries) if (!e.inFlight && this.needsWrite(e)) this.write(uid);
      this.timer = this.o.clock.setTimer(this.o.batchPeriodMs ?? STATUS_BATCH_PERIOD_MS, tick);
    };
    this.timer = this.o.clock.setTimer(this.o.batchPeriodMs ?? STATUS_BATCH_PERIOD_MS, tick);
  }

  stop(): void {
    this.timer?.cancel();
    this.timer = undefined;
  }

  /** The agent's status for a pod after a sync; written at once when it changed. */
  setPodStatus(pod: Pod, status: PodStatus): void {
    const uid = pod.metadata?.uid ?? "";
    if (this.deleted.has(uid)) return;
    const json = wireJson(status);
    const next = json as PodStatus;
    const e = this.entries.get(uid);
    if (e) {
      e.pod = pod;
      if (sameJson(wireJson(e.status), json)) return;
      e.status = next;
      e.version++;
    } else {
      this.entries.set(uid, { pod, status: next, version: 1, written: 0, finished: false, inFlight: false, again: false });
      this.uidByFullName.set(podKey(pod), uid);
    }
    this.write(uid);
  }

  /**
   * The pod's containers have all stopped after a deletion (the end of SyncTerminatingPod): when the API
   * pod is being deleted, its final status is written and then it is deleted for good.
   */
  podTerminated(pod: Pod, finalStatus?: PodStatus): void {
    const uid = pod.metadata?.uid ?? "";
    if (this.deleted.has(uid)) return;
    const status = finalStatus ?? this.entries.get(uid)?.status;
    if (status) this.setPodStatus(pod, terminalStatus(status));
    const e = this.entries.get(uid);
    if (!e) return;
    e.finished = true;
    this.write(uid);
  }

  /** The pod is gone from the agent: its status is forgotten. */
  removePod(uid: string): void {
    this.deleted.delete(uid);
    this.forget(uid);
  }

  /** The pod is gone from the API: nothing more is written for this uid (see the top of this file). */
  private gone(uid: string, e: PodEntry): void {
    if (isStaticPod(e.pod)) return this.forget(uid);
    this.deleted.add(uid);
    if (this.deleted.size > MAX_DELETED_REMEMBERED) this.deleted.delete(this.deleted.values().next().value!);
    this.forget(uid);
  }

  private forget(uid: string): void {
    const e = this.entries.get(uid);
    if (!e) return;
    this.entries.delete(uid);
    this.warned.delete(`phase:${uid}`);
    this.warned.delete(`forbidden:${uid}`);
    if (this.uidByFullName.get(podKey(e.pod)) === uid) this.uidByFullName.delete(podKey(e.pod));
  }

  /** The status last handed over for a pod, until the pod is forgotten (a read-only view; the tests check it). */
  status(uid: string): PodStatus | undefined {
    return this.entries.get(uid)?.status;
  }

  /** The API pod a pod's status goes to: the pod itself, or a static pod's mirror pod. */
  private target(e: PodEntry): Pod | undefined {
    if (isStaticPod(e.pod)) return this.o.mirrorPods.mirrorOf(e.pod);
    return this.o.apiPods.get(e.pod.metadata?.name ?? "", e.pod.metadata?.namespace ?? "default");
  }

  /** needsUpdate + needsReconcile: an unwritten version, a difference from the API, or a delete due. */
  private needsWrite(e: PodEntry): boolean {
    const target = this.target(e);
    if (!target) return false;
    if (this.recreated(e, target)) return true;
    if (e.written < e.version && e.forbidden !== e.version) return true;
    if (e.finished && target.metadata?.deletionTimestamp && !isStaticPod(e.pod)) return true;
    return e.forbidden === undefined && this.patchFor(e, target) !== undefined;
  }

  /** An API pod with this name but another uid: ours was deleted and the name reused. */
  private recreated(e: PodEntry, target: Pod): boolean {
    return !isStaticPod(e.pod) && target.metadata?.uid !== e.pod.metadata?.uid;
  }

  private oldPod(e: PodEntry, target: Pod): Pod {
    const acked = e.acked;
    if (acked && acked.pod.metadata?.uid === target.metadata?.uid && target.metadata?.resourceVersion === acked.informerVersionBefore) return acked.pod;
    return target;
  }

  private patchFor(e: PodEntry, target: Pod) {
    const old = this.oldPod(e, target).status ?? {};
    return podStatusPatch(target.metadata?.uid ?? "", old, this.merged(e, old));
  }

  /**
   * mergePodStatus: conditions the kubelet does not own stay as the API has them, and a terminal phase
   * in the API is never moved back (generateAPIPodStatus: "Pod attempted illegal phase transition").
   */
  private merged(e: PodEntry, old: PodStatus): PodStatus {
    const next: PodStatus = { ...e.status };
    const others = (old.conditions ?? []).filter((c) => !KUBELET_CONDITIONS.has(c.type));
    const ours = (e.status.conditions ?? []).filter((c) => KUBELET_CONDITIONS.has(c.type));
    next.conditions = [...others, ...ours];
    keepNewerGeneration(next, old);
    if (isTerminalPhase(old.phase) && next.phase !== old.phase) {
      this.warnOnce(`phase:${e.pod.metadata?.uid}`, "keeping the API's terminal phase of a pod", {
        pod: podKey(e.pod),
        phase: old.phase,
        computed: next.phase,
      });
      next.phase = old.phase;
      next.reason = old.reason;
      next.message = old.message;
    }
    // A terminal pod is never reported ready (kubelet #108594).
    if (isTerminalPhase(next.phase)) next.conditions = next.conditions.map((c) => notReadyWhenTerminal(c, next.phase === "Succeeded"));
    return next;
  }

  /** Starts a write of this pod unless one is in flight; then one more follows it. */
  private write(uid: string): void {
    const e = this.entries.get(uid);
    if (!e) return;
    if (e.inFlight) {
      e.again = true;
      return;
    }
    e.inFlight = true;
    void (async () => {
      try {
        do {
          e.again = false;
          await this.syncPod(uid, e);
        } while (e.again && this.entries.get(uid) === e);
      } catch (err) {
        this.o.log.warn("status of a pod: sync failed", { pod: podKey(e.pod), err });
      } finally {
        e.inFlight = false;
      }
    })();
  }

  /** One write: the patch of what changed, then, for a finished pod being deleted, the final delete. */
  private async syncPod(uid: string, e: PodEntry): Promise<void> {
    const target = this.target(e);
    if (!target) return; // no mirror pod yet, or the pod is not (or no longer) in the API
    const name = target.metadata?.name ?? "";
    const namespace = target.metadata?.namespace ?? "default";
    if (this.recreated(e, target)) {
      this.o.log.info("pod was deleted and created again: its old status is dropped", { pod: podKey(e.pod), uid: target.metadata?.uid });
      this.gone(uid, e);
      return;
    }
    const version = e.version;
    let current = this.oldPod(e, target);
    const patch = this.patchFor(e, target);
    if (patch) {
      try {
        const answer = await this.o.client.core.patchNamespacedPodStatus(
          { name, namespace, body: patch },
          setHeaderOptions("Content-Type", PatchStrategy.StrategicMergePatch),
        );
        current = wireJson(answer) as Pod;
        e.acked = { pod: current, informerVersionBefore: target.metadata?.resourceVersion };
        e.forbidden = undefined;
      } catch (err) {
        return this.failed(uid, e, err, version);
      }
    }
    e.written = Math.max(e.written, version);
    if (e.finished && current.metadata?.deletionTimestamp && !isStaticPod(e.pod)) await this.deleteFinished(uid, e, current);
  }

  private failed(uid: string, e: PodEntry, err: unknown, version: number): void {
    const pod = podKey(e.pod);
    // The next try diffs against the informer's copy, the newest the agent has, not our last answer.
    e.acked = undefined;
    if (isNotFound(err)) {
      // The pod is gone; a static pod keeps its status for the mirror pod that replaces this one.
      this.o.log.debug("status of a pod: the pod no longer exists", { pod });
      if (!isStaticPod(e.pod)) this.gone(uid, e);
    } else if (isForbidden(err)) {
      e.forbidden = version;
      this.warnOnce(`forbidden:${uid}`, "status of a pod: forbidden (not retried until the status changes)", { pod, err: apiErrorMessage(err) });
    } else if (isConflict(err)) {
      this.o.log.info("status of a pod: conflict; retrying at the next batch", { pod, err: apiErrorMessage(err) });
    } else {
      this.o.log.warn("status of a pod: update failed; retrying at the next batch", { pod, err: apiErrorMessage(err) });
    }
  }

  /** The graceful deletion's last step (canBeDeleted): grace 0, only this uid (never a successor). */
  private async deleteFinished(uid: string, e: PodEntry, pod: Pod): Promise<void> {
    const podUid = pod.metadata?.uid ?? "";
    const body: V1DeleteOptions = { gracePeriodSeconds: 0, preconditions: { uid: podUid } };
    try {
      await this.o.client.core.deleteNamespacedPod({ name: pod.metadata?.name ?? "", namespace: pod.metadata?.namespace ?? "default", body });
      this.o.log.info("pod terminated: removed from the API", { pod: podKey(e.pod) });
      this.gone(uid, e);
    } catch (err) {
      // NotFound, or a failed uid precondition: this pod is gone either way.
      if (isNotFound(err) || isConflict(err)) this.gone(uid, e);
      else this.o.log.warn("deleting a terminated pod failed; retrying at the next batch", { pod: podKey(e.pod), err: apiErrorMessage(err) });
    }
  }

  private warnOnce(key: string, message: string, fields: LogFields): void {
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.o.log.warn(message, fields);
  }
}

/**
 * A terminated pod's status has a terminal phase (getPhase with podIsTerminal): Succeeded when every
 * container exited 0, Failed otherwise, whatever its restartPolicy would have done had it kept running.
 */
function terminalStatus(status: PodStatus): PodStatus {
  if (isTerminalPhase(status.phase)) return status;
  const succeeded = (status.containerStatuses ?? []).every((c) => c.state?.terminated?.exitCode === 0);
  return { ...status, phase: succeeded ? "Succeeded" : "Failed" };
}

/** generatePodReadyConditionForTerminalPhase (the transition time stays the agent's: a patch is stable). */
function notReadyWhenTerminal(c: PodCondition, succeeded: boolean): PodCondition {
  if ((c.type !== "Ready" && c.type !== "ContainersReady") || c.status !== "True") return c;
  const { message: _message, ...rest } = c;
  return { ...rest, status: "False", reason: succeeded ? "PodCompleted" : "PodFailed" };
}
