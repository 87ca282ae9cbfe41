// Fakes of the volume seams (src/volume/types.ts) for the volume manager's and the agent's unit
// tests: a volume plugin that writes an atomic-writer-like layout from a configMap (or fails as told),
// and a mount table kept in memory. The fake ObjectSource is test/fakes/object-source.ts.
import { mkdirSync, readlinkSync, renameSync, rmSync, symlinkSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import type { Pod, Volume } from "kubernetes-types/core/v1";
import type { RuntimeConfigOptions } from "../../src/agent/runtime-config";
import type { Clock } from "../../src/util/clock";
import type { Logger } from "../../src/util/log";
import { nodeVolumePlugins } from "../../src/volume/plugins";
import { FakeMounter } from "./mounter";
import { NoObjectSource } from "../../src/objects/no-object-source";
import type { ObjectSource } from "../../src/objects/types";
import type { MountTable, VolumePlugin } from "../../src/volume/types";
import { VolumeManager } from "../../src/volume/volume-manager";

/**
 * configMap volumes in the atomic writer's layout (a timestamped folder, `..data` swapped to it, one
 * link per key), each set-up a new folder: enough to tell a refreshed mount from a bound subPath.
 */
export class FakeConfigMapPlugin implements VolumePlugin {
  readonly name = "kubernetes.io/configmap";
  readonly requiresRemount = true;
  setUps = 0;
  tearDowns: string[] = [];
  constructor(private readonly objects: ObjectSource) {}
  canSupport(v: Volume): boolean {
    return v.configMap !== undefined;
  }
  async setUp(pod: Pod, v: Volume, dir: string): Promise<string> {
    const cm = await this.objects.getConfigMap(pod.metadata?.namespace ?? "default", v.configMap!.name!);
    this.setUps++;
    mkdirSync(dir, { recursive: true });
    const ts = join(dir, `..ts_${this.setUps}`);
    mkdirSync(ts);
    for (const [k, val] of Object.entries(cm.data ?? {})) writeFileSync(join(ts, k), val);
    const old = existsSync(join(dir, "..data")) ? readlinkSync(join(dir, "..data")) : undefined;
    symlinkSync(`..ts_${this.setUps}`, join(dir, "..data_tmp"));
    renameSync(join(dir, "..data_tmp"), join(dir, "..data"));
    for (const k of Object.keys(cm.data ?? {})) if (!existsSync(join(dir, k))) symlinkSync(join("..data", k), join(dir, k));
    if (old) rmSync(join(dir, old), { recursive: true, force: true });
    return dir;
  }
  async tearDown(dir: string): Promise<void> {
    this.tearDowns.push(dir);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A mount table a test fills by hand: unmount() takes the entry out (or fails for paths in `stuck`). */
export class FakeMountTable implements MountTable {
  readonly mounted = new Set<string>();
  readonly unmounted: string[] = [];
  readonly stuck = new Set<string>();
  mountPointsUnder(dir: string): string[] {
    return [...this.mounted].filter((m) => m === dir || m.startsWith(dir + "/")).sort((a, b) => b.length - a.length);
  }
  async unmount(path: string): Promise<void> {
    if (this.stuck.has(path)) throw new Error(`umount ${path}: target is busy`);
    this.mounted.delete(path);
    this.unmounted.push(path);
  }
}

/** A VolumeManager with the built-in plugins (and any given first), no object source, a fake mount table. */
export function volumesFor(
  opts: RuntimeConfigOptions,
  clock: Clock,
  log: Logger,
  o: { plugins?: VolumePlugin[]; objects?: ObjectSource; mounts?: MountTable } = {},
): VolumeManager {
  return new VolumeManager({
    podsDir: opts.podsDir,
    plugins: [
      ...(o.plugins ?? []),
      ...nodeVolumePlugins({ podsDir: opts.podsDir, objects: o.objects ?? new NoObjectSource(), mounter: new FakeMounter(), clock }),
    ],
    objects: o.objects ?? new NoObjectSource(),
    mounts: o.mounts ?? new FakeMountTable(),
    clock,
    log,
  });
}
