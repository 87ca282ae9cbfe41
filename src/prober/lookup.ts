// Finding the container a probe runs against, through the kubelet's CRI labels: a pod by namespace
// and name (and UID, when the spec says which instance), its running container by name, the
// address network probes dial (the sandbox's IP, or 127.0.0.1 for a host-network pod), and when it
// started (initialDelaySeconds counts from there).
import { CONTAINER_NAME, type CriClient, POD_NAME, POD_NAMESPACE, POD_UID } from "../cri";
import { ConfigError } from "../util";

/** The pod, container or probe asked for is not there: bad input (exit 2), not a probe failure. */
export class LookupError extends ConfigError {}

export interface FoundContainer {
  podUid: string;
  containerId: string;
  containerName: string;
  /** The pod IP, or 127.0.0.1 for a host-network pod. */
  host: string;
  hostNetwork: boolean;
  /** ms since the epoch. */
  startedAt: number;
}

export interface ContainerQuery {
  namespace: string;
  name: string;
  /** Without it, the pod must have exactly one running container. */
  container?: string;
  /** Pick this instance of the pod when several with the same name exist (an edited static pod). */
  uid?: string;
}

type LookupRuntime = Pick<CriClient, "listContainers" | "podSandboxStatus" | "containerStatus">;

export async function findRunningContainer(runtime: LookupRuntime, q: ContainerQuery): Promise<FoundContainer> {
  const selector: Record<string, string> = { [POD_NAMESPACE]: q.namespace, [POD_NAME]: q.name };
  if (q.uid) selector[POD_UID] = q.uid;
  const running = (await runtime.listContainers({ labelSelector: selector, state: { state: "CONTAINER_RUNNING" } }))
    // Newest first: after a restart the new instance is the one the agent probes.
    .sort((a, b) => b.createdAt - a.createdAt);
  const pod = `${q.namespace}/${q.name}`;
  if (running.length === 0) throw new LookupError(`no running container of pod ${pod} in the runtime${q.uid ? ` (uid ${q.uid})` : ""}`);
  const names = [...new Set(running.map((c) => c.labels[CONTAINER_NAME] ?? c.metadata?.name ?? ""))];
  let chosen = running[0]!;
  if (q.container !== undefined) {
    const match = running.find((c) => (c.labels[CONTAINER_NAME] ?? c.metadata?.name) === q.container);
    if (!match) throw new LookupError(`pod ${pod} has no running container ${JSON.stringify(q.container)}; running: ${names.join(", ")}`);
    chosen = match;
  } else if (names.length > 1) {
    throw new LookupError(`pod ${pod} runs ${names.length} containers (${names.join(", ")}): choose one with --container`);
  }
  const [sandbox, status] = await Promise.all([runtime.podSandboxStatus(chosen.podSandboxId), runtime.containerStatus(chosen.id)]);
  const hostNetwork = sandbox.status.linux?.namespaces?.options?.network === "NODE";
  const ip = sandbox.status.network?.ip ?? "";
  if (!hostNetwork && !ip) throw new LookupError(`pod ${pod} has no IP in the runtime (sandbox ${chosen.podSandboxId.slice(0, 13)})`);
  return {
    podUid: chosen.labels[POD_UID] ?? sandbox.status.metadata?.uid ?? "",
    containerId: chosen.id,
    containerName: chosen.labels[CONTAINER_NAME] ?? chosen.metadata?.name ?? "",
    host: hostNetwork ? "127.0.0.1" : ip,
    hostNetwork,
    startedAt: status.startedAt / 1e6,
  };
}
