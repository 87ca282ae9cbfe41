// An extra image for the tests of image garbage collection and node-level reclaim: busybox's layer under
// a config of its own (so a distinct image ID), imported straight into the test node's containerd.
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { socketPath } from "../../src/cri/client";
import { CONTAINERD, REPO, type TestNode } from "./node";

export const VICTIM_IMAGE = "localhost/e2e/gc-victim:1";

/**
 * An image of its own ID for image GC to remove: busybox's layer under a config with one more label,
 * written as a docker archive and imported with the ctr beside the node's containerd.
 */
export function importVictimImage(node: TestNode): void {
  const work = join(node.rootDir, "victim");
  mkdirSync(work, { recursive: true });
  const src = join(process.env.NODEAGENT_IMAGES ?? join(REPO, ".cache/images"), "busybox.tar");
  const run = (cmd: string[]) => {
    const r = Bun.spawnSync(cmd, { cwd: work, stderr: "pipe", stdout: "pipe" });
    if (r.exitCode !== 0) throw new Error(`${cmd.join(" ")}: ${r.stderr.toString()}`);
  };
  run(["tar", "xf", src]);
  const [m] = JSON.parse(readFileSync(join(work, "manifest.json"), "utf8")) as { Config: string; Layers: string[] }[];
  const config = JSON.parse(readFileSync(join(work, m!.Config), "utf8")) as { config?: { Labels?: Record<string, string> } };
  config.config = { ...config.config, Labels: { ...config.config?.Labels, "nodeagent.e2e": "gc-victim" } };
  const text = JSON.stringify(config);
  const configName = `${createHash("sha256").update(text).digest("hex")}.json`;
  writeFileSync(join(work, configName), text);
  writeFileSync(join(work, "manifest.json"), JSON.stringify([{ Config: configName, RepoTags: [VICTIM_IMAGE], Layers: m!.Layers }]));
  run(["tar", "cf", "victim.tar", "manifest.json", configName, ...m!.Layers]);
  run([join(dirname(CONTAINERD[node.version]), "ctr"), "--address", socketPath(node.endpoint), "-n", "k8s.io", "images", "import", join(work, "victim.tar")]);
}
