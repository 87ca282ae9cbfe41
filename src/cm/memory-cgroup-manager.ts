// MemoryCgroupManager: the cgroup file system in memory, for nodes whose pods have no processes (the
// hollow nodes of `nodeagent hollow`, over the in-memory runtime) and, through its subclass, for unit
// tests. Each cgroup is kept under its driver-spelled name with the values set on it; parents come into
// being with a child, as mkdir -p; a cgroup holds no processes unless someone puts them there.
import { driverName, type CgroupDriver, type CgroupName } from "./cgroup-name";
import type { CgroupManager } from "./cgroup-manager";
import type { ResourceConfig } from "./resource-config";

export class MemoryCgroupManager implements CgroupManager {
  /** The cgroups that exist, by driver-spelled name, with every value set on them so far. */
  readonly cgroups = new Map<string, ResourceConfig>();
  /** Processes in a cgroup (driver-spelled name); empty for hollow nodes, set by hand in tests. */
  readonly procs = new Map<string, number>();

  constructor(readonly driver: CgroupDriver = "cgroupfs") {}

  name(name: CgroupName): string {
    return driverName(name, this.driver);
  }

  exists(name: CgroupName): boolean {
    return this.cgroups.has(this.name(name));
  }

  create(name: CgroupName, config: ResourceConfig): void {
    for (let i = 1; i < name.length; i++) {
      const parent = this.name(name.slice(0, i));
      if (!this.cgroups.has(parent)) this.cgroups.set(parent, {});
    }
    this.cgroups.set(this.name(name), { ...config });
  }

  update(name: CgroupName, config: ResourceConfig): void {
    const n = this.name(name);
    const current = this.cgroups.get(n);
    if (!current) throw new Error(`${n}: no such cgroup`);
    this.cgroups.set(n, { ...current, ...config });
  }

  children(name: CgroupName): string[] {
    const prefix = `${this.name(name)}/`.replace(/^\/\/$/, "/");
    return [...this.cgroups.keys()].filter((k) => k.startsWith(prefix) && !k.slice(prefix.length).includes("/")).map((k) => k.slice(prefix.length));
  }

  processes(name: CgroupName): number {
    const n = this.name(name);
    let sum = 0;
    for (const [k, v] of this.procs) if (k === n || k.startsWith(`${n}/`)) sum += v;
    return sum;
  }

  destroy(name: CgroupName): void {
    const n = this.name(name);
    for (const k of [...this.cgroups.keys()]) if (k === n || k.startsWith(`${n}/`)) this.cgroups.delete(k);
  }
}
