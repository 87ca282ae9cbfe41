// The built-in volume plugins: which volume each serves, where its folder is, emptyDir and hostPath.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, statSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod, Volume } from "kubernetes-types/core/v1";
import { FakeClock } from "../../src/util/clock";
import { nodeVolumePlugins } from "../../src/volume/plugins";
import { volumeHostPath } from "../../src/api/pod-dirs";
import { pluginDirName } from "../../src/volume/volume-manager";
import { FakeMounter } from "../fakes/mounter";
import { NoObjectSource } from "../../src/objects/no-object-source";

const base = mkdtempSync(join(tmpdir(), "nodeagent-volume-plugins-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));
const pod: Pod = { metadata: { name: "p", namespace: "ns", uid: "u" }, spec: { containers: [] } };

describe("the node's volume plugins", () => {
  const host = { podsDir: join(base, "pods"), objects: new NoObjectSource(), mounter: new FakeMounter(), clock: new FakeClock() };
  const plugins = nodeVolumePlugins(host);
  const kinds: Array<[Volume, string, boolean]> = [
    [{ name: "a", configMap: { name: "cm" } }, "kubernetes.io/configmap", true],
    [{ name: "b", secret: { secretName: "s" } }, "kubernetes.io/secret", true],
    [{ name: "c", downwardAPI: { items: [] } }, "kubernetes.io/downward-api", true],
    [{ name: "d", projected: { sources: [] } }, "kubernetes.io/projected", true],
    [{ name: "e", emptyDir: {} }, "kubernetes.io/empty-dir", false],
    [{ name: "f", emptyDir: { medium: "Memory" } }, "kubernetes.io/empty-dir", false],
    [{ name: "g", hostPath: { path: "/tmp" } }, "kubernetes.io/host-path", false],
  ];

  test("each kind the agent makes has one plugin, refreshed on every sync when its content follows objects or the pod", () => {
    for (const [v, name, remount] of kinds) {
      const matched = plugins.filter((p) => p.canSupport(v));
      expect(matched.map((p) => [p.name, p.requiresRemount])).toEqual([[name, remount]]);
    }
    // Anything else matches none: the manager's FailedMount, never a pod without its volume.
    expect(plugins.filter((p) => p.canSupport({ name: "x", persistentVolumeClaim: { claimName: "c" } }))).toEqual([]);
  });

  test("the folder the manager gives a volume is the one set-up.ts makes (the kubelet's kubernetes.io~<plugin>/<name>)", () => {
    for (const [v, name] of kinds) {
      if (v.hostPath) continue;
      expect(join(host.podsDir, "u", "volumes", pluginDirName(plugins.find((p) => p.name === name)!), v.name)).toBe(volumeHostPath(pod, v, host.podsDir)!);
    }
  });

  test("an emptyDir is made on set-up and removed on tear-down; a hostPath is the author's own and left alone", async () => {
    const empty = plugins.find((p) => p.name === "kubernetes.io/empty-dir")!;
    const dir = await empty.setUp(pod, { name: "work", emptyDir: {} }, "");
    expect(statSync(dir).mode & 0o777).toBe(0o777);
    await empty.tearDown(dir);
    expect(existsSync(dir)).toBe(false);
    const hp = plugins.find((p) => p.name === "kubernetes.io/host-path")!;
    const d = join(base, "h", "dir");
    expect(await hp.setUp(pod, { name: "h", hostPath: { path: d, type: "DirectoryOrCreate" } }, "/unused")).toBe(d);
    await hp.tearDown(d);
    expect(statSync(d).isDirectory()).toBe(true);
  });
});
