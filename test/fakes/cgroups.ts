// FakeCgroupManager: src/cm's MemoryCgroupManager (the cgroup file system in memory) with every call
// recorded in order, so that a test can say what was made, with what, and when; failWith makes the
// next matching call throw.
import type { CgroupName } from "../../src/cm/cgroup-name";
import { MemoryCgroupManager } from "../../src/cm/memory-cgroup-manager";
import type { ResourceConfig } from "../../src/cm/resource-config";

export type CgroupCall = { op: "create" | "update" | "destroy"; name: string; config?: ResourceConfig };

export class FakeCgroupManager extends MemoryCgroupManager {
  readonly calls: CgroupCall[] = [];
  private failures: Array<{ op: CgroupCall["op"]; name: string; error: Error }> = [];

  /** The next `op` on the cgroup named `name` (driver spelling) throws `error`. */
  failWith(op: CgroupCall["op"], name: string, error: Error): void {
    this.failures.push({ op, name, error });
  }

  private check(op: CgroupCall["op"], name: string): void {
    const i = this.failures.findIndex((f) => f.op === op && f.name === name);
    if (i >= 0) throw this.failures.splice(i, 1)[0]!.error;
  }

  override create(name: CgroupName, config: ResourceConfig): void {
    const n = this.name(name);
    this.check("create", n);
    this.calls.push({ op: "create", name: n, config });
    super.create(name, config);
  }

  override update(name: CgroupName, config: ResourceConfig): void {
    const n = this.name(name);
    this.check("update", n);
    this.calls.push({ op: "update", name: n, config });
    super.update(name, config);
  }

  override destroy(name: CgroupName): void {
    const n = this.name(name);
    this.check("destroy", n);
    this.calls.push({ op: "destroy", name: n });
    super.destroy(name);
  }
}
