// startNode's failure paths: what it started is stopped again before the error goes up, and a bad
// kubeconfig costs nothing (the runtime is not even looked for). The happy path runs against a real
// containerd in test/e2e/command-layer.test.ts and the agent e2e tests.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolveAgentConfig } from "../../src/agent/agent-config";
import { chooseObjectSource, startNode } from "../../src/agent/node";
import { NoObjectSource } from "../../src/objects/no-object-source";
import type { ResolvedRuntime } from "../../src/cri";
import { FakeClock } from "../../src/util/clock";
import { ConfigError } from "../../src/util/errors";
import { createLogger } from "../../src/util/log";
import { FakeCgroupManager } from "../fakes/cgroups";
import { FakeHostNetwork } from "../fakes/host-network";

const dir = mkdtempSync(join(tmpdir(), "node-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const log = createLogger("text", 0);
const host = { hostname: () => "test-node", network: new FakeHostNetwork() };

/** A runtime that records whether it was asked for and released. */
function fakeRuntime() {
  const calls = { resolved: 0, released: 0 };
  const resolveRuntime = async (): Promise<ResolvedRuntime> => {
    calls.resolved++;
    return { endpoint: `unix://${join(dir, "no-runtime.sock")}`, release: async () => void calls.released++ };
  };
  return { calls, resolveRuntime };
}

function listen(): Promise<Server> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => resolve(s));
  });
}

describe("startNode releases what it started on every error path", () => {
  test("a port in use: the runtime it resolved (a managed containerd, on a node) is released, and the error goes up", async () => {
    const busy = await listen();
    const port = (busy.address() as { port: number }).port;
    const { calls, resolveRuntime } = fakeRuntime();
    const config = resolveAgentConfig({ "root-dir": join(dir, "root"), port: String(port) }, new Set(["root-dir", "port"]), undefined, host);
    try {
      await expect(startNode(config, { log, hostNetwork: host.network, resolveRuntime, cgroups: new FakeCgroupManager() })).rejects.toThrow(
        /EADDRINUSE|in use/i,
      );
      expect(calls).toEqual({ resolved: 1, released: 1 });
    } finally {
      busy.close();
    }
  });

  test("a kubeconfig that cannot be read is a ConfigError before the runtime is looked for", async () => {
    const kubeconfig = join(dir, "kubeconfig");
    writeFileSync(kubeconfig, "not: [a kubeconfig\n");
    const { calls, resolveRuntime } = fakeRuntime();
    const config = resolveAgentConfig({ "root-dir": join(dir, "root"), port: "0", kubeconfig }, new Set(["root-dir", "port", "kubeconfig"]), undefined, host);
    const err = await startNode(config, { log, hostNetwork: host.network, resolveRuntime, cgroups: new FakeCgroupManager() }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toStartWith(`--kubeconfig ${kubeconfig}: `);
    expect(calls).toEqual({ resolved: 0, released: 0 });
  });

  test("a runtime that cannot be resolved leaves nothing to release", async () => {
    const config = resolveAgentConfig({ "root-dir": join(dir, "root"), port: "0" }, new Set(["root-dir", "port"]), undefined, host);
    await expect(
      startNode(config, {
        log,
        hostNetwork: host.network,
        resolveRuntime: () => Promise.reject(new Error("no CRI runtime")),
        cgroups: new FakeCgroupManager(),
      }),
    ).rejects.toThrow("no CRI runtime");
  });
});

describe("the node's cgroups at start", () => {
  test("--cgroup-driver=systemd without systemd as init is a ConfigError before the runtime is looked for, and no cgroup is made", async () => {
    const { calls, resolveRuntime } = fakeRuntime();
    const cgroups = new FakeCgroupManager("systemd");
    const config = resolveAgentConfig(
      { "root-dir": join(dir, "root"), port: "0", "cgroup-driver": "systemd" },
      new Set(["root-dir", "port", "cgroup-driver"]),
      undefined,
      host,
    );
    const err = await startNode(config, { log, hostNetwork: host.network, resolveRuntime, cgroups, systemdRunning: () => false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toStartWith("--cgroup-driver=systemd: systemd is not the init system here (/run/systemd/system does not exist)");
    expect(calls).toEqual({ resolved: 0, released: 0 });
    expect(cgroups.calls).toEqual([]);
  });

  test("kubepods and the QoS cgroups are made before the runtime is asked for (a runtime that fails leaves them)", async () => {
    const cgroups = new FakeCgroupManager();
    const config = resolveAgentConfig(
      { "root-dir": join(dir, "root"), port: "0", "cgroup-root": "/na", "kube-reserved": "cpu=500m,memory=1Gi" },
      new Set(["root-dir", "port", "cgroup-root", "kube-reserved"]),
      undefined,
      host,
    );
    await expect(
      startNode(config, { log, hostNetwork: host.network, resolveRuntime: () => Promise.reject(new Error("no CRI runtime")), cgroups }),
    ).rejects.toThrow("no CRI runtime");
    expect(cgroups.calls[0]).toMatchObject({ op: "create", name: "/na/kubepods" });
    expect([...cgroups.cgroups.keys()].sort()).toEqual(["/na", "/na/kubepods", "/na/kubepods/besteffort", "/na/kubepods/burstable"]);
    expect(cgroups.cgroups.get("/na/kubepods/besteffort")).toEqual({ cpuShares: 2 });
  });
});

describe("the node's object source", () => {
  const config = (flags: Record<string, string>) => resolveAgentConfig(flags, new Set(Object.keys(flags)), undefined, host);
  test("none without --kubeconfig or --local-objects; --local-objects serves the folder's objects, or the wired source", async () => {
    const clock = new FakeClock();
    expect((await chooseObjectSource(config({}), undefined, {}, clock, log)).description).toBe("no object source");
    const wired = new NoObjectSource();
    let asked: string | undefined;
    expect(await chooseObjectSource(config({ "local-objects": dir }), undefined, { localObjects: (d) => ((asked = d), wired) }, clock, log)).toBe(wired);
    expect(asked).toBe(dir);
    writeFileSync(join(dir, "cm.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: default}\ndata: {a: b}\n");
    // Written a while ago: a file changed within the last second is still settling (half-written).
    utimesSync(join(dir, "cm.yaml"), new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    const local = await chooseObjectSource(config({ "local-objects": dir }), undefined, {}, clock, log);
    try {
      expect(local.description).toContain(dir);
      expect((await local.getConfigMap("default", "settings")).data).toEqual({ a: "b" });
    } finally {
      local.close();
    }
  });
});
