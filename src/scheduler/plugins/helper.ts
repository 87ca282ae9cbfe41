// Helpers several plugins share (pkg/scheduler/framework/plugins/helper).
import type { Node } from "kubernetes-types/core/v1";
import type { NodeScore } from "../framework/interface";

/**
 * DefaultNormalizeScore: scales scores so the highest becomes maxPriority (integer arithmetic, as
 * Go's int64); reverse flips them (fewer is better). All zero: 0, or maxPriority when reversed.
 */
export function defaultNormalizeScore(maxPriority: number, reverse: boolean, scores: NodeScore[]): void {
  let max = 0;
  for (const s of scores) if (s.score > max) max = s.score;
  if (max === 0) {
    if (reverse) for (const s of scores) s.score = maxPriority;
    return;
  }
  for (const s of scores) {
    let v = Math.trunc((maxPriority * s.score) / max);
    if (reverse) v = maxPriority - v;
    s.score = v;
  }
}

/** A node event's objects (schedutil.As); throws when there is no new node. */
export function asNodes(oldObj: unknown, newObj: unknown): { oldNode: Node | undefined; newNode: Node } {
  if (!newObj) throw new Error("the event carries no node");
  return { oldNode: oldObj as Node | undefined, newNode: newObj as Node };
}

/** A plugin argument with its default, checked against its range as the config validation does. */
export function intArg(name: string, value: number | undefined, fallback: number, min: number, max: number): number {
  const v = value ?? fallback;
  if (v < min || v > max) throw new Error(`${name}: Invalid value: ${v}: not in valid range [${min}, ${max === Infinity ? "inf)" : `${max}]`}`);
  return v;
}
