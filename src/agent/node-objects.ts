// The objects phase: where the ConfigMaps, Secrets and tokens pods use come from (ObjectSource), and the
// services behind containers' service-link variables, each registered as started (closed on stop).
import type { ClusterNode } from "../cluster";
import type { Clock, Logger } from "../util";
import {
  LocalObjectSource,
  NoObjectSource,
  NoServiceLister,
  type ObjectSource,
  type ServiceLister,
  loadApiObjectSource,
  loadApiServiceLister,
} from "../objects";
import type { AgentConfig } from "./agent-config";
import type { NodeContext, VolumeWiring } from "./node-context";

export type { VolumeWiring } from "./node-context";

/**
 * The services behind containers' service-link variables (KUBERNETES_SERVICE_HOST, …): with
 * --kubeconfig an informer over every namespace's services, started now as the kubelet starts its
 * service informer when it is made (ApiServiceLister, imported only then: it brings the Kubernetes
 * client); otherwise none, as the kubelet without a kube client (NoServiceLister: no variables, and
 * nothing to wait for).
 */
export async function chooseServiceLister(cluster: ClusterNode | undefined, wiring: VolumeWiring, clock: Clock, log: Logger): Promise<ServiceLister> {
  if (!cluster) return new NoServiceLister();
  if (wiring.apiServices) return wiring.apiServices(cluster);
  const { ApiServiceLister } = await loadApiServiceLister();
  return new ApiServiceLister({ client: cluster.client, clock, log }).start();
}

/**
 * The node's ObjectSource: the API server with --kubeconfig, the --local-objects folder, otherwise
 * none (NoObjectSource: a static or pushed pod that names an API object waits and says why, never
 * runs without it). The API source is imported here only with --kubeconfig: it brings the Kubernetes
 * client, which an agent without a cluster never loads.
 */
export async function chooseObjectSource(
  config: AgentConfig,
  cluster: ClusterNode | undefined,
  wiring: VolumeWiring,
  clock: Clock,
  log: Logger,
): Promise<ObjectSource> {
  if (cluster) {
    if (wiring.apiObjects) return wiring.apiObjects(cluster);
    const { ApiObjectSource } = await loadApiObjectSource();
    return new ApiObjectSource({ client: cluster.client, clock, log });
  }
  if (config.localObjects) {
    if (wiring.localObjects) return wiring.localObjects(config.localObjects);
    const local = new LocalObjectSource({ dir: config.localObjects, clock, log });
    await local.start();
    return local;
  }
  return new NoObjectSource();
}

export async function startObjects(ctx: NodeContext, cluster: ClusterNode | undefined): Promise<{ objects: ObjectSource; services: ServiceLister }> {
  const { config, deps, clock, log } = ctx;
  const objects = await chooseObjectSource(config, cluster, deps.volumes ?? {}, clock, log);
  ctx.started.add(objects.description, () => objects.close());
  const services = await chooseServiceLister(cluster, deps.volumes ?? {}, clock, log);
  ctx.started.add(services.description, () => services.close());
  return { objects, services };
}
