// The set-up the agent-config tests share: a temp folder with a static pod folder, push tokens and a
// client CA; kubeadm's config files from test/fixtures/kubelet pointed at them; resolve() as the
// command layer calls resolveAgentConfig (defaults filled in, `given` the flags typed).
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "bun:test";
import { AGENT_DEFAULTS, resolveAgentConfig, type AgentFlags } from "../../src/agent/agent-config";
import { ConfigError } from "../../src/util/errors";
import { FakeHostNetwork } from "../fakes/host-network";

const FIXTURES = join(import.meta.dir, "../fixtures/kubelet");

/** A fresh set-up; call `cleanup` in afterAll. */
export function agentConfigFixture() {
  const dir = mkdtempSync(join(tmpdir(), "agent-config-"));
  const manifests = join(dir, "manifests");
  writeFileSync(join(dir, "token"), "s3cret\n", { mode: 0o600 });
  writeFileSync(join(dir, "empty-token"), "\n", { mode: 0o600 });
  writeFileSync(join(dir, "open-token"), "s3cret\n", { mode: 0o644 });
  chmodSync(join(dir, "open-token"), 0o644);
  Bun.spawnSync(["mkdir", "-p", manifests]);

  const host = { hostname: () => " Worker-1 ", network: new FakeHostNetwork() };
  const clientCA = join(dir, "ca.crt");
  writeFileSync(clientCA, "-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n");
  /** A kubeadm file whose staticPodPath and x509.clientCAFile exist on this machine. */
  const kubeadm = (name: string) =>
    readFileSync(join(FIXTURES, name), "utf8").replace("/etc/kubernetes/manifests", manifests).replace("/etc/kubernetes/pki/ca.crt", clientCA);

  /** The agent's flags as the command layer hands them over: defaults filled in, `given` the ones typed. */
  function resolve(given: Record<string, string | boolean>, text?: string, path = "/var/lib/kubelet/config.yaml") {
    const flags: AgentFlags = { ...AGENT_DEFAULTS, ...(text !== undefined ? { config: path } : {}), ...given };
    return resolveAgentConfig(flags, new Set(Object.keys(given)), text, host);
  }
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  return { dir, manifests, host, clientCA, kubeadm, resolve, cleanup };
}

export function errorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return e as ConfigError;
  }
  throw new Error("expected a ConfigError");
}
