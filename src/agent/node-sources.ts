// The sources phase: PodConfig and the pod sources (the manifest directory, the URL, pushed pods, and in
// a cluster the API server), started by the agent's run() once the server is up.
import type { ClusterNode } from "../cluster";
import { conflictCheck, FileSource, HttpSource, PodConfig, pushPolicyCheck, PushSource, type PodSource } from "../config";
import { loadStaticPods, loadStaticPodsWithLocalObjects } from "../manifest";
import { join } from "node:path";
import type { NodeContext } from "./node-context";

export interface NodeSources {
  podConfig: PodConfig;
  sources: PodSource[];
  push: PushSource;
}

export function makeSources(ctx: NodeContext, cluster: ClusterNode | undefined): NodeSources {
  const { config, nodeName, clock, log } = ctx;
  const podConfig = new PodConfig({ clock, log });
  // The sources, started by the agent's run() once the server is up. The file and URL sources keep
  // their last good pods under the root directory, so a restart with a manifest gone bad, a URL
  // away or serving nothing, loses no running pod.
  const sources: PodSource[] = [];
  // With --local-objects, static and pushed pods may name the ConfigMaps and Secrets it serves;
  // otherwise the kubelet's PreventStaticPodAPIReferences refuses them at load.
  const loader = config.localObjects ? loadStaticPodsWithLocalObjects : loadStaticPods;
  const sourceState = join(config.rootDir, "sources");
  if (config.manifestPath) {
    sources.push(
      new FileSource({ path: config.manifestPath, nodeName, loader, clock, log, checkFrequencyMs: config.fileCheckFrequencyMs, stateDir: sourceState }),
    );
  }
  if (config.manifestUrl) {
    sources.push(
      new HttpSource({
        url: config.manifestUrl,
        headers: config.manifestUrlHeaders,
        nodeName,
        loader,
        clock,
        log,
        checkFrequencyMs: config.httpCheckFrequencyMs,
        stateDir: sourceState,
      }),
    );
  }
  // Pushed pods are kept under the root directory, so that a restarted agent adopts them. A push
  // obeys --push-policy (403), never takes over another source's pod (409), and is refused (403,
  // with admission's reason: OutOfpods, OutOfcpu, NodePorts, SysctlForbidden, …) when admission
  // would reject it.
  const push = new PushSource({
    nodeName,
    loader,
    log,
    stateFile: join(config.rootDir, "pushed-pods.json"),
    checks: [
      pushPolicyCheck(config.pushPolicy),
      conflictCheck(podConfig),
      (pod) => {
        // Pods restored from pushed-pods.json (checked before the agent exists) were admitted before.
        // Only asked: a critical pod that would preempt others is accepted; the preemption happens at its ADD.
        // Before the agent's first Node the answer would be InvalidNodeInfo: such a push is taken, and the
        // sync loop (which waits for that Node) admits or refuses the pod at its ADD, as any source's.
        const agent = ctx.late.agent;
        if (!agent?.lastNode()) return undefined;
        const r = agent.canAdmitPod(pod, { dryRun: true });
        return r.admit ? undefined : { status: 403, message: `${r.reason}: ${r.message}` };
      },
    ],
  });
  sources.push(push);
  if (cluster) sources.push(cluster);
  return { podConfig, sources, push };
}
