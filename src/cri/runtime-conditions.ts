// The runtime's conditions (CRI Status) in the kubelet's words (kubelet.go updateRuntimeUp): what is
// wrong with the runtime and with its network, for the node's Ready condition (src/server/node-info.ts)
// and the network readiness gate of pod syncs (src/agent/runtime-state.ts).
import type { StatusResponse } from "./types";

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
