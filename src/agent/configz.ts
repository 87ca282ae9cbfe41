// /configz: the configuration the agent runs with, as the kubelet serves it — {"kubeletconfig": …}
// in KubeletConfiguration's (kubelet.config.k8s.io/v1beta1) field names and Go duration text — for
// the fields nodeagent has (its own, such as podLogsDir as the newer KubeletConfiguration names it,
// under the same spelling). Secrets never appear: the push token is only said to be set, and the
// values of staticPodURLHeader are replaced (the kubelet shows them; the API is authenticated, but a
// header is often a credential to a third party).
import { formatDuration } from "../util/duration";
import type { AgentConfig } from "./agent-config";

export function kubeletConfigz(c: AgentConfig): { kubeletconfig: Record<string, unknown> } {
  const s = c.server;
  const headers = Object.fromEntries(Object.entries(c.manifestUrlHeaders).map(([k, v]) => [k, v.map(() => "<redacted>")]));
  const cfg: Record<string, unknown> = {
    kind: "KubeletConfiguration",
    apiVersion: "kubelet.config.k8s.io/v1beta1",
    ...(c.manifestPath ? { staticPodPath: c.manifestPath } : {}),
    syncFrequency: formatDuration(c.syncFrequencyMs),
    fileCheckFrequency: formatDuration(c.fileCheckFrequencyMs),
    httpCheckFrequency: formatDuration(c.httpCheckFrequencyMs),
    ...(c.manifestUrl ? { staticPodURL: c.manifestUrl, staticPodURLHeader: headers } : {}),
    address: s.address,
    port: s.port,
    ...(s.tls ? { tlsCertFile: s.tls.certFile, tlsPrivateKeyFile: s.tls.keyFile } : {}),
    ...(c.cluster ? { rotateCertificates: c.cluster.certificates.rotateCertificates, serverTLSBootstrap: c.cluster.certificates.serverTLSBootstrap } : {}),
    authentication: {
      x509: s.authentication.clientCAFile ? { clientCAFile: s.authentication.clientCAFile } : {},
      webhook: { enabled: s.authentication.webhook.enabled, cacheTTL: formatDuration(s.authentication.webhook.cacheTTLMs) },
      anonymous: { enabled: s.authentication.anonymous },
    },
    authorization: {
      mode: s.authorization.mode,
      webhook: {
        cacheAuthorizedTTL: formatDuration(s.authorization.webhook.cacheAuthorizedTTLMs),
        cacheUnauthorizedTTL: formatDuration(s.authorization.webhook.cacheUnauthorizedTTLMs),
      },
    },
    ...(c.pods.clusterDNS.length ? { clusterDNS: c.pods.clusterDNS } : {}),
    clusterDomain: c.pods.clusterDomain,
    resolvConf: c.pods.resolvConf,
    cgroupRoot: c.pods.cgroupRoot,
    cgroupDriver: c.cgroups.driver,
    cgroupsPerQOS: c.cgroups.perQOS,
    enforceNodeAllocatable: c.cgroups.enforceNodeAllocatable,
    ...(c.cgroups.systemReservedCgroup ? { systemReservedCgroup: c.cgroups.systemReservedCgroup } : {}),
    ...(c.cgroups.kubeReservedCgroup ? { kubeReservedCgroup: c.cgroups.kubeReservedCgroup } : {}),
    podLogsDir: c.pods.logsDir,
    maxPods: c.node.maxPods,
    ...(c.cluster ? { nodeStatusUpdateFrequency: formatDuration(c.cluster.nodeStatusUpdateFrequencyMs) } : {}),
    ...(c.runtime.endpoint ? { containerRuntimeEndpoint: c.runtime.endpoint } : {}),
    runtimeRequestTimeout: formatDuration(c.runtime.requestTimeoutMs),
    ...(c.node.taints.length ? { registerWithTaints: c.node.taints } : {}),
    ...(c.allowedUnsafeSysctls.length ? { allowedUnsafeSysctls: c.allowedUnsafeSysctls } : {}),
    evictionHard: c.eviction.maps.hard ?? {},
    ...(c.eviction.maps.soft ? { evictionSoft: c.eviction.maps.soft } : {}),
    ...(c.eviction.maps.softGracePeriod ? { evictionSoftGracePeriod: c.eviction.maps.softGracePeriod } : {}),
    ...(c.eviction.maps.minimumReclaim ? { evictionMinimumReclaim: c.eviction.maps.minimumReclaim } : {}),
    evictionPressureTransitionPeriod: formatDuration(c.eviction.pressureTransitionPeriodMs),
    evictionMaxPodGracePeriod: c.eviction.maxPodGracePeriodSeconds,
    imageGCHighThresholdPercent: c.gc.image.highThresholdPercent,
    imageGCLowThresholdPercent: c.gc.image.lowThresholdPercent,
    imageMinimumGCAge: formatDuration(c.gc.image.minAgeMs),
    containerLogMaxSize: binaryQuantity(c.gc.containerLogs.maxSizeBytes),
    containerLogMaxFiles: c.gc.containerLogs.maxFiles,
    shutdownGracePeriod: formatDuration(c.shutdown.gracePeriodMs),
    shutdownGracePeriodCriticalPods: formatDuration(c.shutdown.criticalPodsMs),
    ...(c.shutdown.byPodPriority ? { shutdownGracePeriodByPodPriority: c.shutdown.periods } : {}),
  };
  return { kubeletconfig: cfg };
}

/** Bytes as the largest binary suffix that divides them ("10Mi"), as a Quantity prints them. */
function binaryQuantity(bytes: number): string {
  for (const [suffix, unit] of [["Ti", 2 ** 40], ["Gi", 2 ** 30], ["Mi", 2 ** 20], ["Ki", 2 ** 10]] as const) {
    if (bytes >= unit && bytes % unit === 0) return `${bytes / unit}${suffix}`;
  }
  return String(bytes);
}
