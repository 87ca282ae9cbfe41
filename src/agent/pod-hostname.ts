// A pod's hostname and domain, as the kubelet's GeneratePodHostNameAndDomain and GetNodenameForKernel
// work them out (pkg/kubelet/kubelet_pods.go, pkg/kubelet/util/util.go, 1.36):
//
//   - hostname: spec.hostnameOverride when set (HostnameOverride, beta and on by default since 1.35;
//     a DNS-1123 subdomain, and no domain then), else spec.hostname, else the pod's name; cut to 63
//     characters with any trailing '-' or '.' dropped, since the kernel's nodename holds 64 bytes with
//     its terminating NUL;
//   - domain: "<subdomain>.<namespace>.svc.<cluster domain>" when spec.subdomain is set, else none;
//   - the kernel's hostname (the sandbox's): the short hostname, or with setHostnameAsFQDN and a
//     domain "<hostname>.<domain>", refused when over 64 characters.
//
// Both the sandbox's hostname and the managed /etc/hosts (etc-hosts.ts) are made from these. A value
// that is not a valid name (a static pod's, which no API server checked) is an error with the
// kubelet's message: the sandbox is not made, or the container not created.
import type { Pod, PodSpec } from "kubernetes-types/core/v1";
import { isDNS1123Label, isDNS1123Subdomain, podRef } from "../api";

/** A hostname the kubelet would not make for the pod: the sandbox is not made, or the container not created. */
export class PodHostnameError extends Error {
  override name = "PodHostnameError";
}

/** The kernel's nodename field: 64 bytes with the terminating NUL. */
const HOSTNAME_MAX_LEN = 63;
/** An FQDN used as the kernel hostname may take the whole field (the kubelet's fqdnMaxLen). */
const FQDN_MAX_LEN = 64;

/** spec.hostnameOverride (1.34): not in kubernetes-types 1.30, decoded by the pod schema. */
type SpecWithOverride = PodSpec & { hostnameOverride?: string };

export interface PodHostnameAndDomain {
  /** The short hostname. */
  hostname: string;
  /** "<subdomain>.<namespace>.svc.<cluster domain>", or "" without a subdomain (or with hostnameOverride). */
  domain: string;
}

/** The kubelet's truncatePodHostnameIfNeeded: at most 63 characters, not ending in '-' or '.'. */
function truncateHostname(podName: string, hostname: string): string {
  if (hostname.length <= HOSTNAME_MAX_LEN) return hostname;
  const truncated = hostname.slice(0, HOSTNAME_MAX_LEN).replace(/[-.]+$/, "");
  if (truncated === "") throw new PodHostnameError(`hostname for pod ${JSON.stringify(podName)} was invalid: ${JSON.stringify(hostname)}`);
  return truncated;
}

/** The pod's hostname and domain (GeneratePodHostNameAndDomain); throws with the kubelet's message for an invalid one. */
export function podHostnameAndDomain(pod: Pod, clusterDomain: string): PodHostnameAndDomain {
  const ref = podRef(pod);
  const spec = (pod.spec ?? {}) as SpecWithOverride;
  if (spec.hostnameOverride !== undefined && spec.hostnameOverride !== null) {
    const msgs = isDNS1123Subdomain(spec.hostnameOverride);
    if (msgs.length)
      throw new PodHostnameError(`pod HostnameOverride ${JSON.stringify(spec.hostnameOverride)} is not a valid DNS subdomain: ${msgs.join(";")}`);
    return { hostname: truncateHostname(ref.name, spec.hostnameOverride), domain: "" };
  }
  let hostname = ref.name;
  if (spec.hostname) {
    const msgs = isDNS1123Label(spec.hostname);
    if (msgs.length) throw new PodHostnameError(`pod Hostname ${JSON.stringify(spec.hostname)} is not a valid DNS label: ${msgs.join(";")}`);
    hostname = spec.hostname;
  }
  hostname = truncateHostname(ref.name, hostname);
  let domain = "";
  if (spec.subdomain) {
    const msgs = isDNS1123Label(spec.subdomain);
    if (msgs.length) throw new PodHostnameError(`pod Subdomain ${JSON.stringify(spec.subdomain)} is not a valid DNS label: ${msgs.join(";")}`);
    domain = `${spec.subdomain}.${ref.namespace}.svc.${clusterDomain}`;
  }
  return { hostname, domain };
}

/**
 * The hostname the sandbox's kernel gets (GetNodenameForKernel): the FQDN when the pod sets
 * setHostnameAsFQDN and has a domain, else the short name. An FQDN over 64 characters is an error.
 */
export function nodenameForKernel(names: PodHostnameAndDomain, setHostnameAsFQDN: boolean | undefined): string {
  if (!names.domain || setHostnameAsFQDN !== true) return names.hostname;
  const fqdn = `${names.hostname}.${names.domain}`;
  if (fqdn.length > FQDN_MAX_LEN)
    throw new PodHostnameError(
      `failed to construct FQDN from pod hostname and cluster domain, FQDN ${fqdn} is too long (${FQDN_MAX_LEN} characters is the max, ${fqdn.length} characters requested)`,
    );
  return fqdn;
}
