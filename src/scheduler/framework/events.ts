// Cluster events (pkg/scheduler/framework types.go and k8s.io/kube-scheduler/framework): a resource
// and a bit set of actions. Plugins register the events that may make a pod they rejected
// schedulable, each with a QueueingHint function; the queue moves a pod only for events one of its
// rejecting plugins registered and says Queue to.
import type { Node, Pod } from "kubernetes-types/core/v1";
import { podRequests } from "../model/resource";

/** ActionType bits, in upstream's order. */
export const Action = {
  Add: 1 << 0,
  Delete: 1 << 1,
  UpdateNodeAllocatable: 1 << 2,
  UpdateNodeLabel: 1 << 3,
  UpdateNodeTaint: 1 << 4,
  UpdateNodeCondition: 1 << 5,
  UpdateNodeAnnotation: 1 << 6,
  UpdatePodLabel: 1 << 7,
  UpdatePodScaleDown: 1 << 8,
  UpdatePodToleration: 1 << 9,
  UpdatePodSchedulingGatesEliminated: 1 << 10,
  UpdatePodGeneratedResourceClaim: 1 << 11,
  updatePodOther: 1 << 12,
  updateNodeOther: 1 << 13,
} as const;

const UPDATE = (1 << 14) - 1 - Action.Add - Action.Delete;
export const ActionAll = (1 << 14) - 1;

/**
 * Pod matches AssignedPod and UnschedulablePod (the two internal kinds the queue emits); "*" is the
 * wildcard resource.
 */
export type EventResource = "Pod" | "AssignedPod" | "UnschedulablePod" | "Node" | "Namespace" | "*";

export interface ClusterEvent {
  resource: EventResource;
  actionType: number;
  /** Set for the special events (UnschedulableTimeout, ForceActivate) whose label is not derived. */
  customLabel?: string;
}

export function isWildCard(e: ClusterEvent): boolean {
  return e.resource === "*" && e.actionType === ActionAll;
}

/** framework.MatchClusterEvents: does the incoming event match what a plugin registered? */
export function matchClusterEvents(registered: ClusterEvent, incoming: ClusterEvent): boolean {
  if (isWildCard(registered)) return true;
  const resourceMatches =
    registered.resource === incoming.resource ||
    registered.resource === "*" ||
    (registered.resource === "Pod" && (incoming.resource === "AssignedPod" || incoming.resource === "UnschedulablePod"));
  return resourceMatches && (registered.actionType & incoming.actionType) !== 0;
}

export function matchAnyClusterEvent(incoming: ClusterEvent, registered: readonly ClusterEvent[]): boolean {
  return registered.some((r) => matchClusterEvents(r, incoming));
}

export const EVENT_UNSCHEDULABLE_TIMEOUT: ClusterEvent = { resource: "*", actionType: ActionAll, customLabel: "UnschedulableTimeout" };
export const EVENT_FORCE_ACTIVATE: ClusterEvent = { resource: "*", actionType: ActionAll, customLabel: "ForceActivate" };
export const EVENT_ASSIGNED_POD_ADD: ClusterEvent = { resource: "AssignedPod", actionType: Action.Add };
export const EVENT_ASSIGNED_POD_DELETE: ClusterEvent = { resource: "AssignedPod", actionType: Action.Delete };
export const EVENT_NODE_ADD: ClusterEvent = { resource: "Node", actionType: Action.Add };
export const EVENT_NODE_DELETE: ClusterEvent = { resource: "Node", actionType: Action.Delete };

/** The queue's own labels for why a pod entered a queue (scheduler_queue_incoming_pods_total{event}). */
export const QueueEvent = {
  PodAdd: "UnscheduledPodAdd",
  PodUpdate: "UnscheduledPodUpdate",
  ScheduleAttemptFailure: "ScheduleAttemptFailure",
  BackoffComplete: "BackoffComplete",
  ForceActivate: "ForceActivate",
} as const;

function sameJSON(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

/**
 * framework.NodeSchedulingPropertiesChange: the update events a node change amounts to (several at
 * once when several properties changed); empty when nothing the scheduler reads changed.
 */
export function nodeUpdateEvents(oldNode: Node, newNode: Node): ClusterEvent[] {
  let bits = 0;
  if (!sameJSON(oldNode.status?.allocatable, newNode.status?.allocatable)) bits |= Action.UpdateNodeAllocatable;
  if (!sameJSON(oldNode.metadata?.labels, newNode.metadata?.labels)) bits |= Action.UpdateNodeLabel;
  if (!sameJSON(oldNode.spec?.taints, newNode.spec?.taints) || !!oldNode.spec?.unschedulable !== !!newNode.spec?.unschedulable) bits |= Action.UpdateNodeTaint;
  const conditions = (n: Node) => (n.status?.conditions ?? []).map((c) => `${c.type}=${c.status}`).sort();
  if (!sameJSON(conditions(oldNode), conditions(newNode))) bits |= Action.UpdateNodeCondition;
  if (!sameJSON(oldNode.metadata?.annotations, newNode.metadata?.annotations)) bits |= Action.UpdateNodeAnnotation;
  const events: ClusterEvent[] = [];
  for (const bit of [Action.UpdateNodeAllocatable, Action.UpdateNodeLabel, Action.UpdateNodeTaint, Action.UpdateNodeCondition, Action.UpdateNodeAnnotation]) {
    if (bits & bit) events.push({ resource: "Node", actionType: bit });
  }
  return events;
}

/** Whether any request of the new pod is lower than the old one's (a scale-down frees resources). */
function scaledDown(oldPod: Pod, newPod: Pod): boolean {
  const before = podRequests(oldPod);
  const after = podRequests(newPod);
  for (const [k, v] of before) if ((after.get(k) ?? 0) < v) return true;
  return false;
}

/**
 * framework.PodSchedulingPropertiesChange: the update events a pod change amounts to. The resource
 * is AssignedPod or UnschedulablePod depending on whether the new pod is bound.
 */
export function podUpdateEvents(oldPod: Pod, newPod: Pod): ClusterEvent[] {
  const resource: EventResource = newPod.spec?.nodeName ? "AssignedPod" : "UnschedulablePod";
  const events: ClusterEvent[] = [];
  const add = (bit: number) => events.push({ resource, actionType: bit });
  if (!sameJSON(oldPod.metadata?.labels, newPod.metadata?.labels)) add(Action.UpdatePodLabel);
  if (scaledDown(oldPod, newPod)) add(Action.UpdatePodScaleDown);
  const newTolerations = newPod.spec?.tolerations ?? [];
  const oldTolerations = oldPod.spec?.tolerations ?? [];
  if (!sameJSON(oldTolerations, newTolerations)) add(Action.UpdatePodToleration);
  if ((oldPod.spec?.schedulingGates ?? []).length > 0 && (newPod.spec?.schedulingGates ?? []).length === 0) add(Action.UpdatePodSchedulingGatesEliminated);
  if (events.length === 0) add(Action.updatePodOther);
  return events;
}
