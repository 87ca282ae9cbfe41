// What the pods/status endpoint does with observedGeneration (1.36 pod strategy, the status strategy's
// PrepareForUpdate: preserveOldObservedGeneration): a write that leaves status.observedGeneration, or
// a condition's, unset (0) keeps the stored value; a value that is set is kept as written, lower or not.
// Conditions are matched by type, the n-th of a type with the n-th stored one of that type.
import type { Pod } from "kubernetes-types/core/v1";

type WithGeneration = { observedGeneration?: number };

export function preserveObservedGeneration(old: Pod, next: Pod): void {
  const oldStatus = (old.status ?? {}) as WithGeneration;
  const status = (next.status ?? {}) as WithGeneration & { conditions?: Array<{ type: string } & WithGeneration> };
  if (!status.observedGeneration && oldStatus.observedGeneration) status.observedGeneration = oldStatus.observedGeneration;
  const stored = new Map<string, number[]>();
  for (const c of (old.status?.conditions ?? []) as Array<{ type: string } & WithGeneration>) {
    stored.set(c.type, [...(stored.get(c.type) ?? []), c.observedGeneration ?? 0]);
  }
  for (const c of status.conditions ?? []) {
    const generations = stored.get(c.type) ?? [];
    const previous = generations.shift() ?? 0;
    if (!c.observedGeneration && previous) c.observedGeneration = previous;
  }
}
