// The plugin interfaces of the scheduling framework (k8s.io/kube-scheduler/framework interface.go),
// one per extension point, and the Handle through which plugins see the snapshot, the nominated pods
// and the cluster. A plugin implements the points it has methods for, as a Go plugin implements
// interfaces. The scheduling cycle is synchronous (PreEnqueue … Permit); only the binding cycle
// (WaitOnPermit, PreBind, Bind) awaits.
import type { Pod } from "kubernetes-types/core/v1";
import type { Clock } from "../../util";
import type { Workloads } from "../model/default-selector";
import type { Labels } from "../model/labels";
import type { NodeInfo } from "../model/node-info";
import type { PodInfo } from "../model/pod-info";
import type { CycleState } from "./cycle-state";
import type { NodeToStatus } from "./diagnosis";
import type { ClusterEvent } from "./events";
import type { MaybeStatus, Status } from "./status";

export const MAX_NODE_SCORE = 100;
export const MIN_NODE_SCORE = 0;

/** A pod in the scheduling queue (framework.QueuedPodInfo). */
export interface QueuedPodInfo {
  podInfo: PodInfo;
  /** When the pod was added to the queue, or last came back to it after an attempt (ms). */
  timestamp: number;
  /** Arrival order: breaks ties between equal timestamps the way Go's nanosecond clock does. */
  seq: number;
  attempts: number;
  unschedulableCount: number;
  consecutiveErrorsCount: number;
  initialAttemptTimestamp: number | undefined;
  unschedulablePlugins: Set<string>;
  pendingPlugins: Set<string>;
  /** The PreEnqueue plugin that keeps the pod out of activeQ ("" when not gated). */
  gatingPlugin: string;
  gatingPluginEvents: readonly ClusterEvent[];
  /** Cached backoff expiry (ms); 0 until computed for the current attempt. */
  backoffExpiration: number;
}

export interface Plugin {
  readonly name: string;
}

export interface PreEnqueuePlugin extends Plugin {
  preEnqueue(pod: Pod): MaybeStatus;
}

export interface QueueSortPlugin extends Plugin {
  less(a: QueuedPodInfo, b: QueuedPodInfo): boolean;
}

/** PreFilterResult: the only nodes worth filtering; undefined means all nodes. */
export interface PreFilterResult {
  nodeNames: ReadonlySet<string>;
}

export type PreFilterReturn = MaybeStatus | PreFilterResult;

export interface PreFilterExtensions {
  addPod(state: CycleState, podToSchedule: PodInfo, podToAdd: PodInfo, nodeInfo: NodeInfo): MaybeStatus;
  removePod(state: CycleState, podToSchedule: PodInfo, podToRemove: PodInfo, nodeInfo: NodeInfo): MaybeStatus;
}

export interface PreFilterPlugin extends Plugin {
  preFilter(state: CycleState, pod: PodInfo, nodes: readonly NodeInfo[]): PreFilterReturn;
  preFilterExtensions?(): PreFilterExtensions | undefined;
}

export interface FilterPlugin extends Plugin {
  filter(state: CycleState, pod: PodInfo, nodeInfo: NodeInfo): MaybeStatus;
}

/** What a PostFilter plugin achieved: a node nominated for the pod ("" clears a nomination). */
export interface PostFilterResult {
  nominatedNodeName: string;
  /** The pods preempted to make room (for the explanation and the output). */
  victims?: readonly PodInfo[];
}

export interface PostFilterPlugin extends Plugin {
  postFilter(state: CycleState, pod: PodInfo, statuses: NodeToStatus): { result?: PostFilterResult; status: MaybeStatus };
}

export interface PreScorePlugin extends Plugin {
  preScore(state: CycleState, pod: PodInfo, nodes: readonly NodeInfo[]): MaybeStatus;
}

export interface NodeScore {
  name: string;
  score: number;
}

export interface ScorePlugin extends Plugin {
  /** A raw score, or a Status on failure. */
  score(state: CycleState, pod: PodInfo, nodeInfo: NodeInfo): number | Status;
  /** ScoreExtensions.NormalizeScore: brings every node's score into [0, 100], in place. */
  normalizeScore?(state: CycleState, pod: PodInfo, scores: NodeScore[]): MaybeStatus;
}

