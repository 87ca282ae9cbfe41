// The node's capacity and allocatable (status.capacity, status.allocatable) in the API's canonical
// quantity forms: capacity from the host's facts, allocatable = capacity − kube/system-reserved − what
// the hard eviction thresholds hold back (cm.GetNodeAllocatableReservation), clamped at zero as the
// kubelet does. The thresholds are the caller's input, as the kubelet's container manager gets them
// from its config: src/nodestatus sits below the eviction manager and does not import it.
import { parseQuantity } from "../api";
import { errorMessage } from "../util";
import type { HostFacts } from "./host-facts";

const BINARY_SUFFIX: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };

/** Bytes in the canonical form the API server gives a BinarySI quantity: 1024 → "1Ki", 1536 → "1536". */
export function formatBytes(bytes: number): string {
  const b = Math.max(0, Math.floor(bytes));
  for (const suffix of ["Ei", "Pi", "Ti", "Gi", "Mi", "Ki"]) {
    const unit = BINARY_SUFFIX[suffix]!;
    if (b >= unit && b % unit === 0) return `${b / unit}${suffix}`;
  }
  return String(b);
}

/** Millicores in canonical DecimalSI form: 4000 → "4", 3900 → "3900m". */
export function formatMillicores(milli: number): string {
  const m = Math.max(0, Math.round(milli));
  return m % 1000 === 0 ? String(m / 1000) : `${m}m`;
}

/**
 * What the hard eviction thresholds take off allocatable memory and ephemeral storage, given the
 * capacity: the caller computes it from the configured thresholds (the eviction manager's
 * hardEvictionReservation), as the kubelet's container manager takes them from its config.
 */
export type EvictionReservation = (capacity: { memoryBytes: number; ephemeralStorageBytes?: number }) => { memoryBytes: number; ephemeralStorageBytes: number };

export interface NodeResourceOptions {
  /** The pods capacity (--max-pods). */
  maxPods: number;
  /** kube-reserved + system-reserved, as quantities. */
  reserved?: { cpu?: string; memory?: string; ephemeralStorage?: string };
  evictionReservation: EvictionReservation;
}

/** Capacity and allocatable of a host; an Error naming the setting for a reserved quantity that does not parse. */
export function nodeResources(host: HostFacts, o: NodeResourceOptions): { capacity: Record<string, string>; allocatable: Record<string, string> } {
  const reserved = (what: string, q: string | undefined, unit: "milli" | "value") => {
    if (!q) return 0;
    try {
      return unit === "milli" ? parseQuantity(q).milli() : parseQuantity(q).value();
    } catch (e) {
      throw new Error(`invalid quantity ${JSON.stringify(q)} for reserved ${what}: ${errorMessage(e)}`);
    }
  };
  const reservedMilliCpu = reserved("cpu", o.reserved?.cpu, "milli");
  const reservedMemory = reserved("memory", o.reserved?.memory, "value");
  const reservedStorage = reserved("ephemeral-storage", o.reserved?.ephemeralStorage, "value");
  const capacity: Record<string, string> = {
    cpu: String(host.cpus),
    memory: formatBytes(host.memoryBytes),
    pods: String(o.maxPods),
  };
  const eviction = o.evictionReservation({ memoryBytes: host.memoryBytes, ephemeralStorageBytes: host.ephemeralStorageBytes });
  const allocatable: Record<string, string> = {
    cpu: formatMillicores(host.cpus * 1000 - reservedMilliCpu),
    memory: formatBytes(host.memoryBytes - reservedMemory - eviction.memoryBytes),
    pods: String(o.maxPods),
  };
  // cadvisor.CapacityFromMachineInfo: hugepages-<page size> = page size × pages, 0 for a pool with no
  // pages; MachineInfo then takes every hugepages capacity off allocatable memory (clamped at 0).
  let hugePagesBytes = 0;
  for (const pool of host.hugePages) {
    const name = `hugepages-${formatBytes(pool.pageSizeBytes)}`;
    capacity[name] = allocatable[name] = formatBytes(pool.pageSizeBytes * pool.pages);
    hugePagesBytes += pool.pageSizeBytes * pool.pages;
  }
  if (hugePagesBytes > 0) allocatable.memory = formatBytes(host.memoryBytes - reservedMemory - eviction.memoryBytes - hugePagesBytes);
  if (host.ephemeralStorageBytes !== undefined) {
    capacity["ephemeral-storage"] = formatBytes(host.ephemeralStorageBytes);
    allocatable["ephemeral-storage"] = formatBytes(host.ephemeralStorageBytes - reservedStorage - eviction.ephemeralStorageBytes);
  }
  return { capacity, allocatable };
}
