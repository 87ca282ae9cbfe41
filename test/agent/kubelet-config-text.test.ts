// readKubeletConfigText: --config is read bounded (issue 24: /dev/zero grew the agent past 1 GB in
// 7 s, a FIFO hung it, a 53 MB file took 800 MB): a regular file of at most 1 MiB, checked with fstat
// on the open descriptor, read to at most 1 MiB + 1 bytes.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MAX_CONFIG_FILE_BYTES, readKubeletConfigText } from "../../src/agent/kubelet-config-file";
import { ConfigError } from "../../src/util/errors";

const dir = mkdtempSync(join(tmpdir(), "kubelet-config-text-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function refusal(path: string, max?: number): string {
  try {
    readKubeletConfigText(path, max);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error("expected a ConfigError");
}

describe("--config is read bounded", () => {
  test("a regular file up to the limit is read whole", () => {
    const f = join(dir, "ok.yaml");
    writeFileSync(f, "kind: KubeletConfiguration\n");
    expect(readKubeletConfigText(f)).toBe("kind: KubeletConfiguration\n");
    const full = join(dir, "full.yaml");
    writeFileSync(full, "#".repeat(MAX_CONFIG_FILE_BYTES));
    expect(readKubeletConfigText(full)).toHaveLength(MAX_CONFIG_FILE_BYTES);
    expect(MAX_CONFIG_FILE_BYTES).toBe(1024 * 1024);
  });

  test("one byte over 1 MiB is refused, saying how big it is", () => {
    const big = join(dir, "big.yaml");
    writeFileSync(big, "#".repeat(MAX_CONFIG_FILE_BYTES + 1));
    expect(refusal(big)).toBe(`--config ${big}: ${MAX_CONFIG_FILE_BYTES + 1} bytes, more than the ${MAX_CONFIG_FILE_BYTES} a configuration file may have`);
  });

  test("/dev/zero, a FIFO without a writer, a directory: refused at once, without reading", () => {
    const started = performance.now();
    expect(refusal("/dev/zero")).toBe("--config /dev/zero: a character device, not a regular file: give a KubeletConfiguration file");
    const fifo = join(dir, "config.fifo");
    expect(Bun.spawnSync(["mkfifo", fifo]).exitCode).toBe(0);
    expect(refusal(fifo)).toBe(`--config ${fifo}: a FIFO, not a regular file: give a KubeletConfiguration file`);
    expect(refusal(dir)).toBe(`--config ${dir}: a directory, not a regular file: give a KubeletConfiguration file`);
    expect(performance.now() - started).toBeLessThan(500);
  });

  test("the read itself is bounded: a regular file whose fstat size says 0 (procfs) is read to the limit and no further", () => {
    expect(refusal("/proc/self/mountinfo", 16)).toBe("--config /proc/self/mountinfo: more than the 16 bytes a configuration file may have");
  });

  test("a missing file names the flag", () => {
    expect(refusal(join(dir, "nope.yaml"))).toStartWith(`--config ${join(dir, "nope.yaml")}: ENOENT: no such file or directory`);
  });
});
