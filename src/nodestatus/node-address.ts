// The Node's addresses: the addresses the API server (and metrics-server, and `kubectl logs` through
// it) dials to reach this agent, and the pods' status.hostIP. The kubelet's rules without a cloud
// provider (k/k@1.24 pkg/kubelet/nodestatus/setters.go NodeAddress, kubelet_node_status.go
// validateNodeIP, apimachinery util/net ResolveBindAddress/ChooseHostInterface), in order:
//   1. --node-ip (one IP or a dual-stack pair; "0.0.0.0" or "::" alone mean "pick one", "::" of IPv6);
//   2. the node name when it is itself an IP address;
//   3. the node name looked up (getaddrinfo, like Go's net.LookupIP): the first address of the
//      preferred family that is a valid node IP (on this host, not loopback, multicast or link-local);
//      else the first valid one of the other family;
//   4. the interfaces holding a default route (IPv4 routes first, unless "::" prefers IPv6): the first
//      global unicast address of the family; without any default route, the first such address of
//      any interface that is up.
// Result: InternalIP (the secondary --node-ip as a second InternalIP), then Hostname = the node name
// (--hostname-override, lower-cased and trimmed, as nodeutil.GetHostname).
//
// Where we go past the kubelet, both said in the README:
// - A loopback --node-ip is accepted (the kubelet refuses "nodeIP can't be loopback address"): on a
//   one-host cluster whose API server runs beside the agent, 127.0.0.1 is the address it must dial.
// - When every rule finds nothing (a host with only loopback), the kubelet reports no address at all
//   and cannot fill pods' hostIP; the agent falls back to a loopback address the name resolves to, else
//   127.0.0.1 (::1 when "::" prefers IPv6), and says so once.
// The addresses are resolved once at start (the kubelet re-resolves at every status update): the
// pods' hostIP, which the kubelet takes from the Node, must stay the same address as the Node's.
import * as dns from "node:dns";
import { readFileSync } from "node:fs";
import { networkInterfaces, type NetworkInterfaceInfo } from "node:os";
import type { NodeAddress } from "kubernetes-types/core/v1";
import { isGlobalUnicastIP, isLinkLocalUnicastIP, isLoopbackIP, isMulticastIP, isUnspecifiedIP, parseIP, type ParsedIP } from "../util";

/** A default route (/proc/net/route, /proc/net/ipv6_route): the interface holding it, and its family. */
export interface DefaultRoute {
  iface: string;
  family: 4 | 6;
}

/** What the rules read from the host; a fake in tests. */
export interface HostNetwork {
  /** The name's addresses as getaddrinfo gives them (/etc/hosts, DNS), in order; [] when it does not resolve. */
  lookupIP(name: string): Promise<string[]>;
  /** The interfaces that are up and their addresses (os.networkInterfaces: `internal` is loopback). */
  interfaces(): NodeJS.Dict<NetworkInterfaceInfo[]>;
  defaultRoutes(): DefaultRoute[];
}

/** How long the node name's lookup may take before the rules go on without it. */
const LOOKUP_DEADLINE_MS = 5_000;

export const realHostNetwork: HostNetwork = {
  async lookupIP(name) {
    const lookup = dns.promises.lookup(name, { all: true, verbatim: true }).then(
      (all) => all.map((a) => a.address),
      () => [],
    );
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<string[]>((resolve) => (timer = setTimeout(() => resolve([]), LOOKUP_DEADLINE_MS)));
    try {
      return await Promise.race([lookup, deadline]);
    } finally {
      clearTimeout(timer);
    }
  },
  interfaces: () => networkInterfaces(),
  defaultRoutes: () => parseDefaultRoutes(readOr("/proc/net/route"), readOr("/proc/net/ipv6_route")),
};

