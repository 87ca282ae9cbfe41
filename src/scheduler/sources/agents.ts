// Live nodes: nodeagent agents over their API (HTTPS, or HTTP with --insecure-http). GET /node and GET /pods are polled; the differences become
// the scheduler's cluster events (a node added or changed, a pod bound, changed or gone). Binding
// pushes the pod, spec.nodeName set, to the chosen agent (POST /pods with its bearer token);
// preemption deletes a victim (DELETE /pods/<namespace>/<name>). The scheduler never imports the
// agent's code: the HTTP API and the v1 objects are the whole contract.
import type { Node, Pod, PodList } from "kubernetes-types/core/v1";
import type { Status as ApiStatus } from "kubernetes-types/meta/v1";
import { isPodTerminal, podKey } from "../../api";
import { nodeUpdateEvents } from "../framework/events";
import type { ClusterClient } from "../framework/interface";
import type { PodInfo } from "../model/pod-info";
import type { Scheduler, SchedulerLog } from "../scheduler";
import { boundCopy } from "../cluster";
import { errorMessage } from "../../util";

export type ClusterEvents = Pick<Scheduler, "onNodeAdd" | "onNodeUpdate" | "onNodeDelete" | "onPodAdd" | "onPodUpdate" | "onPodDelete">;

export class AgentError extends Error {
  override name = "AgentError";
}

export class AgentClient {
  constructor(
    readonly url: string,
    private readonly token: string | undefined,
    private readonly timeoutMs = 10_000,
    /** For an HTTPS agent: the CA of its serving certificate (its own kubelet.crt), or no verification. */
    private readonly tls?: { ca?: string; rejectUnauthorized?: boolean },
  ) {
    this.url = url.replace(/\/+$/, "");
  }

