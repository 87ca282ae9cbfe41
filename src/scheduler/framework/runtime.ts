// The framework runtime of one profile (pkg/scheduler/framework/runtime/framework.go): builds the
// plugins a profile enables (which point runs which plugins is plugin-lists.ts), and runs each
// extension point with upstream's status handling: which codes stop a point, which are
// remembered, which become errors, Unreserve in reverse order, Permit waits with a timeout.
import { type Clock, errorMessage } from "../../util";
import { EXTENSION_POINTS, type ExtensionPoint, type Profile } from "../config/types";
import type { NodeInfo } from "../model/node-info";
import type { PodInfo } from "../model/pod-info";
import type { CycleState } from "./cycle-state";
import type { NodeToStatus } from "./diagnosis";
import {
  type BindPlugin,
  type ClusterClient,
  type ClusterEventWithHint,
  type FilterPlugin,
  type Handle,
  MAX_NODE_SCORE,
  MIN_NODE_SCORE,
  type NodeScore,
  type PermitPlugin,
  type Plugin,
  type PluginFactory,
  type PostBindPlugin,
  type PostFilterPlugin,
  type PostFilterResult,
  type PreBindPlugin,
  type PreEnqueuePlugin,
  type PreFilterPlugin,
  type PreScorePlugin,
  type QueueSortPlugin,
  type ReservePlugin,
  type ScorePlugin,
  type SnapshotLister,
  type WaitingPod,
} from "./interface";
import { asStatus, Code, Status, type MaybeStatus } from "./status";
import { pluginsByPoint, registeredEvents, scoreWeights } from "./plugin-lists";
import { MAX_PERMIT_TIMEOUT_MS, WaitingPodEntry, WaitingPods } from "./waiting-pods";
import { guard, guardAsync, type PreFilterOutcome, rejectionOrError, type ScoreOutcome } from "./plugin-call";

export type { PreFilterOutcome, ScoreOutcome } from "./plugin-call";

/** What a framework needs from the scheduler around it. */
export interface FrameworkDeps {
  clock: Clock;
  client: ClusterClient;
  snapshot: () => SnapshotLister;
  random: () => number;
  nominatedPodsForNode: (nodeName: string) => readonly PodInfo[];
  clearNomination: (pod: PodInfo) => void;
  background: (what: string, work: Promise<void>) => void;
}

export class Framework implements Handle {
  readonly profileName: string;
  readonly percentageOfNodesToScore: number | undefined;
  readonly plugins = new Map<string, Plugin>();
  preEnqueuePlugins: PreEnqueuePlugin[] = [];
  queueSortPlugins: QueueSortPlugin[] = [];
  preFilterPlugins: PreFilterPlugin[] = [];
  filterPlugins: FilterPlugin[] = [];
  postFilterPlugins: PostFilterPlugin[] = [];
  preScorePlugins: PreScorePlugin[] = [];
  scorePlugins: ScorePlugin[] = [];
  reservePlugins: ReservePlugin[] = [];
  permitPlugins: PermitPlugin[] = [];
  preBindPlugins: PreBindPlugin[] = [];
  bindPlugins: BindPlugin[] = [];
  postBindPlugins: PostBindPlugin[] = [];
  readonly scorePluginWeight = new Map<string, number>();
  readonly waitingPods = new WaitingPods();
  readonly clock: Clock;
  readonly client: ClusterClient;

  constructor(
    profile: Profile,
    registry: ReadonlyMap<string, PluginFactory>,
    private readonly deps: FrameworkDeps,
  ) {
    this.profileName = profile.schedulerName;
    this.percentageOfNodesToScore = profile.percentageOfNodesToScore;
    this.clock = deps.clock;
    this.client = deps.client;

    const needed = new Set<string>();
    for (const point of [...EXTENSION_POINTS, "multiPoint"] as const) for (const p of profile.plugins[point].enabled) needed.add(p.name);
    for (const name of needed) {
      const factory = registry.get(name);
      if (!factory) continue; // reported below as "<Interface> \"name\" does not exist"
      try {
        this.plugins.set(name, factory(profile.pluginConfig.get(name), this));
      } catch (e) {
        throw new Error(`initializing plugin ${JSON.stringify(name)}: ${errorMessage(e)}`);
      }
    }

    const lists = pluginsByPoint(profile, this.plugins);
    for (const point of EXTENSION_POINTS) this.setList(point, lists[point]);

    if (this.queueSortPlugins.length !== 1) {
      throw new Error(
        `only one queue sort plugin required for profile with scheduler name ${JSON.stringify(this.profileName)}, but got ${this.queueSortPlugins.length}`,
      );
    }
    if (this.bindPlugins.length === 0)
      throw new Error(`at least one bind plugin is needed for profile with scheduler name ${JSON.stringify(this.profileName)}`);
    const weights = scoreWeights(this.plugins, this.scorePlugins, [...profile.plugins.score.enabled, ...profile.plugins.multiPoint.enabled]);
    for (const [name, weight] of weights) this.scorePluginWeight.set(name, weight);
  }

