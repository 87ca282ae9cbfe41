// The cluster phase of the node's start: with --kubeconfig the API server is one more source, and the
// Node, its Lease, pod statuses and mirror pods are written back (src/cluster's ClusterNode). TLS
// bootstrap first when asked; the client certificate's rotation is registered as started. Loaded only
// here, so other commands never load the API client.
import pkg from "../../package.json" with { type: "json" };
import type { ClusterNode } from "../cluster";
import { ConfigError, errorMessage } from "../util";
import { kubeApiRateLimit } from "./cluster-settings";
import { agentHealth, type NodeContext } from "./node-context";
import { loadBootstrap, startClientCertificateRotation } from "../certificate";
import { loadClusterNode } from "../cluster";

export async function connectCluster(ctx: NodeContext): Promise<ClusterNode | undefined> {
  const { config, nodeName, clock, log } = ctx;
  if (!config.cluster) return undefined;
  let cluster: ClusterNode;
  const { ClusterNode } = await loadClusterNode();
  // TLS bootstrap (src/certificate): a usable --kubeconfig first, requested with the bootstrap credentials when needed.
  const bootstrapKubeconfig = config.cluster.certificates.bootstrapKubeconfig;
  if (bootstrapKubeconfig) {
    const { bootstrapClientCertificate } = await loadBootstrap();
    try {
      await bootstrapClientCertificate({
        kubeconfig: config.cluster.kubeconfig,
        bootstrapKubeconfig,
        certDir: config.certDir,
        nodeName,
        clock,
        log,
        userAgent: `nodeagent/${pkg.version} (agent on ${nodeName})`,
      });
    } catch (e) {
      throw new ConfigError(`TLS bootstrap with --bootstrap-kubeconfig ${bootstrapKubeconfig}: ${errorMessage(e)}`);
    }
  }
  try {
    cluster = await ClusterNode.connect({
      kubeconfig: config.cluster.kubeconfig,
      context: config.cluster.context,
      nodeName,
      buildNode: () => ctx.theAgent().node(),
      health: () => agentHealth(ctx),
      nodeStatusUpdateFrequencyMs: config.cluster.nodeStatusUpdateFrequencyMs,
      userAgent: `nodeagent/${pkg.version} (agent on ${nodeName})`,
      rateLimit: kubeApiRateLimit(config.cluster.kubeApi),
      clock,
      log,
    });
  } catch (e) {
    throw new ConfigError(`--kubeconfig ${config.cluster.kubeconfig}: ${errorMessage(e)}`);
  }
  if (config.cluster.certificates.rotateCertificates) {
    const rotation = startClientCertificateRotation({
      certDir: config.certDir,
      nodeName,
      clock,
      log,
      kubeconfig: config.cluster.kubeconfig,
      client: cluster.client,
    });
    if (rotation) ctx.started.add("the client certificate rotation", () => rotation.stop());
  }
  return cluster;
}
