// NodeStatusReporter: registers the agent's Node and keeps its status current, as the kubelet's
// syncNodeStatus does (k/k pkg/kubelet/kubelet_node_status.go): register until it works (create; on
// AlreadyExists adopt and reconcile the existing Node), then every nodeStatusUpdateFrequency compute the
// status over the Node as the node's watch has it (the kubelet's nodeLister: no GET at rest; a retry
// GETs it from the API) and PATCH nodes/<name>/status when it changed, or when nodeStatusReportFrequency
// has passed since the last report (then only the heartbeat times move). As the kubelet's
// isUpdateStatusPeriodExpired, the period after a change (or the first report) is moved by a random
// delay of up to ±half of it, so that nodes that changed together do not report together after.
import { PatchStrategy, setHeaderOptions, type V1Node } from "@kubernetes/client-node";
import type { Node } from "kubernetes-types/core/v1";
import { apiErrorMessage, isConflict, isNotFound, type KubeClient } from "../kube";
import { apiTime, type Clock, type Logger } from "../util";
import { ClockTask, nextBackoff } from "./loop";
import { nodeStatusChanged, nodeStatusPatch, reconcileExistingNode, withReportedStatus, type NodeHealth } from "../nodestatus";
import { asBody, toWire, withTimeout } from "./wire";

/** kubelet defaults (KubeletConfiguration): nodeStatusUpdateFrequency 10 s, nodeStatusReportFrequency 5 min. */
export const NODE_STATUS_UPDATE_FREQUENCY_MS = 10_000;
export const NODE_STATUS_REPORT_FREQUENCY_MS = 5 * 60_000;
/** kubelet.go nodeStatusUpdateRetry: attempts per status update before waiting for the next period. */
export const NODE_STATUS_UPDATE_RETRY = 5;
/**
 * fastStatusUpdateOnce (kubelet.go): after the start, until the Node is Ready in the API, the agent's
 * readiness is looked at every 100 ms and the status sent as soon as it is ready, for at most this long;
 * a new node is then Ready a moment after its runtime is, not at its next 10 s period.
 */
export const FAST_STATUS_UPDATE_MS = 100;
export const FAST_STATUS_UPDATE_WINDOW_MS = 120_000;
/** registerWithAPIServer: 100 ms doubling to 7 s between registration attempts. */
const REGISTER_BACKOFF_FIRST_MS = 100;
const REGISTER_BACKOFF_MAX_MS = 7_000;

export interface NodeStatusReporterOptions {
  client: KubeClient;
  nodeName: string;
  /** The Node as this host sees it now (labels, taints, capacity, conditions, addresses, node info, images). */
  buildNode: () => Promise<Node>;
  /** The agent's health checks; not ready turns the Ready condition False with their message. */
  health: () => NodeHealth;
  clock: Clock;
  log: Logger;
  updateFrequencyMs?: number;
  reportFrequencyMs?: number;
  /**
   * The Node as the node's own watch last saw it (the kubelet's nodeLister), read by the first attempt
   * of each update instead of a GET; undefined (nothing listed yet) falls back to the GET.
   */
  nodeLister?: () => Node | undefined;
  /** [0, 1) for the report period's random delay (Math.random). */
  random?: () => number;
}

const isReady = (n: Node): boolean => n.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;

export class NodeStatusReporter extends ClockTask {
  private readonly updateFrequencyMs: number;
  private readonly reportFrequencyMs: number;
  private lastReportAt = -Infinity;
  /** Whether the Node has been Ready in the API since the start (the end of the fast status updates). */
  private becameReady = false;
  /** delayAfterNodeStatusChange: added to the report period after a change or the first report. */
  private reportDelayMs = 0;
  private resolveUid!: (uid: string) => void;
  private readonly uid: Promise<string>;
  private uidValue?: string;
  /** True once the Node exists in the API (created or adopted). */
  registered = false;
  /** Status PATCHes sent so far. */
  reports = 0;
  /** The last error, cleared by the next successful update. */
  lastError?: string;

  constructor(private readonly o: NodeStatusReporterOptions) {
    super(o.clock);
    this.updateFrequencyMs = o.updateFrequencyMs ?? NODE_STATUS_UPDATE_FREQUENCY_MS;
    this.reportFrequencyMs = o.reportFrequencyMs ?? NODE_STATUS_REPORT_FREQUENCY_MS;
    this.uid = new Promise((r) => (this.resolveUid = r));
  }

  /** The registered Node's uid (mirror pods and the node Lease name it as their owner). */
  nodeUid(): Promise<string> {
    return this.uid;
  }

  /** The uid if the Node is registered already. */
  knownNodeUid(): string | undefined {
    return this.uidValue;
  }

  protected async run(): Promise<void> {
    const startedAt = this.o.clock.now();
    while (!this.loop.stopped) {
      if (!this.registered && !(await this.registerWithBackoff())) return;
      await this.updateNodeStatus();
      // Once, after the start: until the API has the Node Ready for the first time (for a bounded time),
      // wake every 100 ms and go to the update as soon as the agent is ready; then the usual period.
      let waited = 0;
      while (!this.becameReady && this.o.clock.now() - startedAt < FAST_STATUS_UPDATE_WINDOW_MS && waited < this.updateFrequencyMs) {
        if (!(await this.loop.sleep(FAST_STATUS_UPDATE_MS))) return;
        waited += FAST_STATUS_UPDATE_MS;
        if (this.o.health().ready) break;
      }
      if (waited === 0 && !(await this.loop.sleep(this.updateFrequencyMs))) return;
    }
  }