  private setList(point: ExtensionPoint, list: Plugin[]): void {
    const key = `${point}Plugins` as const;
    (this as unknown as Record<string, Plugin[]>)[key] = list;
  }

  /** The events each plugin registered, for the queue's hints (EnqueueExtensions). */
  eventsToRegister(): Array<{ plugin: string } & ClusterEventWithHint> {
    return registeredEvents(this.plugins.values());
  }

  hasFilterPlugins(): boolean {
    return this.filterPlugins.length > 0;
  }

  hasScorePlugins(): boolean {
    return this.scorePlugins.length > 0;
  }

  hasPostFilterPlugins(): boolean {
    return this.postFilterPlugins.length > 0;
  }

  // -------------------------------------------------------------------------------------------
  // Handle

  snapshot(): SnapshotLister {
    return this.deps.snapshot();
  }

  random(): number {
    return this.deps.random();
  }

  nominatedPodsForNode(nodeName: string): readonly PodInfo[] {
    return this.deps.nominatedPodsForNode(nodeName);
  }

  clearNomination(pod: PodInfo): void {
    this.deps.clearNomination(pod);
  }

  background(what: string, work: Promise<void>): void {
    this.deps.background(what, work);
  }

  getWaitingPod(uid: string): WaitingPod | undefined {
    return this.waitingPods.get(uid);
  }

  iterateOverWaitingPods(fn: (wp: WaitingPod) => void): void {
    this.waitingPods.forEach(fn);
  }

  rejectWaitingPod(uid: string): boolean {
    const wp = this.waitingPods.get(uid);
    if (!wp) return false;
    wp.reject("", "removed");
    return true;
  }

  // -------------------------------------------------------------------------------------------
  // Extension points

  runPreEnqueuePlugins(pod: PodInfo): MaybeStatus {
    for (const pl of this.preEnqueuePlugins) {
      const s = pl.preEnqueue(pod.pod);
      if (s && !s.isSuccess()) return s.withPlugin(pl.name);
    }
    return undefined;
  }

  /**
   * RunPreFilterPlugins: Skip records the plugin (its Filter is skipped); UnschedulableAndUnresolvable
   * stops at once; Unschedulable is remembered while the rest still run (k/k #119770, so preemption
   * sees every plugin's state); anything else is an Error. PreFilterResults are intersected.
   */
  runPreFilterPlugins(state: CycleState, pod: PodInfo, nodes: readonly NodeInfo[]): PreFilterOutcome {
    const skip = new Set<string>();
    const withNodes = new Set<string>();
    let result: Set<string> | undefined;
    let returnStatus: MaybeStatus;
    const rec = state.recorder;
    try {
      for (const pl of this.preFilterPlugins) {
        const ret = guard<ReturnType<PreFilterPlugin["preFilter"]>>(
          () => pl.preFilter(state, pod, nodes),
          (e) => e,
        );
        const s = ret instanceof Status ? ret : undefined;
        rec?.preFilter(pl.name, s);
        if (s?.isSkip()) {
          skip.add(pl.name);
          continue;
        }
        if (s && !s.isSuccess()) {
          s.withPlugin(pl.name);
          if (s.code === Code.UnschedulableAndUnresolvable) return { nodeNames: undefined, status: s, unschedulablePlugins: new Set() };
          if (s.code === Code.Unschedulable) {
            returnStatus = s;
            continue;
          }
          return {
            nodeNames: undefined,
            status: new Status(Code.Error, [`running PreFilter plugin ${JSON.stringify(pl.name)}: ${s.message()}`], s.cause).withPlugin(pl.name),
            unschedulablePlugins: new Set(),
          };
        }
        if (ret && !(ret instanceof Status)) {
          withNodes.add(pl.name);
          result = result ? new Set([...result].filter((n) => ret.nodeNames.has(n))) : new Set(ret.nodeNames);
          if (result.size === 0) {
            const names = [...withNodes].sort();
            const msg =
              names.length === 1 ? `node(s) didn't satisfy plugin ${names[0]}` : `node(s) didn't satisfy plugin(s) [${names.join(" ")}] simultaneously`;
            return { nodeNames: result, status: new Status(Code.UnschedulableAndUnresolvable, [msg]), unschedulablePlugins: withNodes };
          }
        }
      }
      return { nodeNames: result, status: returnStatus, unschedulablePlugins: withNodes };
    } finally {
      state.skipFilterPlugins = skip;
      state.filterPluginsToRun = skip.size === 0 ? this.filterPlugins : this.filterPlugins.filter((p) => !skip.has(p.name));
    }
  }

