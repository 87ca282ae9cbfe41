// The host a hollow node believes it runs on: one interface with its own InternalIP holding the default
// route (so the kubelet's address rules pick it, as on a one-NIC machine), and the machine facts the
// Node reports — this host's kernel, OS and architecture, with the capacity asked for and ids of its own.
import { createHash, randomUUID } from "node:crypto";
import type { NetworkInterfaceInfo } from "node:os";
import type { DefaultRoute, HostFacts, HostNetwork } from "../nodestatus";
import type { HollowCapacity } from "./hollow-options";

/** The interface every hollow node has. */
const IFACE = "eth0";

export class HollowHostNetwork implements HostNetwork {
  private readonly ifaces: NodeJS.Dict<NetworkInterfaceInfo[]>;

  constructor(nodeIP: string) {
    this.ifaces = {
      lo: [{ address: "127.0.0.1", family: "IPv4", internal: true, netmask: "255.0.0.0", mac: "00:00:00:00:00:00", cidr: "127.0.0.1/8" }],
      [IFACE]: [{ address: nodeIP, family: "IPv4", internal: false, netmask: "255.240.0.0", mac: "02:00:00:00:00:01", cidr: `${nodeIP}/12` }],
    };
  }

  /** Hollow names resolve to nothing: the address comes from the default route's interface. */
  async lookupIP(): Promise<string[]> {
    return [];
  }

  interfaces(): NodeJS.Dict<NetworkInterfaceInfo[]> {
    return this.ifaces;
  }

  defaultRoutes(): DefaultRoute[] {
    return [{ iface: IFACE, family: 4 }];
  }
}

/** A stable id of 32 hex digits for the node (machine-id's shape), from its name. */
function machineId(name: string): string {
  return createHash("sha256").update(`nodeagent-hollow/${name}`).digest("hex").slice(0, 32);
}

/**
 * The Node's machine for hollow node `name`: `base` (this host's facts, read once for the fleet) with the
 * capacity given, no huge pages, a machine id and system UUID stable across restarts of the fleet, and a
 * boot id new to this process (a fleet that restarts is a reboot, as for a real node).
 */
export function hollowHostFacts(base: HostFacts, capacity: HollowCapacity, name: string): HostFacts {
  const id = machineId(name);
  return {
    ...base,
    cpus: capacity.cpu,
    memoryBytes: capacity.memoryBytes,
    ephemeralStorageBytes: capacity.ephemeralStorageBytes,
    hugePages: [],
    machineID: id,
    systemUUID: `${id.slice(0, 8)}-${id.slice(8, 12)}-${id.slice(12, 16)}-${id.slice(16, 20)}-${id.slice(20, 32)}`,
    bootID: randomUUID(),
  };
}
