// NoServiceLister: the services of an agent without an API server. The kubelet without a kube client
// lists an empty indexer and counts it as synced (k/k@1.24.1 pkg/kubelet/kubelet.go NewMainKubelet:
// `serviceHasSynced = func() bool { return true }`), so its pods get no service-link variables at all,
// not even KUBERNETES_SERVICE_HOST, and nothing waits for a list that will never come.
import type { Service } from "kubernetes-types/core/v1";
import type { ServiceLister } from "./types";

export class NoServiceLister implements ServiceLister {
  readonly description = "no services (no API server)";

  hasSynced(): boolean {
    return true;
  }

  list(): readonly Service[] {
    return [];
  }

  close(): void {}
}