  private async request(method: string, path: string, body?: unknown): Promise<unknown> {
    const headers: Record<string, string> = { Accept: "application/json" };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    // An agent with a push token wants it on reads too (GET /node, /pods), not only on pushes.
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
    let res: Response;
    try {
      res = await fetch(`${this.url}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
        ...(this.tls ? { tls: this.tls } : {}),
      } as RequestInit);
    } catch (e) {
      throw new AgentError(`${method} ${this.url}${path}: ${errorMessage(e)}`);
    }
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (!res.ok) {
      const msg = (parsed as ApiStatus | undefined)?.message ?? text.trim();
      throw new AgentError(`${method} ${this.url}${path}: ${res.status} ${res.statusText}${msg ? `: ${msg}` : ""}`);
    }
    return parsed;
  }

  async node(): Promise<Node> {
    const n = (await this.request("GET", "/node")) as Node | undefined;
    if (!n || n.kind !== "Node" || !n.metadata?.name) throw new AgentError(`GET ${this.url}/node: not a v1 Node`);
    return n;
  }

  async pods(): Promise<Pod[]> {
    const l = (await this.request("GET", "/pods")) as PodList | undefined;
    if (!l || !Array.isArray(l.items)) throw new AgentError(`GET ${this.url}/pods: not a v1 PodList`);
    return l.items;
  }

  async push(pod: Pod): Promise<Pod> {
    return (await this.request("POST", "/pods", pod)) as Pod;
  }

  async delete(namespace: string, name: string): Promise<void> {
    await this.request("DELETE", `/pods/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}`);
  }
}

/** The pod as an agent takes it: the spec with spec.nodeName, metadata without server fields, no status. */
export function podForAgent(pod: Pod, nodeName: string): Pod {
  const md = pod.metadata ?? {};
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: md.name,
      namespace: md.namespace,
      uid: md.uid,
      ...(md.labels ? { labels: md.labels } : {}),
      ...(md.annotations ? { annotations: md.annotations } : {}),
    },
    spec: { ...pod.spec!, nodeName },
  };
}

/** The pod as the scheduler knows it: the UID it was scheduled under, whatever the agent calls it. */
function withUid(p: Pod, uid: string | undefined): Pod {
  return uid === undefined || p.metadata?.uid === uid ? p : { ...p, metadata: { ...p.metadata, uid } };
}

/** How long a pod we bound may be missing from its agent's list before it counts as gone. */
const BIND_GRACE_MS = 30_000;

export class AgentCluster implements ClusterClient {
  private readonly byNode = new Map<string, AgentClient>();
  private readonly nodeOf = new Map<AgentClient, string>();
  private readonly nodes = new Map<string, Node>();
  /**
   * The agents' pods by namespace/name (podKey), which is what an agent keeps unique: it gives a
   * pushed pod a UID of its own (a hash of the pod), not the one the scheduler sent.
   */
  private readonly pods = new Map<string, Pod>();
  private readonly justBound = new Map<string, number>();
  private readonly failing = new Set<AgentClient>();

  constructor(
    readonly agents: readonly AgentClient[],
    private events: ClusterEvents,
    private readonly log: SchedulerLog,
    private readonly now: () => number = Date.now,
  ) {}

  /** Sends the events to another receiver from now on (the scheduler, after a first sync collected the cluster). */
  setEvents(events: ClusterEvents): void {
    this.events = events;
  }

  /** The agent serving a node, once its /node was read. */
  agentFor(nodeName: string): AgentClient | undefined {
    return this.byNode.get(nodeName);
  }

  nodeNames(): string[] {
    return [...this.nodes.keys()];
  }

  /**
   * Polls every agent and turns the differences into events. An agent that does not answer keeps
   * its node and pods as last seen: a missed poll is not a node going away.
   */
  async sync(): Promise<void> {
    const answers = await Promise.allSettled(this.agents.map(async (a) => ({ agent: a, node: await a.node(), pods: await a.pods() })));
    const seenPods = new Map<string, Pod>();
    const answeredNodes = new Set<string>();
    answers.forEach((r, i) => {
      const agent = this.agents[i]!;
      if (r.status === "rejected") {
        if (!this.failing.has(agent)) this.log.warn("agent did not answer; keeping its node and pods as last seen", { agent: agent.url, err: r.reason });
        this.failing.add(agent);
        const node = this.nodeOf.get(agent);
        if (node) for (const [k, p] of this.pods) if (p.spec?.nodeName === node) seenPods.set(k, p);
        return;
      }
      if (this.failing.delete(agent)) this.log.info("agent answers again", { agent: agent.url });
      const { node, pods } = r.value;
      const name = node.metadata!.name!;
      const previousName = this.nodeOf.get(agent);
      if (previousName && previousName !== name) this.removeNode(previousName);
      const other = this.byNode.get(name);
      if (other && other !== agent) this.log.warn("two agents report the same node; using the later one", { node: name, agent: agent.url, other: other.url });
      this.byNode.set(name, agent);
      this.nodeOf.set(agent, name);
      answeredNodes.add(name);
      const old = this.nodes.get(name);
      this.nodes.set(name, node);
      if (!old) this.events.onNodeAdd(node);
      // Heartbeats change every poll; only what the scheduler reads makes an update.
      else if (nodeUpdateEvents(old, node).length > 0 || JSON.stringify(old.status?.images) !== JSON.stringify(node.status?.images))
        this.events.onNodeUpdate(old, node);
      for (const p of pods) {
        if (isPodTerminal(p)) continue;
        const bound = p.spec?.nodeName ? p : { ...p, spec: { ...p.spec!, nodeName: name } };
        seenPods.set(podKey(bound), bound);
      }
    });
    const now = this.now();
    for (const [k, old] of this.pods) {
      if (seenPods.has(k)) continue;
      const grace = this.justBound.get(k);
      if (grace !== undefined && grace > now) {
        seenPods.set(k, old);
        continue;
      }
      this.justBound.delete(k);
      this.pods.delete(k);
      this.events.onPodDelete(old);
    }
    for (const [k, listed] of seenPods) {
      const old = this.pods.get(k);
      if (old === listed) continue;
      const p = old ? withUid(listed, old.metadata?.uid) : listed;
      if (!old) {
        this.pods.set(k, p);
        this.events.onPodAdd(p);
      } else {
        this.justBound.delete(k);
        if (JSON.stringify(stripVolatile(old)) !== JSON.stringify(stripVolatile(p))) {
          this.pods.set(k, p);
          this.events.onPodUpdate(old, p);
        }
      }
    }
  }

  private removeNode(name: string): void {
    const node = this.nodes.get(name);
    this.nodes.delete(name);
    this.byNode.delete(name);
    if (node) this.events.onNodeDelete(node);
  }

  async bind(pod: Pod, nodeName: string): Promise<void> {
    const agent = this.byNode.get(nodeName);
    if (!agent) throw new AgentError(`node ${nodeName} has no agent to bind to`);
    await agent.push(podForAgent(pod, nodeName));
    const bound = boundCopy(pod, nodeName);
    const key = podKey(bound);
    this.pods.set(key, bound);
    this.justBound.set(key, this.now() + BIND_GRACE_MS);
    this.events.onPodUpdate(pod, bound);
  }

  async deletePod(victim: PodInfo, nodeName: string): Promise<void> {
    const agent = this.byNode.get(nodeName);
    if (!agent) throw new AgentError(`node ${nodeName} has no agent to delete ${victim.key} from`);
    await agent.delete(victim.namespace, victim.name);
    this.pods.delete(podKey(victim.pod));
    this.events.onPodDelete(victim.pod);
  }
}

/** Status fields that change all the time (heartbeats, container states) do not make a pod update for scheduling. */
function stripVolatile(p: Pod): Pod {
  return { ...p, status: undefined, metadata: { ...p.metadata, resourceVersion: undefined } };
}
