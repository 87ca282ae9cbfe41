// startNodeHeartbeat: what the agent starts in cluster mode to exist as a node — the Node registered and
// its status reported (NodeStatusReporter), and the node Lease renewed (NodeLease), side by side as the
// kubelet runs syncNodeStatus and its lease controller. Neither throws out of its loop: the agent keeps
// running its pods whatever the API server does.
import { NodeLease } from "./node-lease";
import { NodeStatusReporter, type NodeStatusReporterOptions } from "./node-status-reporter";

/** What the reporter needs, with the kubelet's default periods. */
export type NodeHeartbeatOptions = Omit<NodeStatusReporterOptions, "reportFrequencyMs">;

export interface NodeHeartbeat {
  /** Resolves with the Node's uid once it is registered (the owner of mirror pods). */
  nodeUid(): Promise<string>;
  readonly status: NodeStatusReporter;
  readonly lease: NodeLease;
  stop(): Promise<void>;
}

export function startNodeHeartbeat(o: NodeHeartbeatOptions): NodeHeartbeat {
  const status = new NodeStatusReporter(o);
  const lease = new NodeLease({ client: o.client, nodeName: o.nodeName, clock: o.clock, log: o.log, random: o.random, nodeUid: () => status.knownNodeUid() });
  status.start();
  lease.start();
  return {
    nodeUid: () => status.nodeUid(),
    status,
    lease,
    stop: async () => {
      await Promise.all([status.stop(), lease.stop()]);
    },
  };
}