function readOr(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

/**
 * The default routes in /proc/net/route (Destination 00000000) and /proc/net/ipv6_route (destination
 * ::/0), in the files' order, as apimachinery's getAllDefaultRoutes reads them. IPv6 "unreachable"
 * defaults sit on lo; they yield no global address anyway and are left out.
 */
export function parseDefaultRoutes(route4: string, route6: string): DefaultRoute[] {
  const routes: DefaultRoute[] = [];
  for (const line of route4.split("\n").slice(1)) {
    const [iface, dest] = line.trim().split(/\s+/);
    if (iface && dest === "00000000") routes.push({ iface, family: 4 });
  }
  for (const line of route6.split("\n")) {
    const f = line.trim().split(/\s+/);
    if (f.length >= 10 && /^0{32}$/.test(f[0]!) && f[1] === "00" && f[9] !== "lo") routes.push({ iface: f[9]!, family: 6 });
  }
  return routes;
}

/**
 * Parses --node-ip: one address, or a dual-stack pair "IPv4,IPv6" (either order), as NewMainKubelet
 * checks it; returns the canonical spellings ([] for ""). "0.0.0.0" and "::" alone mean "pick one".
 * Throws with the reason. (The kubelet logs and skips an unparsable entry; here it is a usage error.)
 */
export function parseNodeIPs(text: string): string[] {
  if (text.trim() === "") return [];
  const ips = text.split(",").map((part) => {
    const ip = parseIP(part);
    if (!ip) throw new Error(`${JSON.stringify(part.trim())} is not an IP address`);
    return ip;
  });
  if (ips.length > 2 || (ips.length === 2 && ips[0]!.family === ips[1]!.family)) throw new Error("must contain either a single IP or a dual-stack pair of IPs");
  if (ips.length === 2 && ips.some(isUnspecifiedIP)) throw new Error("a dual-stack --node-ip cannot include '0.0.0.0' or '::'");
  return ips.map((ip) => ip.text);
}

/** Every address of the host's interfaces, canonical. */
function hostAddresses(net: Pick<HostNetwork, "interfaces">): Set<string> {
  const out = new Set<string>();
  for (const addrs of Object.values(net.interfaces())) for (const a of addrs ?? []) out.add(parseIP(a.address)?.text ?? a.address);
  return out;
}

/**
 * kubelet validateNodeIP: why `ip` cannot be the node's IP, or undefined when it can. `allowLoopback`
 * is the agent's one departure, for an address given with --node-ip (see the file's comment).
 */
export function nodeIPProblem(ip: ParsedIP, net: Pick<HostNetwork, "interfaces">, allowLoopback = false): string | undefined {
  if (isLoopbackIP(ip) && !allowLoopback) return "nodeIP can't be loopback address";
  if (isMulticastIP(ip)) return "nodeIP can't be a multicast address";
  if (isLinkLocalUnicastIP(ip)) return "nodeIP can't be a link-local unicast address";
  if (isUnspecifiedIP(ip)) return "nodeIP can't be an all zeros address";
  if (!hostAddresses(net).has(ip.text)) return `node IP: ${JSON.stringify(ip.text)} not found in the host's network interfaces`;
  return undefined;
}

/** The first global unicast address of `family` on interface `name` (apimachinery getIPFromInterface). */
function globalAddressOf(addrs: NetworkInterfaceInfo[] | undefined, family: 4 | 6): string | undefined {
  for (const a of addrs ?? []) {
    const ip = parseIP(a.address);
    if (ip && ip.family === family && isGlobalUnicastIP(ip)) return ip.text;
  }
  return undefined;
}

/**
 * ChooseHostInterface: an address of the interfaces holding a default route, families in the given
 * order; without any default route, of any interface that is up and not loopback. Throws with the
 * apimachinery messages.
 */
export function chooseHostInterface(net: HostNetwork, families: readonly (4 | 6)[]): string {
  const ifaces = net.interfaces();
  const routes = net.defaultRoutes();
  if (routes.length === 0) {
    for (const family of families) {
      for (const addrs of Object.values(ifaces)) {
        if (addrs?.some((a) => a.internal)) continue;
        const ip = globalAddressOf(addrs, family);
        if (ip) return ip;
      }
    }
    throw new Error("no acceptable interface with global unicast address found on host");
  }
  for (const family of families) {
    for (const route of routes) {
      if (route.family !== family) continue;
      const ip = globalAddressOf(ifaces[route.iface], family);
      if (ip) return ip;
    }
  }
  throw new Error("unable to select an IP from default routes.");
}

export interface NodeAddressOptions {
  /** parseNodeIPs(--node-ip): [] when not given. */
  nodeIPs: readonly string[];
  /** The node name (--hostname-override or the host's name, lower-cased): the Hostname address and the name looked up. */
  nodeName: string;
  net: HostNetwork;
}

export interface ResolvedNodeAddresses {
  /** InternalIP(s), then Hostname: status.addresses. */
  addresses: NodeAddress[];
  /** The InternalIPs, primary first: the pods' status.hostIP (the first) and status.hostIPs. */
  hostIPs: string[];
  /** Set when the loopback fallback was taken, to be logged. */
  warning?: string;
}

/** The Node's addresses by the kubelet's rules (see the file's comment). Throws when --node-ip fails validation. */
export async function resolveNodeAddresses(o: NodeAddressOptions): Promise<ResolvedNodeAddresses> {
  const [first, second] = o.nodeIPs.map((t) => parseIP(t)!);
  const preferIPv4 = !first || first.family === 4;
  const families: (4 | 6)[] = preferIPv4 ? [4, 6] : [6, 4];
  const specified = (ip: ParsedIP | undefined): ip is ParsedIP => ip !== undefined && !isUnspecifiedIP(ip);
  for (const [ip, what] of [
    [first, "nodeIP"],
    [second, "secondaryNodeIP"],
  ] as const) {
    if (!specified(ip)) continue;
    const problem = nodeIPProblem(ip, o.net, true);
    if (problem) throw new Error(`failed to validate ${what}: ${problem}`);
  }
  const result = (hostIPs: string[], warning?: string): ResolvedNodeAddresses => ({
    addresses: [...hostIPs.map((address) => ({ type: "InternalIP", address })), { type: "Hostname", address: o.nodeName }],
    hostIPs,
    ...(warning ? { warning } : {}),
  });

  if (specified(first)) return result(specified(second) ? [first.text, second.text] : [first.text]);
  const named = parseIP(o.nodeName);
  if (named) return result([named.text]);

  const looked = (await o.net.lookupIP(o.nodeName)).map((t) => parseIP(t)).filter((ip): ip is ParsedIP => ip !== undefined);
  let chosen: ParsedIP | undefined;
  for (const ip of looked) {
    if (nodeIPProblem(ip, o.net)) continue;
    if ((ip.family === 4) === preferIPv4) {
      chosen = ip;
      break;
    }
    chosen ??= ip;
  }
  if (chosen) return result([chosen.text]);

  let reason: string;
  try {
    return result([chooseHostInterface(o.net, families)]);
  } catch (e) {
    reason = e instanceof Error ? e.message : String(e);
  }
  const loopback = looked.find((ip) => isLoopbackIP(ip) && ip.family === families[0])?.text ?? (preferIPv4 ? "127.0.0.1" : "::1");
  return result([loopback], `can't get ip address of node ${o.nodeName}. error: ${reason}; using ${loopback} (give --node-ip to choose the node's address)`);
}
