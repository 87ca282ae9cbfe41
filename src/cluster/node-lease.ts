// NodeLease: the node's heartbeat in kube-node-lease/<nodeName>, as client-go's lease controller
// (k8s.io/component-helpers/apimachinery/lease/controller.go) runs it for the kubelet
// (pkg/kubelet/nodelease): every renewInterval (0.25 × 40 s, plus a jitter of up to 4 %, counted from the
// end of the last renewal as wait.JitterUntil's sliding period) PUT the lease with a new renewTime, using the
// lease it last wrote; when that fails, GET it (creating it when missing) with backoff 200 ms doubling to
// 7 s until the API answers, then retry the update up to 5 times, re-reading after a conflict. The
// node-lifecycle controller marks the node unknown 40 s after the last renewTime.
import type { V1Lease } from "@kubernetes/client-node";
import type { Lease } from "kubernetes-types/coordination/v1";
import { apiErrorMessage, isConflict, isNotFound, type KubeClient } from "../kube";
import { apiMicroTime, type Clock, type LogFields, type Logger } from "../util";
import { ClockTask, nextBackoff } from "./loop";
import { asBody, toWire, withTimeout } from "./wire";

export const NODE_LEASE_NAMESPACE = "kube-node-lease";
/** KubeletConfiguration nodeLeaseDurationSeconds default. */
export const NODE_LEASE_DURATION_SECONDS = 40;
/** kubelet nodeLeaseRenewIntervalFraction: renew at a quarter of the duration. */
export const NODE_LEASE_RENEW_FRACTION = 0.25;
/** lease controller: maxUpdateRetries, and the ensure-lease backoff. */
const MAX_UPDATE_RETRIES = 5;
const ENSURE_BACKOFF_FIRST_MS = 200;
const ENSURE_BACKOFF_MAX_MS = 7_000;
/** The lease controller's JitterUntil jitter factor: each period is up to 4 % longer, so nodes drift apart. */
const RENEW_JITTER = 0.04;

export interface NodeLeaseOptions {
  client: KubeClient;
  nodeName: string;
  /** The Node's uid once it is registered: the lease gets an ownerReference to it, so it goes with the Node. */
  nodeUid: () => string | undefined;
  clock: Clock;
  log: Logger;
  durationSeconds?: number;
  /** Default: durationSeconds × 0.25. */
  renewIntervalMs?: number;
  /** [0, 1) for the period's jitter (Math.random). */
  random?: () => number;
}

export class NodeLease extends ClockTask {
  private readonly durationSeconds: number;
  private readonly renewIntervalMs: number;
  private readonly leaseKey: string;
  /** The lease as the API last returned it; the next renewal starts from it (no GET in the steady state). */
  private latest?: Lease;
  /** Successful renewals (updates) and creations so far. */
  renewals = 0;
  /** The last error, cleared by the next successful write. */
  lastError?: string;

  constructor(private readonly o: NodeLeaseOptions) {
    super(o.clock);
    this.durationSeconds = o.durationSeconds ?? NODE_LEASE_DURATION_SECONDS;
    this.renewIntervalMs = o.renewIntervalMs ?? this.durationSeconds * 1000 * NODE_LEASE_RENEW_FRACTION;
    this.leaseKey = `${NODE_LEASE_NAMESPACE}/${o.nodeName}`;
  }

  /** The lease as last written. */
  current(): Lease | undefined {
    return this.latest;
  }

  protected async run(): Promise<void> {
    // wait.Until: sync, then the interval counted from the end of that sync.
    const random = this.o.random ?? Math.random;
    do await this.sync();
    while (await this.loop.sleep(this.renewIntervalMs * (1 + RENEW_JITTER * random())));
  }

