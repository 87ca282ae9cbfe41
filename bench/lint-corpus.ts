// The generated static pods `make bench-lint` and `make bench-startup` lint: the valid corpus
// (kubeadm's four control-plane pods, haproxy, a log shipper) as templates, varied per file, one file
// in five with the mistakes people make. Both benchmarks lint the same files, so their figures compare.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

const FIXTURES = resolve(import.meta.dir, "../test/fixtures/lint/valid");

/** Writes `files` manifests, pod-00000.yaml …, into `dir`. Lint them with --node-name node1. */
export function generateLintCorpus(dir: string, files: number): void {
  const templates = readdirSync(FIXTURES)
    .filter((f) => f.endsWith(".yaml"))
    .map((f) => readFileSync(join(FIXTURES, f), "utf8"));
  const versions = ["v1.28.13", "v1.29.8", "v1.30.4", "v1.31.1"];
  for (let i = 0; i < files; i++) {
    const node = `node-${i}`;
    let text = templates[i % templates.length]!.replace(/^( {2}name: )(.*)$/m, `$1$2-${i}`)
      .replace(/10\.0\.0\.10/g, `10.${(i >> 8) & 255}.${i & 255}.10`)
      .replace(/v1\.30\.4/g, versions[i % versions.length]!)
      .replace(/--name=node1/g, `--name=${node}`);
    // One file in five has the mistakes people make: an unpinned image, a misspelt field, a bad port.
    if (i % 5 === 1) text = text.replace(/image: (\S+):\S+/, "image: $1").replace("imagePullPolicy:", "imagePullPolcy:");
    if (i % 10 === 3) text = text.replace(/port: (\d+)/, "port: 70000");
    writeFileSync(join(dir, `pod-${String(i).padStart(5, "0")}.yaml`), text);
  }
}