  private adopt(node: Node): void {
    this.registered = true;
    const uid = node.metadata?.uid;
    if (uid && !this.uidValue) {
      this.uidValue = uid;
      this.resolveUid(uid);
    }
  }

  /** registerWithAPIServer: attempts until one works, 100 ms doubling to 7 s apart; false when stopped. */
  private async registerWithBackoff(): Promise<boolean> {
    let backoff = 0;
    for (;;) {
      backoff = nextBackoff(backoff, REGISTER_BACKOFF_FIRST_MS, REGISTER_BACKOFF_MAX_MS);
      if (!(await this.loop.sleep(backoff))) return false;
      try {
        if (await this.tryRegister()) return true;
      } catch (err) {
        this.lastError = `unable to register node ${this.o.nodeName} with the API server: ${errorText(err)}`;
        this.o.log.warn("unable to register node with the API server", {
          node: this.o.nodeName,
          retryIn: `${Math.min(backoff * 2, REGISTER_BACKOFF_MAX_MS) / 1000}s`,
          err: errorText(err),
        });
      }
    }
  }

  /** tryRegisterWithAPIServer: create; on AlreadyExists adopt the Node and reconcile what the agent owns. */
  private async tryRegister(): Promise<boolean> {
    const { client, nodeName, log } = this.o;
    const initial = await this.currentNode(undefined);
    try {
      const created = toWire<Node>(await client.core.createNode({ body: asBody<V1Node>(initial) }, withTimeout()), "V1Node");
      log.info("registered node", { node: nodeName, uid: created.metadata?.uid });
      this.adopt(created);
      return true;
    } catch (err) {
      // Create answers 409 only as AlreadyExists (there is no resourceVersion to conflict with).
      if (!isConflict(err)) throw err;
    }
    const existing = toWire<Node>(await client.core.readNode({ name: nodeName }, withTimeout()), "V1Node");
    log.info("node was registered before; adopting it", { node: nodeName, uid: existing.metadata?.uid });
    const reconciled = reconcileExistingNode(existing, initial);
    if (reconciled) await this.patchStatus(existing, reconciled);
    this.adopt(existing);
    return true;
  }

  /** updateNodeStatus: up to 5 attempts, each over a fresh GET (a conflict or a stale read is retried at once). */
  private async updateNodeStatus(): Promise<void> {
    for (let attempt = 1; attempt <= NODE_STATUS_UPDATE_RETRY && !this.loop.stopped; attempt++) {
      try {
        await this.tryUpdateNodeStatus(attempt);
        this.lastError = undefined;
        return;
      } catch (err) {
        this.lastError = `error updating node status: ${errorText(err)}`;
        this.o.log.warn(attempt < NODE_STATUS_UPDATE_RETRY ? "error updating node status, will retry" : "error updating node status", {
          node: this.o.nodeName,
          err: errorText(err),
        });
      }
    }
    this.o.log.error("unable to update node status: update node status exceeds retry count", { node: this.o.nodeName });
  }

  private async tryUpdateNodeStatus(attempt: number): Promise<void> {
    const { client, nodeName } = this.o;
    const cached = attempt === 1 ? this.o.nodeLister?.() : undefined;
    const api = cached ? structuredClone(cached) : toWire<Node>(await client.core.readNode({ name: nodeName }, withTimeout()), "V1Node");
    const next = await this.currentNode(api);
    const now = this.o.clock.now();
    // With the Lease carrying liveness, an unchanged status is reported only every reportFrequency.
    const changed = nodeStatusChanged(api.status, next.status);
    if (!changed && now < this.lastReportAt + this.reportFrequencyMs + this.reportDelayMs) {
      this.becameReady ||= isReady(api);
      return;
    }
    // calculateDelay: a random delay after a change or the first report, none after a periodic one.
    const first = this.lastReportAt === -Infinity;
    this.reportDelayMs = changed || first ? this.reportFrequencyMs * (-0.5 + (this.o.random ?? Math.random)()) : 0;
    await this.patchStatus(api, next);
    this.becameReady ||= isReady(next);
    this.lastReportAt = now;
  }

  /** PATCH nodes/<name>/status with the strategic merge patch from `before` to `after`. */
  private async patchStatus(before: Node, after: Node): Promise<void> {
    const body = nodeStatusPatch(before, after);
    if (!body) return;
    await this.o.client.core.patchNodeStatus(
      { name: this.o.nodeName, body },
      withTimeout(undefined, setHeaderOptions("Content-Type", PatchStrategy.StrategicMergePatch)),
    );
    this.reports++;
  }

  /** The agent's Node, its status laid over the API's copy (or standing alone for registration). */
  private async currentNode(api: Node | undefined): Promise<Node> {
    const built = await this.o.buildNode();
    const now = apiTime(this.o.clock.now());
    const base: Node = api ?? { apiVersion: "v1", kind: "Node", metadata: built.metadata, spec: built.spec, status: {} };
    return withReportedStatus(base, built, this.o.health(), now);
  }
}

function errorText(err: unknown): string {
  return isNotFound(err) ? `${apiErrorMessage(err)} (the Node was deleted; restart the agent to register it again)` : apiErrorMessage(err);
}
