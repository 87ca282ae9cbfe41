// kube-controller-manager's node lifecycle controller for the test API server (issue 27), off unless
// TestApiServerOptions.nodeLifecycle asks for it. What it does, as pkg/controller/nodelifecycle's
// monitorNodeHealth / tryUpdateNodeHealth / doNoScheduleTaintingPass / doNoExecuteTaintingPass do:
//
//   Health. Every `periodMs` (--node-monitor-period, 5 s) each Node is judged by the last time this
//   controller SAW a sign of life: its Ready condition's lastHeartbeatTime changing, or its Lease in
//   kube-node-lease getting a later renewTime (the probe timestamp is this controller's clock at the
//   moment it noticed, not the time written in the object). A node with no Ready condition gets the
//   start-up grace (--node-startup-grace-period, 60 s, counted from creation), others the monitor grace
//   (--node-monitor-grace-period, 50 s in 1.36). When the grace has run out, Ready, MemoryPressure,
//   DiskPressure and PIDPressure become Unknown, reason NodeStatusUnknown, message "Kubelet stopped
//   posting node status." (a missing one is added as NodeStatusNeverUpdated, "Kubelet never posted
//   node status."); NetworkUnavailable is left alone. The status is written only when Ready changed.
//   When Ready leaves True, the Ready condition of every pod bound to the node becomes False
//   (MarkPodsNotReady).
//
//   NoSchedule taints mirror the conditions (Ready False → node.kubernetes.io/not-ready, Ready Unknown →
//   node.kubernetes.io/unreachable, *Pressure/NetworkUnavailable True → their taints, spec.unschedulable
//   → node.kubernetes.io/unschedulable), on every Node change and every pass.
//
//   NoExecute taints: Ready False → not-ready:NoExecute, Unknown → unreachable:NoExecute (one swapped
//   for the other at once), Ready True → both removed. They are added through a per-zone queue that
//   zone disruption gates: when EVERY node of the cluster is not Ready (all zones fully disrupted) the
//   controller removes the NoExecute taints of all nodes and adds none ("master disruption mode"), and
//   a zone in partial disruption (more than 2 and at least 55 % not Ready) of at most 50 nodes gets
//   none. So one stopped node among Ready ones gets both unreachable taints; a cluster's only node gets
//   only the NoSchedule one. Coming out of full disruption every node's probe timestamp is reset.
//
// Left out: events (RegisteredNode, NodeNotReady), the eviction rate limit inside a zone (taints are
// added on the next pass, not 0.1 per second), and label reconciliation.
import type { Lease } from "kubernetes-types/coordination/v1";
import type { Node, NodeCondition, Pod, Taint } from "kubernetes-types/core/v1";
import type { AnyObject } from "./objects";
import { type Registry, timestamp } from "./registry";

export interface NodeLifecycleOptions {
  /** --node-monitor-grace-period: how long a node may go unseen before it is Unknown. Default 50 s. */
  gracePeriodMs?: number;
  /** --node-startup-grace-period: the same for a node that never posted a Ready condition. Default 60 s. */
  startupGracePeriodMs?: number;
  /** --node-monitor-period: how often the nodes are judged. Default 5 s. */
  periodMs?: number;
}

export const NODE_MONITOR_GRACE_MS = 50_000;
export const NODE_STARTUP_GRACE_MS = 60_000;
export const NODE_MONITOR_PERIOD_MS = 5_000;

const UNREACHABLE = "node.kubernetes.io/unreachable";
const NOT_READY = "node.kubernetes.io/not-ready";
const UNSCHEDULABLE = "node.kubernetes.io/unschedulable";
/** Which taint a condition in which status calls for (nodeConditionToTaintKeyStatusMap). */
const CONDITION_TAINTS: Record<string, Record<string, string>> = {
  Ready: { False: NOT_READY, Unknown: UNREACHABLE },
  MemoryPressure: { True: "node.kubernetes.io/memory-pressure" },
  DiskPressure: { True: "node.kubernetes.io/disk-pressure" },
  NetworkUnavailable: { True: "node.kubernetes.io/network-unavailable" },
  PIDPressure: { True: "node.kubernetes.io/pid-pressure" },
};
const CONDITION_TAINT_KEYS = new Set(Object.values(CONDITION_TAINTS).flatMap((m) => Object.values(m)));
const WATCHED_CONDITIONS = ["Ready", "MemoryPressure", "DiskPressure", "PIDPressure"];
const EXCLUDE_DISRUPTION = "node.kubernetes.io/exclude-disruption";
const UNHEALTHY_ZONE_THRESHOLD = 0.55;
const LARGE_CLUSTER_THRESHOLD = 50;