  runPreFilterExtensionAddPod(state: CycleState, pod: PodInfo, podToAdd: PodInfo, nodeInfo: NodeInfo): MaybeStatus {
    return this.runPreFilterExtension("AddPod", state, pod, podToAdd, nodeInfo);
  }

  runPreFilterExtensionRemovePod(state: CycleState, pod: PodInfo, podToRemove: PodInfo, nodeInfo: NodeInfo): MaybeStatus {
    return this.runPreFilterExtension("RemovePod", state, pod, podToRemove, nodeInfo);
  }

  /** PreFilterExtensions.AddPod/RemovePod of every PreFilter plugin not skipped; any failure is an Error. */
  private runPreFilterExtension(op: "AddPod" | "RemovePod", state: CycleState, pod: PodInfo, other: PodInfo, nodeInfo: NodeInfo): MaybeStatus {
    for (const pl of this.preFilterPlugins) {
      const ext = pl.preFilterExtensions?.();
      if (!ext || state.skipFilterPlugins.has(pl.name)) continue;
      const s = op === "AddPod" ? ext.addPod(state, pod, other, nodeInfo) : ext.removePod(state, pod, other, nodeInfo);
      if (s && !s.isSuccess()) return new Status(Code.Error, [`running ${op} on PreFilter plugin ${JSON.stringify(pl.name)}: ${s.message()}`]);
    }
    return undefined;
  }

  /** RunFilterPlugins: plugins in order, stopping at the first that does not pass; non-rejections become Errors. */
  runFilterPlugins(state: CycleState, pod: PodInfo, nodeInfo: NodeInfo): MaybeStatus {
    const plugins = state.filterPluginsToRun ?? this.filterPlugins.filter((p) => !state.skipFilterPlugins.has(p.name));
    for (let i = 0; i < plugins.length; i++) {
      const pl = plugins[i]!;
      // Inline rather than guard(): this runs for every plugin on every node, and closures cost here.
      let s: MaybeStatus;
      try {
        s = pl.filter(state, pod, nodeInfo);
      } catch (e) {
        s = asStatus(e);
      }
      if (s && !s.isSuccess()) {
        if (!s.isRejected()) s = new Status(Code.Error, [`running ${JSON.stringify(pl.name)} filter plugin: ${s.message()}`], s.cause);
        return s.withPlugin(pl.name);
      }
    }
    return undefined;
  }

  /**
   * RunFilterPluginsWithNominatedPods: when pods of equal or higher priority are nominated to the
   * node, filter once with them counted (this pod must not take room freed for them) and, if that
   * passes, once without them (affinity to them must not count either).
   */
  runFilterPluginsWithNominatedPods(state: CycleState, pod: PodInfo, info: NodeInfo): MaybeStatus {
    const nominated = this.deps.nominatedPodsForNode(info.name);
    if (nominated.length === 0) return this.runFilterPlugins(state, pod, info);
    let stateWith = state;
    let infoWith = info;
    let added = false;
    for (const np of nominated) {
      if (np.priority >= pod.priority && np.uid !== pod.uid) {
        if (!added) {
          infoWith = info.clone();
          stateWith = state.clone();
          stateWith.recorder = undefined;
          added = true;
        }
        infoWith.addPodInfo(np);
        const s = this.runPreFilterExtensionAddPod(stateWith, pod, np, infoWith);
        if (s) return s;
      }
    }
    const first = this.runFilterPlugins(stateWith, pod, infoWith);
    if (!added || (first && !first.isSuccess())) return first;
    return this.runFilterPlugins(state, pod, info);
  }

