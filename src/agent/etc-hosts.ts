// The kubelet-managed /etc/hosts (pkg/kubelet/kubelet_pods.go of 1.36: makeMounts, makeHostsMount,
// ensureHostsFile). The agent writes one file per pod, <podsDir>/<uid>/etc-hosts (src/api
// podEtcHostsPath), and bind-mounts it read-write at /etc/hosts of every container, init and app:
//
//   - a pod on the pod network gets a file the agent makes: the managed header, the localhost and
//     IPv6 lines, one line per pod IP (every IP, so both families of a dual-stack sandbox) naming
//     "<hostname>.<domain>" and "<hostname>" when the pod has a subdomain, else "<hostname>", then the
//     hostAliases section;
//   - a host-network pod gets the node's /etc/hosts under its own header, then the hostAliases section;
//   - no file is mounted while a pod on the pod network has no IP yet (its sandbox is being made), nor
//     into a container that mounts something of its own at /etc/hosts: it keeps its own.
//
// The file is written again before each container is created, as the kubelet's makeMounts does
// (a pod's IPs are those of its current sandbox, and a host-network pod sees the node's file as it is
// then). Content is built by pure functions; only ensureHostsFile touches the disk.
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import type { Container, HostAlias, Pod } from "kubernetes-types/core/v1";

/** Where the hosts file is, in the container and on the node. */
export const ETC_HOSTS_PATH = "/etc/hosts";
export const MANAGED_HOSTS_HEADER = "# Kubernetes-managed hosts file.\n";
export const MANAGED_HOSTS_HEADER_HOST_NETWORK = "# Kubernetes-managed hosts file (host network).\n";

/** The hostAliases section: a blank line, its comment, then one line per alias: the IP and its names, tab-separated. */
export function hostAliasesEntries(aliases: readonly HostAlias[] | undefined): string {
  if (!aliases?.length) return "";
  let out = "\n# Entries added by HostAliases.\n";
  for (const a of aliases) out += `${a.ip ?? ""}\t${(a.hostnames ?? []).join("\t")}\n`;
  return out;
}

/** The file of a pod on the pod network (managedHostsFileContent). `domain` "" when the pod has no subdomain. */
export function managedHostsFileContent(podIPs: readonly string[], hostname: string, domain: string, aliases: readonly HostAlias[] | undefined): string {
  let out = MANAGED_HOSTS_HEADER;
  out += "127.0.0.1\tlocalhost\n";
  out += "::1\tlocalhost ip6-localhost ip6-loopback\n";
  out += "fe00::0\tip6-localnet\n";
  out += "fe00::0\tip6-mcastprefix\n";
  out += "fe00::1\tip6-allnodes\n";
  out += "fe00::2\tip6-allrouters\n";
  for (const ip of podIPs) out += domain ? `${ip}\t${hostname}.${domain}\t${hostname}\n` : `${ip}\t${hostname}\n`;
  return out + hostAliasesEntries(aliases);
}

/** The file of a host-network pod (nodeHostsFileContent): the node's own file, as it is, between its header and the aliases. */
export function nodeHostsFileContent(nodeHosts: string, aliases: readonly HostAlias[] | undefined): string {
  return MANAGED_HOSTS_HEADER_HOST_NETWORK + nodeHosts + hostAliasesEntries(aliases);
}

/**
 * Whether the container gets the managed file (shouldMountHostsFile and makeMounts): the pod is on the
 * host network or its sandbox has an IP, and the container mounts nothing of its own at /etc/hosts.
 */
export function mountsEtcHosts(pod: Pod, c: Container, podIPs: readonly string[]): boolean {
  if (!(pod.spec?.hostNetwork === true || podIPs.length > 0)) return false;
  return !(c.volumeMounts ?? []).some((m) => m.mountPath === ETC_HOSTS_PATH);
}

export interface HostsFileInput {
  pod: Pod;
  /** The sandbox's IPs, the primary first (unused on the host network). */
  podIPs: readonly string[];
  hostname: string;
  domain: string;
  /** The node's hosts file, read for a host-network pod; /etc/hosts when not given. */
  nodeHostsPath?: string;
}

/** The content of the pod's hosts file (ensureHostsFile without the write). */
export function hostsFileContent(i: HostsFileInput): string {
  const aliases = i.pod.spec?.hostAliases;
  if (i.pod.spec?.hostNetwork === true) return nodeHostsFileContent(readFileSync(i.nodeHostsPath ?? ETC_HOSTS_PATH, "utf8"), aliases);
  return managedHostsFileContent(i.podIPs, i.hostname, i.domain, aliases);
}

/** Writes the pod's hosts file at `file`, 0644 whatever the umask (ensureHostsFile); throws when it cannot. */
export function ensureHostsFile(file: string, i: HostsFileInput): void {
  writeFileSync(file, hostsFileContent(i), { mode: 0o644 });
  chmodSync(file, 0o644);
}