type ZoneState = "Initial" | "Normal" | "PartialDisruption" | "FullDisruption";

/** What the controller remembers of a node between passes (nodeHealthData). */
interface Health {
  ready?: NodeCondition;
  probe: number;
  transition: number;
  leaseRenew?: number;
}

const SMP = "application/strategic-merge-patch+json";
const readyOf = (n: Node) => n.status?.conditions?.find((c) => c.type === "Ready");
const hasTaint = (n: Node, key: string, effect: string) => (n.spec?.taints ?? []).some((t) => t.key === key && t.effect === effect);
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** GetZoneKey: region and zone labels (beta names first), "" when neither is set. */
function zoneOf(n: Node): string {
  const l = n.metadata?.labels ?? {};
  const zone = l["failure-domain.beta.kubernetes.io/zone"] ?? l["topology.kubernetes.io/zone"] ?? "";
  const region = l["failure-domain.beta.kubernetes.io/region"] ?? l["topology.kubernetes.io/region"] ?? "";
  return region || zone ? `${region}:\0:${zone}` : "";
}

export class NodeLifecycleController {
  private readonly health = new Map<string, Health>();
  private readonly known = new Set<string>();
  private readonly zoneStates = new Map<string, ZoneState>();
  /** The per-zone NoExecute tainting queue: pending, or done (kept so a node is not tainted twice). */
  private readonly tainting = new Map<string, "pending" | "done">();
  /** Zones whose tainting queue may proceed (the rate limiter swapped to 0 or not). */
  private readonly zoneOpen = new Map<string, boolean>();
  private timer?: ReturnType<typeof setInterval>;
  private unwatch?: () => void;
  private noSchedulePending = new Set<string>();
  readonly gracePeriodMs: number;
  readonly startupGracePeriodMs: number;
  readonly periodMs: number;

  constructor(
    private readonly registry: Registry,
    private readonly now: () => number,
    opts: NodeLifecycleOptions = {},
  ) {
    this.gracePeriodMs = opts.gracePeriodMs ?? NODE_MONITOR_GRACE_MS;
    this.startupGracePeriodMs = opts.startupGracePeriodMs ?? NODE_STARTUP_GRACE_MS;
    this.periodMs = opts.periodMs ?? NODE_MONITOR_PERIOD_MS;
  }

