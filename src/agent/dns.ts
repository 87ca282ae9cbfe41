// A pod's resolv.conf, as the kubelet's dns.Configurer builds it (pkg/kubelet/network/dns): the pod's
// dnsPolicy picks the base (the cluster's DNS, the host's resolv.conf, or nothing) and dnsConfig is
// merged on top. Without --cluster-dns, ClusterFirst falls back to Default, as the kubelet does.
import { readFileSync } from "node:fs";
import type { Pod } from "kubernetes-types/core/v1";
import type { PodSandboxConfigInput } from "../cri";

export interface ClusterDnsOptions {
  /** The kubelet's --cluster-dns: the cluster DNS servers' IPs. Empty: no cluster DNS. */
  servers: string[];
  /** The kubelet's --cluster-domain, e.g. cluster.local. */
  domain: string;
  /** The host's resolver configuration (the kubelet's --resolv-conf). */
  resolvConf: string;
}

/** The CRI DNSConfig with every list present. */
export interface DnsConfig extends NonNullable<PodSandboxConfigInput["dnsConfig"]> {
  servers: string[];
  searches: string[];
  options: string[];
}

/** The kubelet's validation limits (MaxDNSNameservers, MaxDNSSearchPaths). */
export const MAX_NAMESERVERS = 3;
export const MAX_SEARCHES = 32;
/** The kubelet's defaultDNSOptions for ClusterFirst. */
const CLUSTER_FIRST_OPTIONS = ["ndots:5"];

/** The resolver settings in a resolv.conf text: nameserver, search (the last one wins) and options. */
export function parseResolvConf(text: string): DnsConfig {
  const cfg: DnsConfig = { servers: [], searches: [], options: [] };
  for (const raw of text.split("\n")) {
    const line = raw.replace(/[#;].*$/, "").trim();
    const [key, ...fields] = line.split(/\s+/);
    if (key === "nameserver" && fields[0]) cfg.servers.push(fields[0]);
    else if (key === "search" || key === "domain") cfg.searches = fields;
    else if (key === "options") cfg.options.push(...fields);
  }
  return cfg;
}

/** The policy in effect: ClusterFirst on the host network, or without cluster DNS, is Default. */
export function effectiveDnsPolicy(pod: Pod, cluster: ClusterDnsOptions | undefined): "ClusterFirst" | "Default" | "None" {
  const policy = pod.spec?.dnsPolicy ?? "ClusterFirst";
  if (policy === "None" || policy === "Default") return policy;
  const hasCluster = (cluster?.servers.length ?? 0) > 0;
  if (policy === "ClusterFirstWithHostNet") return hasCluster ? "ClusterFirst" : "Default";
  return pod.spec?.hostNetwork || !hasCluster ? "Default" : "ClusterFirst";
}

/**
 * The sandbox's DNS config, or null to let the runtime copy the host's resolv.conf unchanged (the
 * Default policy with nothing to merge: the same file, without reading it here).
 */
export function podDnsConfig(
  pod: Pod,
  cluster: ClusterDnsOptions | undefined,
  readHost: (path: string) => string = (p) => readFileSync(p, "utf8"),
): DnsConfig | null {
  const policy = effectiveDnsPolicy(pod, cluster);
  const extra = pod.spec?.dnsConfig;
  let base: DnsConfig;
  switch (policy) {
    case "None":
      base = { servers: [], searches: [], options: [] };
      break;
    case "Default":
      if (!extra) return null;
      base = hostConfig(cluster?.resolvConf ?? "/etc/resolv.conf", readHost);
      break;
    case "ClusterFirst": {
      const ns = pod.metadata?.namespace || "default";
      const d = cluster!.domain;
      const host = hostConfig(cluster!.resolvConf, readHost);
      base = { servers: [...cluster!.servers], searches: [`${ns}.svc.${d}`, `svc.${d}`, d, ...host.searches], options: [...CLUSTER_FIRST_OPTIONS] };
      break;
    }
  }
  const merged: DnsConfig = {
    servers: dedupe([...base.servers, ...(extra?.nameservers ?? [])]).slice(0, MAX_NAMESERVERS),
    searches: dedupe([...base.searches, ...(extra?.searches ?? [])]).slice(0, MAX_SEARCHES),
    options: mergeOptions(
      base.options,
      (extra?.options ?? []).map((o) => (o.value !== undefined ? `${o.name}:${o.value}` : (o.name ?? ""))),
    ),
  };
  return merged;
}

function hostConfig(path: string, readHost: (path: string) => string): DnsConfig {
  try {
    return parseResolvConf(readHost(path));
  } catch {
    // The kubelet runs the pod without the host's settings when the file cannot be read.
    return { servers: [], searches: [], options: [] };
  }
}

function dedupe(xs: string[]): string[] {
  return [...new Set(xs.filter(Boolean))];
}

/** Options merge by name, a later value replacing an earlier one (the kubelet's mergeDNSOptions). */
function mergeOptions(base: string[], extra: string[]): string[] {
  const byName = new Map<string, string>();
  for (const o of [...base, ...extra]) if (o) byName.set(o.split(":")[0]!, o);
  return [...byName.values()];
}
