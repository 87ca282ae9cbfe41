// The one fake HostNetwork (src/nodestatus/node-address.ts): interfaces, default routes and name lookups
// as a test sets them. Its default is a typical host: eth0 with 192.0.2.10 (and a global and a
// link-local IPv6 address) holding the default routes, a pod bridge, and lo.
import type { NetworkInterfaceInfo } from "node:os";
import type { DefaultRoute, HostNetwork } from "../../src/nodestatus/node-address";

/** An interface address as os.networkInterfaces() gives it. */
export function ifaceAddress(address: string, internal = false): NetworkInterfaceInfo {
  const v6 = address.includes(":");
  return v6
    ? { address, family: "IPv6", internal, netmask: "ffff:ffff:ffff:ffff::", mac: "00:00:00:00:00:00", cidr: `${address}/64`, scopeid: 0 }
    : { address, family: "IPv4", internal, netmask: "255.255.255.0", mac: "00:00:00:00:00:00", cidr: `${address}/24` };
}

export class FakeHostNetwork implements HostNetwork {
  ifaces: Record<string, NetworkInterfaceInfo[]> = {
    lo: [ifaceAddress("127.0.0.1", true), ifaceAddress("::1", true)],
    eth0: [ifaceAddress("fe80::1"), ifaceAddress("192.0.2.10"), ifaceAddress("2001:db8::10")],
    nodeagent0: [ifaceAddress("10.88.0.1")],
  };
  routes: DefaultRoute[] = [
    { iface: "eth0", family: 4 },
    { iface: "eth0", family: 6 },
  ];
  /** Name → what getaddrinfo answers. */
  names: Record<string, string[]> = {};
  lookups: string[] = [];

  async lookupIP(name: string): Promise<string[]> {
    this.lookups.push(name);
    return this.names[name] ?? [];
  }
  interfaces(): NodeJS.Dict<NetworkInterfaceInfo[]> {
    return this.ifaces;
  }
  defaultRoutes(): DefaultRoute[] {
    return this.routes;
  }
}