  /** Runs a pass every periodMs and the NoSchedule pass after every Node change, until stop(). */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.monitor(), this.periodMs);
    this.unwatch = this.registry.watch({
      resource: "nodes",
      match: () => true,
      from: this.registry.resourceVersion,
      send: (_type, obj) => this.queueNoSchedule(obj.metadata?.name ?? ""),
    });
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.unwatch?.();
    this.unwatch = undefined;
  }

  /** One monitorNodeHealth pass (the timer calls it; tests with a fake clock call it directly). */
  monitor(): void {
    const nodes = this.registry.list("nodes") as Node[];
    const names = new Set(nodes.map((n) => n.metadata?.name ?? ""));
    for (const n of nodes) {
      const name = n.metadata?.name ?? "";
      const zone = zoneOf(n);
      if (!this.zoneStates.has(zone)) {
        this.zoneStates.set(zone, "Initial");
        this.zoneOpen.set(zone, true);
      }
      if (!this.known.has(name)) {
        this.known.add(name);
        this.markReachable(name);
      }
    }
    for (const name of this.known) if (!names.has(name)) this.known.delete(name);
    const zoneReady = new Map<string, Array<NodeCondition | undefined>>();
    for (const { metadata } of nodes) {
      const name = metadata?.name ?? "";
      const node = this.node(name);
      if (!node) continue;
      const { observed, current } = this.updateHealth(node);
      if (!(EXCLUDE_DISRUPTION in (node.metadata?.labels ?? {}))) {
        const zone = zoneOf(node);
        zoneReady.set(zone, [...(zoneReady.get(zone) ?? []), current]);
      }
      if (!current) continue;
      this.noExecuteFor(name, current.status ?? "");
      if (current.status !== "True" && observed.status === "True") this.markPodsNotReady(name);
    }
    this.handleDisruption(zoneReady, nodes);
    this.drainTainting();
    for (const n of nodes) this.noSchedule(n.metadata?.name ?? "");
  }

  private node(name: string): Node | undefined {
    return this.registry.get("nodes", undefined, name) as Node | undefined;
  }

  /** tryUpdateNodeHealth: the Ready condition as it was seen (observed) and as it is after this pass. */
  private updateHealth(node: Node): { observed: NodeCondition; current?: NodeCondition } {
    const name = node.metadata?.name ?? "";
    const now = this.now();
    const created = Date.parse(node.metadata?.creationTimestamp ?? "") || now;
    let health = this.health.get(name);
    let current = readyOf(node);
    let observed: NodeCondition;
    let grace: number;
    if (!current) {
      const at = node.metadata?.creationTimestamp;
      observed = { type: "Ready", status: "Unknown", lastHeartbeatTime: at, lastTransitionTime: at };
      grace = this.startupGracePeriodMs;
      health = health ? { ...health, ready: undefined } : { probe: created, transition: created };
    } else {
      observed = structuredClone(current);
      grace = this.gracePeriodMs;
    }
    const saved = health?.ready;
    const savedLease = health?.leaseRenew;
    if (!health || (!saved && current) || (saved && !current)) health = { ready: current, probe: now, transition: now };
    else if (saved && current && saved.lastHeartbeatTime !== current.lastHeartbeatTime) {
      const transition = saved.lastTransitionTime !== current.lastTransitionTime ? now : health.transition;
      health = { ready: current, probe: now, transition };
    }
    const lease = this.registry.get("leases", "kube-node-lease", name) as Lease | undefined;
    const renew = lease?.spec?.renewTime ? Date.parse(lease.spec.renewTime) : undefined;
    if (lease && renew !== undefined && (savedLease === undefined || savedLease < renew)) health = { ...health, leaseRenew: renew, probe: now };
    this.health.set(name, health);
    if (now <= health.probe + grace) return { observed, current };

    const conditions = structuredClone(node.status?.conditions ?? []);
    const at = timestamp(now);
    for (const type of WATCHED_CONDITIONS) {
      const c = conditions.find((x) => x.type === type);
      if (!c) {
        conditions.push({
          type,
          status: "Unknown",
          reason: "NodeStatusNeverUpdated",
          message: "Kubelet never posted node status.",
          lastHeartbeatTime: node.metadata?.creationTimestamp,
          lastTransitionTime: at,
        });
      } else if (c.status !== "Unknown") {
        Object.assign(c, { status: "Unknown", reason: "NodeStatusUnknown", message: "Kubelet stopped posting node status.", lastTransitionTime: at });
      }
    }
    current = conditions.find((c) => c.type === "Ready");
    if (same(current, observed)) return { observed, current };
    this.registry.update("nodes", { ...node, status: { ...node.status, conditions } } as AnyObject, "status");
    this.health.set(name, { ready: current, probe: health.probe, transition: now, leaseRenew: renew });
    return { observed, current };
  }

  /** processTaintBaseEviction: swap at once when the opposite taint is there, otherwise queue. */
  private noExecuteFor(name: string, status: string): void {
    const node = this.node(name);
    if (!node) return;
    const zone = zoneOf(node);
    if (status === "True") return void this.markReachable(name);
    if (status !== "False" && status !== "Unknown") return;
    const [add, opposite] = status === "False" ? [NOT_READY, UNREACHABLE] : [UNREACHABLE, NOT_READY];
    if (hasTaint(node, opposite, "NoExecute")) return void this.swapTaints(name, [add], [opposite], "NoExecute");
    const key = `${zone}/${name}`;
    if (!hasTaint(node, add, "NoExecute")) {
      if (this.tainting.get(key) === "done") this.tainting.delete(key);
    }
    if (!this.tainting.has(key)) this.tainting.set(key, "pending");
  }

  /** doNoExecuteTaintingPass: the queued nodes of every zone whose limiter is not 0. */
  private drainTainting(): void {
    for (const [key, state] of this.tainting) {
      if (state !== "pending") continue;
      const zone = key.slice(0, key.lastIndexOf("/"));
      const name = key.slice(key.lastIndexOf("/") + 1);
      if (!this.zoneOpen.get(zone)) continue;
      const node = this.node(name);
      if (!node) {
        this.tainting.delete(key);
        continue;
      }
      const status = readyOf(node)?.status;
      if (!status) continue;
      if (status === "False") this.swapTaints(name, [NOT_READY], [UNREACHABLE], "NoExecute");
      else if (status === "Unknown") this.swapTaints(name, [UNREACHABLE], [NOT_READY], "NoExecute");
      this.tainting.set(key, "done");
    }
  }

  /** markNodeAsReachable: both NoExecute taints off, the node out of the tainting queue. */
  private markReachable(name: string): void {
    const node = this.node(name);
    if (!node) return;
    this.swapTaints(name, [], [UNREACHABLE, NOT_READY], "NoExecute");
    this.tainting.delete(`${zoneOf(node)}/${name}`);
  }

  /** SwapNodeControllerTaint: adds (timeAdded now) and removes taints of one effect, by a patch of spec.taints. */
  private swapTaints(name: string, add: string[], remove: string[], effect: "NoSchedule" | "NoExecute"): void {
    const node = this.node(name);
    if (!node) return;
    const old = node.spec?.taints ?? [];
    const kept = old.filter((t) => !(t.effect === effect && remove.includes(t.key)));
    const added: Taint[] = add.filter((k) => !hasTaint(node, k, effect)).map((key) => ({ key, effect, timeAdded: timestamp(this.now()) }));
    if (kept.length === old.length && !added.length) return;
    const taints = [...kept, ...added];
    this.registry.patch("nodes", undefined, name, SMP, { metadata: { resourceVersion: node.metadata?.resourceVersion }, spec: { taints } });
  }

  private queueNoSchedule(name: string): void {
    if (!name || this.noSchedulePending.has(name)) return;
    this.noSchedulePending.add(name);
    queueMicrotask(() => {
      this.noSchedulePending.delete(name);
      if (this.timer) this.noSchedule(name);
    });
  }

  /** doNoScheduleTaintingPass: the node's condition (and unschedulable) NoSchedule taints made to match. */
  private noSchedule(name: string): void {
    const node = this.node(name);
    if (!node) return;
    const want = new Set<string>();
    for (const c of node.status?.conditions ?? []) {
      const key = CONDITION_TAINTS[c.type]?.[c.status];
      if (key) want.add(key);
    }
    if (node.spec?.unschedulable) want.add(UNSCHEDULABLE);
    const have = (node.spec?.taints ?? []).filter((t) => t.effect === "NoSchedule" && (t.key === UNSCHEDULABLE || CONDITION_TAINT_KEYS.has(t.key)));
    const add = [...want].filter((k) => !have.some((t) => t.key === k));
    const remove = have.map((t) => t.key).filter((k) => !want.has(k));
    if (add.length || remove.length) this.swapTaints(name, add, remove, "NoSchedule");
  }

  /** MarkPodsNotReady: each pod bound to the node with a Ready condition gets it False. */
  private markPodsNotReady(nodeName: string): void {
    const at = timestamp(this.now());
    for (const pod of this.registry.list("pods") as Pod[]) {
      if (pod.spec?.nodeName !== nodeName) continue;
      const conditions = pod.status?.conditions ?? [];
      const ready = conditions.find((c) => c.type === "Ready");
      if (!ready || ready.status === "False") continue;
      const next = conditions.map((c) => (c === ready ? { ...c, status: "False", lastTransitionTime: at } : c));
      try {
        this.registry.update("pods", { ...pod, status: { ...pod.status, conditions: next } } as AnyObject, "status");
      } catch {
        // Deleted meanwhile: nothing left to mark.
      }
    }
  }

  /** handleDisruption: zone states, master disruption mode, and which zones' tainting may proceed. */
  private handleDisruption(zoneReady: Map<string, Array<NodeCondition | undefined>>, nodes: Node[]): void {
    const next = new Map<string, ZoneState>();
    for (const [zone, conds] of zoneReady) next.set(zone, zoneState(conds));
    const allAre = [...next.values()].every((s) => s === "FullDisruption");
    let allWas = true;
    for (const [zone, state] of this.zoneStates) {
      if (!zoneReady.has(zone)) {
        this.zoneStates.delete(zone);
        continue;
      }
      if (state !== "FullDisruption") {
        allWas = false;
        break;
      }
    }
    if (allAre && allWas) return;
    if (allAre) {
      for (const n of nodes) this.markReachable(n.metadata?.name ?? "");
      for (const zone of this.zoneStates.keys()) {
        this.zoneOpen.set(zone, false);
        this.zoneStates.set(zone, "FullDisruption");
      }
      return;
    }
    if (allWas) {
      const now = this.now();
      for (const [name, h] of this.health) this.health.set(name, { ...h, probe: now, transition: now });
    }
    for (const [zone, state] of this.zoneStates) {
      const s = next.get(zone) ?? state;
      if (!allWas && s === state) continue;
      this.zoneOpen.set(zone, s !== "PartialDisruption" || (zoneReady.get(zone)?.length ?? 0) > LARGE_CLUSTER_THRESHOLD);
      this.zoneStates.set(zone, s);
    }
  }
}

/** ComputeZoneState: no Ready node is full disruption; more than 2 and at least 55 % not Ready is partial. */
function zoneState(conds: Array<NodeCondition | undefined>): ZoneState {
  const ready = conds.filter((c) => c?.status === "True").length;
  const notReady = conds.length - ready;
  if (ready === 0 && notReady > 0) return "FullDisruption";
  if (notReady > 2 && notReady / conds.length >= UNHEALTHY_ZONE_THRESHOLD) return "PartialDisruption";
  return "Normal";
}
