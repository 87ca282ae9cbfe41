// PodAddresses: the pod IPs of the in-memory runtime (memory-runtime.ts), as a host-local IPAM hands
// them out of the node's pod CIDR: the network's first address is the gateway's, pods get the next
// free ones in turn, and an address comes free when its sandbox stops (CNI DEL runs on stop). IPv4
// only. UpdateRuntimeConfig's pod CIDR (the Node's spec.podCIDR) replaces the range for new sandboxes.
export class PodAddresses {
  private cidr = "";
  private base = 0;
  private size = 0;
  private next = 0;
  private readonly inUse = new Set<number>();

  constructor(cidr: string) {
    this.setRange(cidr);
  }

  /** Takes a new range ("10.88.0.0/16"); throws on one that is not an IPv4 CIDR with room for pods. */
  setRange(cidr: string): void {
    if (cidr.trim() === this.cidr) return;
    const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/.exec(cidr.trim());
    const octets = m ? m.slice(1, 5).map(Number) : [];
    const bits = m ? Number(m[5]) : -1;
    if (!m || octets.some((o) => o > 255) || bits < 8 || bits > 30) throw new Error(`pod CIDR ${JSON.stringify(cidr)}: an IPv4 CIDR from /8 to /30 is needed`);
    const addr = ((octets[0]! << 24) | (octets[1]! << 16) | (octets[2]! << 8) | octets[3]!) >>> 0;
    this.size = 2 ** (32 - bits);
    this.base = addr - (addr % this.size);
    this.next = 2;
    this.inUse.clear();
    this.cidr = cidr.trim();
  }

  /** The next free address; throws when the range is full (CNI's "no IP addresses available"). */
  allocate(): string {
    const usable = this.size - 3; // network, gateway, broadcast
    for (let tried = 0; tried < usable; tried++) {
      const offset = this.next;
      this.next = this.next + 1 >= this.size - 1 ? 2 : this.next + 1;
      const a = this.base + offset;
      if (this.inUse.has(a)) continue;
      this.inUse.add(a);
      return toText(a);
    }
    throw new Error("failed to allocate for range 0: no IP addresses available in range set");
  }

  release(ip: string): void {
    const m = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(ip);
    if (m) this.inUse.delete(((Number(m[1]) << 24) | (Number(m[2]) << 16) | (Number(m[3]) << 8) | Number(m[4])) >>> 0);
  }
}

function toText(a: number): string {
  return `${a >>> 24}.${(a >>> 16) & 255}.${(a >>> 8) & 255}.${a & 255}`;
}