  private async sync(): Promise<void> {
    if (this.latest) {
      try {
        await this.update(this.latest);
        return;
      } catch (err) {
        this.failed("failed to update lease using the latest lease, falling back to ensure lease", apiErrorMessage(err));
      }
    }
    const ensured = await this.ensureWithBackoff();
    if (!ensured || ensured.created) return;
    let lease = ensured.lease;
    for (let attempt = 1; attempt <= MAX_UPDATE_RETRIES && !this.loop.stopped; attempt++) {
      try {
        await this.update(lease);
        return;
      } catch (err) {
        this.failed(
          "failed to update lease",
          apiErrorMessage(err),
          { attempt, of: MAX_UPDATE_RETRIES },
          `failed to update lease (attempt ${attempt} of ${MAX_UPDATE_RETRIES})`,
        );
        if (!isConflict(err)) continue;
        // Someone else wrote it (or our copy is stale): start again from the API's copy.
        const again = await this.ensureWithBackoff();
        if (!again) return;
        if (again.created) return;
        lease = again.lease;
      }
    }
    this.o.log.error("failed every attempt to update the lease", {
      lease: this.leaseKey,
      attempts: MAX_UPDATE_RETRIES,
      retryIn: `${this.renewIntervalMs / 1000}s`,
    });
  }

  /** GET the lease, creating it when it does not exist, until the API answers; undefined once stopped. */
  private async ensureWithBackoff(): Promise<{ lease: Lease; created: boolean } | undefined> {
    let backoff = 0;
    for (;;) {
      try {
        return await this.ensure();
      } catch (err) {
        backoff = nextBackoff(backoff, ENSURE_BACKOFF_FIRST_MS, ENSURE_BACKOFF_MAX_MS);
        this.failed(
          "failed to ensure lease exists, will retry",
          apiErrorMessage(err),
          { retryIn: `${backoff / 1000}s` },
          `failed to ensure lease ${NODE_LEASE_NAMESPACE}/${this.o.nodeName} exists, will retry in ${backoff / 1000}s`,
        );
        if (!(await this.loop.sleep(backoff))) return undefined;
      }
    }
  }

  private async ensure(): Promise<{ lease: Lease; created: boolean }> {
    const { coordination } = this.o.client;
    try {
      const lease = toWire<Lease>(await coordination.readNamespacedLease({ name: this.o.nodeName, namespace: NODE_LEASE_NAMESPACE }, withTimeout()), "V1Lease");
      return { lease, created: false };
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    const created = await coordination.createNamespacedLease(
      { namespace: NODE_LEASE_NAMESPACE, body: asBody<V1Lease>(this.renewed(undefined)) },
      withTimeout(),
    );
    this.wrote(toWire<Lease>(created, "V1Lease"));
    this.o.log.info("created node lease", { lease: this.leaseKey });
    return { lease: this.latest!, created: true };
  }

  /** PUT the lease with a new renewTime; a 409 means our resourceVersion is stale. */
  private async update(base: Lease): Promise<void> {
    const updated = await this.o.client.coordination.replaceNamespacedLease(
      { name: this.o.nodeName, namespace: NODE_LEASE_NAMESPACE, body: asBody<V1Lease>(this.renewed(base)) },
      withTimeout(),
    );
    this.wrote(toWire<Lease>(updated, "V1Lease"));
  }

  private wrote(lease: Lease): void {
    this.latest = lease;
    this.renewals++;
    if (this.lastError) this.o.log.info("node lease renewed again", { lease: this.leaseKey });
    this.lastError = undefined;
  }

  /** Logs `msg` with the lease and the error as fields; lastError (GET /healthz) keeps the sentence, `said` or `msg`, with the error. */
  private failed(msg: string, err: string, fields: LogFields = {}, said = msg): void {
    this.lastError = `${said}: ${err}`;
    this.o.log.warn(msg, { lease: this.leaseKey, ...fields, err });
  }

  /** newLease: holder, duration and renewTime now; the Node as owner once its uid is known (setNodeOwnerFunc). */
  private renewed(base: Lease | undefined): Lease {
    const lease: Lease = structuredClone(base) ?? {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: { name: this.o.nodeName, namespace: NODE_LEASE_NAMESPACE },
    };
    lease.spec = { ...lease.spec, holderIdentity: this.o.nodeName, leaseDurationSeconds: this.durationSeconds, renewTime: apiMicroTime(this.o.clock.now()) };
    const uid = this.o.nodeUid();
    if (uid && (lease.metadata?.ownerReferences ?? []).length === 0) {
      lease.metadata = { ...lease.metadata, ownerReferences: [{ apiVersion: "v1", kind: "Node", name: this.o.nodeName, uid }] };
    }
    return lease;
  }
}