export interface ReservePlugin extends Plugin {
  reserve(state: CycleState, pod: PodInfo, nodeName: string): MaybeStatus;
  /** Must be idempotent: it may run without Reserve having run. */
  unreserve(state: CycleState, pod: PodInfo, nodeName: string): void;
}

export interface PermitPlugin extends Plugin {
  /** Success, a rejection, or Wait with how long to wait (capped at 15 minutes). */
  permit(state: CycleState, pod: PodInfo, nodeName: string): { status: MaybeStatus; timeoutMs: number };
}

export interface PreBindPlugin extends Plugin {
  preBind(state: CycleState, pod: PodInfo, nodeName: string): Promise<MaybeStatus>;
}

export interface BindPlugin extends Plugin {
  bind(state: CycleState, pod: PodInfo, nodeName: string): Promise<MaybeStatus>;
}

export interface PostBindPlugin extends Plugin {
  postBind(state: CycleState, pod: PodInfo, nodeName: string): void;
}

export type QueueingHint = "Queue" | "QueueSkip";

/** Whether an event may make `pod`, which the plugin rejected, schedulable. Throwing counts as Queue. */
export type QueueingHintFn = (pod: Pod, oldObj: unknown, newObj: unknown) => QueueingHint;

export interface ClusterEventWithHint {
  event: ClusterEvent;
  /** Without a hint every matching event queues the pod. */
  hint?: QueueingHintFn;
}

export interface EnqueueExtensions {
  eventsToRegister(): ClusterEventWithHint[];
}

/** What the scheduler exposes of the snapshot taken at the start of each cycle. */
export interface SnapshotLister {
  list(): readonly NodeInfo[];
  get(nodeName: string): NodeInfo | undefined;
  havePodsWithAffinityList(): readonly NodeInfo[];
  havePodsWithRequiredAntiAffinityList(): readonly NodeInfo[];
  numNodes(): number;
  /** The labels of a namespace: those of the Namespace object when one was given, else kubernetes.io/metadata.name only. */
  namespaceLabels(namespace: string): Labels;
  /** Services and controllers, for PodTopologySpread's default constraints. */
  workloads(): Workloads;
}

/** The cluster the scheduler acts on: binding and evicting (in memory, or live agents over HTTP). */
export interface ClusterClient {
  bind(pod: Pod, nodeName: string): Promise<void>;
  /** Preemption: deletes a victim. */
  deletePod(victim: PodInfo, nodeName: string): Promise<void>;
}

export interface WaitingPod {
  readonly pod: PodInfo;
  pendingPlugins(): string[];
  allow(plugin: string): void;
  reject(plugin: string, message: string): void;
}

/** framework.Handle: what plugins may use besides their own state. */
export interface Handle {
  readonly clock: Clock;
  readonly client: ClusterClient;
  snapshot(): SnapshotLister;
  /** A number in [0, 1): tie-breaking and preemption's random offset. */
  random(): number;
  nominatedPodsForNode(nodeName: string): readonly PodInfo[];
  runFilterPluginsWithNominatedPods(state: CycleState, pod: PodInfo, nodeInfo: NodeInfo): MaybeStatus;
  runPreFilterExtensionAddPod(state: CycleState, pod: PodInfo, podToAdd: PodInfo, nodeInfo: NodeInfo): MaybeStatus;
  runPreFilterExtensionRemovePod(state: CycleState, pod: PodInfo, podToRemove: PodInfo, nodeInfo: NodeInfo): MaybeStatus;
  getWaitingPod(uid: string): WaitingPod | undefined;
  iterateOverWaitingPods(fn: (wp: WaitingPod) => void): void;
  rejectWaitingPod(uid: string): boolean;
  /** Clears the nomination of a pod (preemption does it to lower-priority pods nominated on the chosen node). */
  clearNomination(pod: PodInfo): void;
  /**
   * Runs work outside the scheduling cycle, as upstream's goroutines do (preemption's API calls);
   * the scheduler waits for it before it calls itself idle, and logs a failure.
   */
  background(what: string, work: Promise<void>): void;
}

export type PluginFactory = (args: unknown, handle: Handle) => Plugin;
