// The node's own labels and taints as the operator gives them (--node-labels, --register-with-taints):
// parsed and checked at start, so a bad key fails the agent's start instead of its registration.
import type { Taint } from "kubernetes-types/core/v1";
import { labelValueError, qualifiedNameError } from "../api";

/**
 * Parses --node-labels: "a=b,c=d" → { a: "b", c: "d" }. Spaces around keys and values are trimmed
 * and a repeated key takes the last value, as the kubelet's mapStringString flag does.
 */
export function parseLabels(spec: string): Record<string, string> {
  const labels: Record<string, string> = {};
  if (spec.trim() === "") return labels;
  for (const item of spec.split(",")) {
    const eq = item.indexOf("=");
    if (eq < 0) throw new Error(`invalid label ${JSON.stringify(item.trim())}: expected key=value`);
    const key = item.slice(0, eq).trim();
    const value = item.slice(eq + 1).trim();
    const err = qualifiedNameError(key) ?? labelValueError(value);
    if (err) throw new Error(`invalid label ${JSON.stringify(item.trim())}: ${err}`);
    labels[key] = value;
  }
  return labels;
}

const TAINT_EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"] as const;

/**
 * Parses one --register-with-taints entry, "<key>=<value>:<effect>" or "<key>:<effect>"
 * (k/k pkg/util/taints parseTaint). The effect is required: the API server rejects a node taint
 * without one, so we fail at start instead of at registration.
 */
export function parseTaint(spec: string): Taint {
  const s = spec.trim();
  const colon = s.split(":");
  if (colon.length === 1)
    throw new Error(
      `invalid taint ${JSON.stringify(s)}: missing effect; expected key=value:effect or key:effect with effect one of ${TAINT_EFFECTS.join(", ")}`,
    );
  if (colon.length > 2) throw new Error(`invalid taint ${JSON.stringify(s)}: expected key=value:effect or key:effect`);
  const effect = colon[1]!;
  if (!(TAINT_EFFECTS as readonly string[]).includes(effect))
    throw new Error(`invalid taint ${JSON.stringify(s)}: effect ${JSON.stringify(effect)} must be one of ${TAINT_EFFECTS.join(", ")}`);
  const kv = colon[0]!.split("=");
  if (kv.length > 2) throw new Error(`invalid taint ${JSON.stringify(s)}: expected key=value:effect or key:effect`);
  const key = kv[0]!;
  const keyErr = qualifiedNameError(key);
  if (keyErr) throw new Error(`invalid taint ${JSON.stringify(s)}: key: ${keyErr}`);
  const taint: Taint = { key, effect };
  if (kv.length === 2) {
    const valueErr = labelValueError(kv[1]!);
    if (valueErr) throw new Error(`invalid taint ${JSON.stringify(s)}: ${valueErr}`);
    taint.value = kv[1]!;
  }
  return taint;
}

/** Parses a comma-separated list of taints (the kubelet flag's form); "" → []. */
export function parseTaints(spec: string): Taint[] {
  return spec.trim() === "" ? [] : spec.split(",").map(parseTaint);
}