  /** RunPostFilterPlugins: until the first Success, Error or UnschedulableAndUnresolvable; else the reasons combined. */
  runPostFilterPlugins(state: CycleState, pod: PodInfo, statuses: NodeToStatus): { result?: PostFilterResult; status: MaybeStatus } {
    let result: PostFilterResult | undefined;
    const reasons: string[] = [];
    let rejector = "";
    for (const pl of this.postFilterPlugins) {
      const out = guard<ReturnType<PostFilterPlugin["postFilter"]>>(
        () => pl.postFilter(state, pod, statuses),
        (e) => ({ status: e }),
      );
      const s = out.status;
      if (!s || s.isSuccess()) return out;
      if (s.code === Code.UnschedulableAndUnresolvable) return { result: out.result, status: s.withPlugin(pl.name) };
      if (!s.isRejected()) return { status: new Status(Code.Error, [s.message()], s.cause).withPlugin(pl.name) };
      if (out.result && out.result.nominatedNodeName !== undefined) result = out.result;
      reasons.push(...s.reasons);
      if (!rejector) rejector = pl.name;
    }
    return { result, status: new Status(Code.Unschedulable, reasons).withPlugin(rejector) };
  }

  /** RunPreScorePlugins: Skip records the plugin (its Score is skipped); anything but success is an Error. */
  runPreScorePlugins(state: CycleState, pod: PodInfo, nodes: readonly NodeInfo[]): MaybeStatus {
    const skip = new Set<string>();
    try {
      for (const pl of this.preScorePlugins) {
        const s = guard<MaybeStatus>(
          () => pl.preScore(state, pod, nodes),
          (e) => e,
        );
        state.recorder?.point("preScore", pl.name, s);
        if (s?.isSkip()) {
          skip.add(pl.name);
          continue;
        }
        if (s && !s.isSuccess()) return new Status(Code.Error, [`running PreScore plugin ${JSON.stringify(pl.name)}: ${s.message()}`], s.cause);
      }
      return undefined;
    } finally {
      state.skipScorePlugins = skip;
    }
  }

