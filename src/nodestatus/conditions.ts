// The node conditions the agent writes (setters.go MemoryPressureCondition, DiskPressureCondition,
// PIDPressureCondition, ReadyCondition) and the runtime's conditions (CRI Status) in the kubelet's
// words (kubelet.go updateRuntimeUp): for the node's Ready condition and the network readiness gate
// of pod syncs (src/agent/runtime-state.ts).
import type { Node, NodeCondition } from "kubernetes-types/core/v1";
import type { CriClient, StatusResponse } from "../cri";
import { errorMessage } from "../util";

export interface RuntimeConditionErrors {
  /** "container runtime not ready: RuntimeReady=false reason:… message:…", when it is not. */
  runtime?: string;
  /** "container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:…", when it is not. */
  network?: string;
}

/** A condition the runtime does not report is not ready, printed "<nil>" as the kubelet prints a nil one. */
export function runtimeConditionErrors(status: StatusResponse): RuntimeConditionErrors {
  const conditions = status.status?.conditions ?? [];
  const describe = (type: string) => {
    const c = conditions.find((x) => x.type === type);
    return c ? { ok: c.status, text: `${c.type}=${c.status} reason:${c.reason} message:${c.message}` } : { ok: false, text: "<nil>" };
  };
  const rt = describe("RuntimeReady");
  const net = describe("NetworkReady");
  return {
    ...(rt.ok ? {} : { runtime: `container runtime not ready: ${rt.text}` }),
    ...(net.ok ? {} : { network: `container runtime network not ready: ${net.text}` }),
  };
}

/**
 * Why the runtime makes the node not ready, in the kubelet's words (kubelet.go updateRuntimeUp):
 * "container runtime not ready: RuntimeReady=false reason:… message:…" and "container runtime
 * network not ready: NetworkReady=false reason:NetworkPluginNotReady message:…".
 */
export async function runtimeErrors(runtime: Pick<CriClient, "status">): Promise<string[]> {
  return (await runtimeStatusFacts(runtime)).errors;
}

/** status.features of a 1.36 Node (v1.NodeFeatures), which kubernetes-types 1.30 does not declare. */
export interface NodeFeatures {
  supplementalGroupsPolicy?: boolean;
}

/**
 * One CRI Status call's worth for the Node: the runtime's errors (runtimeErrors) and the features the
 * runtime says it has (the kubelet's NodeFeatures setter: none when the runtime sends no features, as
 * containerd before 2.0 does; SupplementalGroupsPolicy is GA and locked on in 1.36).
 */
export async function runtimeStatusFacts(runtime: Pick<CriClient, "status">): Promise<{ errors: string[]; features?: NodeFeatures }> {
  let status;
  try {
    status = await runtime.status();
  } catch (err) {
    return { errors: [`container runtime is down: ${errorMessage(err)}`] };
  }
  const e = runtimeConditionErrors(status);
  const errors = [...(e.runtime ? [e.runtime] : []), ...(e.network ? [e.network] : [])];
  const features = status.features;
  return features ? { errors, features: { supplementalGroupsPolicy: features.supplementalGroupsPolicy === true } } : { errors };
}

/**
 * The pressure conditions in the kubelet's words (nodestatus/setters.go MemoryPressureCondition,
 * DiskPressureCondition, PIDPressureCondition), true for those the eviction manager reports.
 */
export function pressureConditions(pressure: ReadonlySet<string>, now: string, previous: Node | undefined): NodeCondition[] {
  const memory = pressure.has("MemoryPressure");
  const disk = pressure.has("DiskPressure");
  const pid = pressure.has("PIDPressure");
  return [
    memory
      ? condition("MemoryPressure", true, "KubeletHasInsufficientMemory", "kubelet has insufficient memory available", now, previous)
      : condition("MemoryPressure", false, "KubeletHasSufficientMemory", "kubelet has sufficient memory available", now, previous),
    disk
      ? condition("DiskPressure", true, "KubeletHasDiskPressure", "kubelet has disk pressure", now, previous)
      : condition("DiskPressure", false, "KubeletHasNoDiskPressure", "kubelet has no disk pressure", now, previous),
    pid
      ? condition("PIDPressure", true, "KubeletHasInsufficientPID", "kubelet has insufficient PID available", now, previous)
      : condition("PIDPressure", false, "KubeletHasSufficientPID", "kubelet has sufficient PID available", now, previous),
  ];
}

/** A condition at `now`; lastTransitionTime kept from the previous Node while its status is unchanged. */
export function condition(type: string, isTrue: boolean, reason: string, message: string, now: string, previous: Node | undefined): NodeCondition {
  const status = isTrue ? "True" : "False";
  const prev = previous?.status?.conditions?.find((c) => c.type === type);
  const lastTransitionTime = prev && prev.status === status && prev.lastTransitionTime ? prev.lastTransitionTime : now;
  return { type, status, reason, message, lastHeartbeatTime: now, lastTransitionTime };
}
