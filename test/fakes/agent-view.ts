// FakeAgentView: the agent as its HTTP server sees it (src/server/types AgentView), in memory. Pods,
// health checks and push results are set by the test; node() can fail, or hang until released, as
// it does when the runtime stops answering.
import type { Event, Node, Pod } from "kubernetes-types/core/v1";
import type { PushResult } from "../../src/api/pod";
import type { AgentView, ContainerLogInfo, HealthCheck } from "../../src/server/types";

export function fakePod(namespace: string, name: string): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { namespace, name, uid: `uid-${name}` },
    spec: { containers: [{ name: "app", image: "busybox" }] },
    status: { phase: "Running" },
  };
}

export class FakeAgentView implements AgentView {
  podList: Pod[] = [fakePod("default", "web"), fakePod("kube-system", "dns")];
  checks: HealthCheck[] = [
    { name: "ping", ok: true, message: "" },
    { name: "PLEG", ok: true, message: "" },
  ];
  pushed: unknown[] = [];
  pushedKeys = new Set<string>();
  deleted: string[] = [];
  nodeError: Error | undefined;
  /** While set, node() calls wait (a frozen runtime); release() lets them finish. */
  nodeHangs = false;
  nodeCalls = 0;
  nodeName = "node-1";
  refuse: PushResult | undefined;
  /** Thrown by deletePushedPod, as the push source throws while its state file cannot be read. */
  deleteError: Error | undefined;
  private held: (() => void)[] = [];
  /** The runtime's containers for the log endpoint, by runtime ID (no "containerd://"); others reject as NotFound. */
  containers = new Map<string, ContainerLogInfo>();
  containerLogCalls = 0;
  /** What GET /events answers. */
  eventList: Event[] = [];

  pods(): Pod[] {
    return this.podList;
  }
  events(): Event[] {
    return this.eventList;
  }
  healthChecks(): HealthCheck[] {
    return this.checks;
  }
  async node(): Promise<Node> {
    this.nodeCalls++;
    if (this.nodeHangs) await new Promise<void>((resolve) => this.held.push(resolve));
    if (this.nodeError) throw this.nodeError;
    return { apiVersion: "v1", kind: "Node", metadata: { name: this.nodeName } };
  }
  /** Lets every held node() call finish. */
  release(): void {
    this.nodeHangs = false;
    for (const r of this.held.splice(0)) r();
  }
  async pushPod(p: unknown): Promise<PushResult> {
    if (this.refuse) return this.refuse;
    this.pushed.push(p);
    const meta = (p as Pod).metadata ?? {};
    const accepted: Pod = { ...(p as Pod), metadata: { ...meta, namespace: meta.namespace ?? "default" } };
    this.podList.push(accepted);
    this.pushedKeys.add(`${accepted.metadata?.namespace}/${accepted.metadata?.name}`);
    return { ok: true, pod: accepted };
  }
  async containerLog(id: string): Promise<ContainerLogInfo> {
    this.containerLogCalls++;
    const c = this.containers.get(id);
    if (!c) throw new Error(`NotFound: an error occurred when try to find container "${id}"`);
    return { ...c };
  }
  async deletePushedPod(namespace: string, name: string): Promise<boolean> {
    if (this.deleteError) throw this.deleteError;
    if (!this.pushedKeys.delete(`${namespace}/${name}`)) return false;
    const i = this.podList.findIndex((p) => p.metadata?.namespace === namespace && p.metadata?.name === name);
    if (i >= 0) this.podList.splice(i, 1);
    this.deleted.push(`${namespace}/${name}`);
    return true;
  }
}
