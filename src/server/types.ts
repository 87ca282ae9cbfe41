// What the HTTP server sees of the agent. The agent (src/agent) implements AgentView; the server
// never reaches into pod workers, the PLEG or the runtime itself, so it can be tested with a fake.
import type { Node, Pod } from "kubernetes-types/core/v1";

export interface HealthCheck {
  name: string;
  ok: boolean;
  message: string;
}

export type PushResult = { ok: true; pod: Pod } | { ok: false; status: number; message: string };

export interface AgentView {
  /** Every pod the agent knows, with live status (v1 Pod objects). */
  pods(): Pod[];
  /** Health checks, each ok or failing with a message (e.g. "PLEG": "pleg was last seen active 3m1s ago; threshold is 3m0s", "syncloop": ...). */
  healthChecks(): HealthCheck[];
  /** The v1 Node object describing this host (see node-info.ts). */
  node(): Promise<Node>;
  /** Pushes a pod (POST /pods): ok, or refused with an HTTP status and message. */
  pushPod(pod: unknown): Promise<PushResult>;
  /** Removes a pushed pod (DELETE /pods/<ns>/<name>): false when no pushed pod has that name. */
  deletePushedPod(namespace: string, name: string): Promise<boolean>;
}
