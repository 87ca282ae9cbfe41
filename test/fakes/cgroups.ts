// FakeCgroupManager: the cgroup file system in memory (src/cm CgroupManager). Each cgroup is kept
// under its driver-spelled name with the values set on it, and every call is recorded in order, so
// that a test can say what was made, with what, and when; failWith makes the next matching call throw.
import { driverName, type CgroupDriver, type CgroupName } from "../../src/cm/cgroup-name";
import type { CgroupManager } from "../../src/cm/cgroup-manager";
import type { ResourceConfig } from "../../src/cm/resource-config";

export type CgroupCall = { op: "create" | "update" | "destroy"; name: string; config?: ResourceConfig };

export class FakeCgroupManager implements CgroupManager {
  /** The cgroups that exist, by driver-spelled name, with every value set on them so far. */
  readonly cgroups = new Map<string, ResourceConfig>();
  readonly calls: CgroupCall[] = [];
  /** Processes in a cgroup (driver-spelled name): a test puts them there and takes them out. */
  readonly procs = new Map<string, number>();
  private failures: Array<{ op: CgroupCall["op"]; name: string; error: Error }> = [];

  constructor(readonly driver: CgroupDriver = "cgroupfs") {}

  name(name: CgroupName): string {
    return driverName(name, this.driver);
  }

  /** The next `op` on the cgroup named `name` (driver spelling) throws `error`. */
  failWith(op: CgroupCall["op"], name: string, error: Error): void {
    this.failures.push({ op, name, error });
  }

  private check(op: CgroupCall["op"], name: string): void {
    const i = this.failures.findIndex((f) => f.op === op && f.name === name);
    if (i >= 0) throw this.failures.splice(i, 1)[0]!.error;
  }

  exists(name: CgroupName): boolean {
    return this.cgroups.has(this.name(name));
  }

  create(name: CgroupName, config: ResourceConfig): void {
    const n = this.name(name);
    this.check("create", n);
    this.calls.push({ op: "create", name: n, config });
    // Parents come into being with the child, as mkdir -p.
    for (let i = 1; i < name.length; i++) {
      const parent = this.name(name.slice(0, i));
      if (!this.cgroups.has(parent)) this.cgroups.set(parent, {});
    }
    this.cgroups.set(n, { ...config });
  }

  update(name: CgroupName, config: ResourceConfig): void {
    const n = this.name(name);
    this.check("update", n);
    this.calls.push({ op: "update", name: n, config });
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
    this.check("destroy", n);
    this.calls.push({ op: "destroy", name: n });
    for (const k of [...this.cgroups.keys()]) if (k === n || k.startsWith(`${n}/`)) this.cgroups.delete(k);
  }
}