  /**
   * RunScorePlugins: each plugin scores each node, NormalizeScore brings its scores into [0, 100]
   * (anything outside is an error), then each is multiplied by the plugin's weight and summed.
   */
  runScorePlugins(state: CycleState, pod: PodInfo, nodes: readonly NodeInfo[]): ScoreOutcome | Status {
    const plugins = this.scorePlugins.filter((p) => !state.skipScorePlugins.has(p.name));
    const explaining = !!state.recorder;
    const n = nodes.length;
    const normalized: Float64Array[] = [];
    const raw: Float64Array[] = [];
    for (const pl of plugins) {
      const scores = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        let s: number | Status;
        try {
          s = pl.score(state, pod, nodes[i]!);
        } catch (e) {
          s = asStatus(e);
        }
        if (typeof s !== "number")
          return new Status(Code.Error, [`running Score plugins: plugin ${JSON.stringify(pl.name)} failed with: ${s.message()}`], s.cause);
        scores[i] = s;
      }
      if (explaining) raw.push(scores.slice());
      if (pl.normalizeScore) {
        const list: NodeScore[] = new Array(n);
        for (let i = 0; i < n; i++) list[i] = { name: nodes[i]!.name, score: scores[i]! };
        const s = pl.normalizeScore(state, pod, list);
        if (s && !s.isSuccess())
          return new Status(Code.Error, [`running Normalize on Score plugins: plugin ${JSON.stringify(pl.name)} failed with: ${s.message()}`], s.cause);
        for (let i = 0; i < n; i++) scores[i] = list[i]!.score;
      }
      normalized.push(scores);
    }
    const totals = new Float64Array(n);
    for (let p = 0; p < plugins.length; p++) {
      const pl = plugins[p]!;
      const weight = this.scorePluginWeight.get(pl.name) ?? 1;
      const scores = normalized[p]!;
      for (let i = 0; i < n; i++) {
        const score = scores[i]!;
        if (score > MAX_NODE_SCORE || score < MIN_NODE_SCORE) {
          return new Status(Code.Error, [
            `applying score defaultWeights on Score plugins: plugin ${JSON.stringify(pl.name)} returns an invalid score ${score}, it should in the range of [${MIN_NODE_SCORE}, ${MAX_NODE_SCORE}] after normalizing`,
          ]);
        }
        totals[i]! += score * weight;
      }
    }
    return { nodes, totals, plugins, normalized, raw: explaining ? raw : undefined };
  }

  /** RunReservePluginsReserve: in order, stopping at the first failure. */
  runReservePluginsReserve(state: CycleState, pod: PodInfo, nodeName: string): MaybeStatus {
    for (const pl of this.reservePlugins) {
      const s = guard<MaybeStatus>(
        () => pl.reserve(state, pod, nodeName),
        (e) => e,
      );
      state.recorder?.point("reserve", pl.name, s);
      if (s && !s.isSuccess()) return rejectionOrError("Reserve", pl.name, s);
    }
    return undefined;
  }

  /** RunReservePluginsUnreserve: every reserve plugin, in reverse order. */
  runReservePluginsUnreserve(state: CycleState, pod: PodInfo, nodeName: string): void {
    for (let i = this.reservePlugins.length - 1; i >= 0; i--) {
      // Unreserve cannot fail the pod any further; upstream has no error return either.
      guard(
        () => this.reservePlugins[i]!.unreserve(state, pod, nodeName),
        () => undefined,
      );
    }
  }

  /**
   * RunPermitPlugins: a rejection stops at once; Wait is collected (capped at 15 minutes) and the
   * pod becomes a waiting pod; an error stops.
   */
  runPermitPlugins(state: CycleState, pod: PodInfo, nodeName: string): MaybeStatus {
    const waits = new Map<string, number>();
    for (const pl of this.permitPlugins) {
      const out = guard<{ status: MaybeStatus; timeoutMs: number }>(
        () => pl.permit(state, pod, nodeName),
        (e) => ({ status: e, timeoutMs: 0 }),
      );
      const s = out.status;
      state.recorder?.point("permit", pl.name, s);
      if (!s || s.isSuccess()) continue;
      if (s.isRejected()) return s.withPlugin(pl.name);
      if (s.isWait()) {
        waits.set(pl.name, Math.min(out.timeoutMs, MAX_PERMIT_TIMEOUT_MS));
        continue;
      }
      return new Status(Code.Error, [`running Permit plugin ${JSON.stringify(pl.name)}: ${s.message()}`], s.cause).withPlugin(pl.name);
    }
    if (waits.size > 0) {
      this.waitingPods.add(new WaitingPodEntry(pod, waits, this.clock));
      return new Status(Code.Wait, [`one or more plugins asked to wait and no plugin rejected pod ${JSON.stringify(pod.name)}`]);
    }
    return undefined;
  }

  /** WaitOnPermit: the first step of the binding cycle; resolves when the waiting pod is allowed or rejected. */
  async waitOnPermit(pod: PodInfo): Promise<MaybeStatus> {
    const wp = this.waitingPods.get(pod.uid);
    if (!wp) return undefined;
    try {
      const s = await wp.decision;
      if (!s || s.isSuccess()) return undefined;
      if (s.isRejected()) return s;
      return new Status(Code.Error, [`waiting on permit for pod: ${s.message()}`]).withPlugin(s.plugin);
    } finally {
      this.waitingPods.remove(pod.uid);
    }
  }

  async runPreBindPlugins(state: CycleState, pod: PodInfo, nodeName: string): Promise<MaybeStatus> {
    for (const pl of this.preBindPlugins) {
      const s = await guardAsync(() => pl.preBind(state, pod, nodeName));
      state.recorder?.point("preBind", pl.name, s);
      if (s && !s.isSuccess()) return rejectionOrError("PreBind", pl.name, s);
    }
    return undefined;
  }

  /** RunBindPlugins: in order until one does not Skip. */
  async runBindPlugins(state: CycleState, pod: PodInfo, nodeName: string): Promise<MaybeStatus> {
    let s: MaybeStatus = new Status(Code.Skip);
    for (const pl of this.bindPlugins) {
      s = await guardAsync(() => pl.bind(state, pod, nodeName));
      state.recorder?.point("bind", pl.name, s);
      if (s?.isSkip()) continue;
      if (s && !s.isSuccess()) return rejectionOrError("Bind", pl.name, s);
      return s;
    }
    return s;
  }

  runPostBindPlugins(state: CycleState, pod: PodInfo, nodeName: string): void {
    for (const pl of this.postBindPlugins) {
      // PostBind is informational: a failure changes nothing.
      guard(
        () => pl.postBind(state, pod, nodeName),
        () => undefined,
      );
    }
  }
}
