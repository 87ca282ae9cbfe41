// /configz: the configuration the agent runs with, as the kubelet serves it — {"kubeletconfig": …}
// in KubeletConfiguration's (kubelet.config.k8s.io/v1beta1) field names and Go duration text — for
// the fields nodeagent has (its own, such as podLogsDir as the newer KubeletConfiguration names it,
// under the same spelling). Derived from the setting rows: each row with a field says what it shows
// (`show`), from its subsystem's part of the config. Secrets never appear: the push token has no
// field, and the values of staticPodURLHeader are replaced (the kubelet shows them; the API is
// authenticated, but a header is often a credential to a third party).
import { SYSCTL_SETTINGS } from "../admission";
import { CGROUP_SETTINGS } from "../cm";
import { SOURCE_SETTINGS } from "../config";
import { RUNTIME_SETTINGS } from "../cri";
import { CONTAINER_LOG_SETTINGS, GC_SETTINGS } from "../gc";
import { EVICTION_SETTINGS } from "../eviction";
import { SHUTDOWN_SETTINGS } from "../nodeshutdown";
import { NODE_SETTINGS } from "../nodestatus";
import { SERVER_SETTINGS } from "../server";
import { showFields } from "../util";
import type { AgentConfig } from "./agent-config";
import { AGENT_OWN_SETTINGS } from "./agent-settings";
import { CLUSTER_SETTINGS } from "./cluster-settings";
import { KUBELET_CONFIG_API_VERSION } from "./kubelet-config-file";

export function kubeletConfigz(c: AgentConfig): { kubeletconfig: Record<string, unknown> } {
  const cfg: Record<string, unknown> = { kind: "KubeletConfiguration", apiVersion: KUBELET_CONFIG_API_VERSION };
  // Each subsystem's rows, with the part of the config they are resolved into.
  showFields(cfg, RUNTIME_SETTINGS, c.runtime);
  showFields(cfg, AGENT_OWN_SETTINGS, c);
  showFields(cfg, SOURCE_SETTINGS, c);
  showFields(cfg, SERVER_SETTINGS, c.server);
  showFields(cfg, NODE_SETTINGS, c);
  showFields(cfg, SYSCTL_SETTINGS, c);
  showFields(cfg, CGROUP_SETTINGS, { cgroups: c.cgroups, cgroupRoot: c.pods.cgroupRoot });
  showFields(cfg, EVICTION_SETTINGS, c.eviction);
  showFields(cfg, GC_SETTINGS, c.gc);
  showFields(cfg, CONTAINER_LOG_SETTINGS, c.gc);
  showFields(cfg, CLUSTER_SETTINGS, c);
  showFields(cfg, SHUTDOWN_SETTINGS, c.shutdown);
  return { kubeletconfig: cfg };
}
