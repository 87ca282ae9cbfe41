// ApiServiceLister: the services of every namespace, from the API server, for the service-link
// variables of containers — the kubelet's service informer (k/k@1.24.1 pkg/kubelet/kubelet.go
// NewMainKubelet: a shared informer over all services, started at once and never stopped, its lister
// read by getServiceEnvVarMap and its HasSynced by makeEnvironmentVariables).
//
// A list of /api/v1/services and a watch from its resourceVersion (KubeInformer: relists after 410,
// retries with backoff and keeps what it had while the server is away). The Node authorizer leaves
// services to RBAC, and the system:node ClusterRole grants get/list/watch of services in every
// namespace, so the node's own credentials do. Until the first list has been applied hasSynced() is
// false and an API pod's env waits (SERVICES_NOT_SYNCED); once synced it stays so, and a later change
// reaches only containers created after it (service variables are not part of a container's hash:
// a running container is never restarted because a service changed, as in the kubelet).
//
// This module brings the Kubernetes client: the node imports it only with --kubeconfig.
import type { Service } from "kubernetes-types/core/v1";
import { type KubeClient, KubeInformer } from "../kube";
import type { Clock, Logger } from "../util";
import type { ServiceLister } from "./types";

export interface ApiServiceListerOptions {
  client: KubeClient;
  clock: Clock;
  log: Logger;
  /** Retry backoff of a failed list or watch (KubeInformer's: 1 s doubling to 30 s). */
  minBackoffMs?: number;
  maxBackoffMs?: number;
}

export class ApiServiceLister implements ServiceLister {
  readonly description: string;
  private readonly informer: KubeInformer<Service>;

  constructor(o: ApiServiceListerOptions) {
    this.description = `services of the API server ${o.client.server}`;
    this.informer = new KubeInformer<Service>({
      client: o.client,
      path: "/api/v1/services",
      clock: o.clock,
      log: o.log,
      what: "services",
      minBackoffMs: o.minBackoffMs,
      maxBackoffMs: o.maxBackoffMs,
    });
  }

  /** Starts the list and watch (the kubelet starts its informer factory when it is made). */
  start(): this {
    this.informer.start();
    return this;
  }

  hasSynced(): boolean {
    return this.informer.hasSynced;
  }

  /** Resolves once the first list has been applied (for tests). */
  synced(): Promise<void> {
    return this.informer.synced();
  }

  list(): readonly Service[] {
    return this.informer.list();
  }

  close(): void {
    void this.informer.stop();
  }
}
