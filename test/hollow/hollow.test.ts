// src/hollow: where each hollow node lives, what it reports as its machine, the agent configuration it
// is started with, the fleet's retries and stop, and the command's usage errors. The fleet against an
// API server, through the binary, is test/e2e/hollow.test.ts.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../../cmd/main";
import { root } from "../../cmd/nodeagent";
import { hollowAddresses, HollowFleet, MAX_HOLLOW_NODES, parseCapacity, type HollowOptions } from "../../src/hollow";
import { hollowHostFacts, HollowHostNetwork } from "../../src/hollow/hollow-host";
import { hollowNodeConfig } from "../../src/hollow/hollow-node";
import { DEFAULT_CAPACITY } from "../../src/hollow/hollow-options";
import { readHostFacts, resolveNodeAddresses } from "../../src/nodestatus";
import { RealClock } from "../../src/util";
import { linesLog } from "../fakes/recording-log";

const options = (rootDir: string, o: Partial<HollowOptions> = {}): HollowOptions => ({
  kubeconfig: "/nonexistent/admin.kubeconfig",
  nodes: 3,
  firstIndex: 0,
  namePrefix: "h-",
  rootDir,
  maxPods: 110,
  capacity: DEFAULT_CAPACITY,
  podStartLatencyMs: 0,
  qps: 50,
  burst: 100,
  startParallelism: 2,
  logFormat: "json",
  ...o,
});

describe("hollowAddresses", () => {
  test("each index has its own InternalIP and pod /24, none repeated over the whole range", () => {
    expect(hollowAddresses(0)).toEqual({ nodeIP: "172.16.0.1", podCidr: "10.64.0.0/24" });
    expect(hollowAddresses(254)).toEqual({ nodeIP: "172.16.0.255", podCidr: "10.64.254.0/24" });
    expect(hollowAddresses(256)).toEqual({ nodeIP: "172.16.1.1", podCidr: "10.65.0.0/24" });
    expect(hollowAddresses(MAX_HOLLOW_NODES - 1)).toEqual({ nodeIP: "172.16.64.0", podCidr: "10.127.255.0/24" });
    const all = Array.from({ length: MAX_HOLLOW_NODES }, (_, i) => hollowAddresses(i));
    expect(new Set(all.map((a) => a.nodeIP)).size).toBe(MAX_HOLLOW_NODES);
    expect(new Set(all.map((a) => a.podCidr)).size).toBe(MAX_HOLLOW_NODES);
  });

  test("an index outside the range is an error, not a wrapped address", () => {
    expect(() => hollowAddresses(MAX_HOLLOW_NODES)).toThrow(RangeError);
    expect(() => hollowAddresses(-1)).toThrow(RangeError);
    expect(() => hollowAddresses(1.5)).toThrow(RangeError);
  });
});

describe("parseCapacity", () => {
  test("any subset of cpu, memory and ephemeral-storage; the rest from the default", () => {
    expect(parseCapacity("")).toEqual(DEFAULT_CAPACITY);
    expect(parseCapacity("cpu=8,memory=32Gi")).toEqual({ ...DEFAULT_CAPACITY, cpu: 8, memoryBytes: 32 * 2 ** 30 });
    expect(parseCapacity("ephemeral-storage=1Ti").ephemeralStorageBytes).toBe(2 ** 40);
  });

  test("mistakes name the resource and the value", () => {
    expect(() => parseCapacity("cpu=500m")).toThrow("--capacity cpu=500m: a whole number of CPUs, at least 1");
    expect(() => parseCapacity("gpu=1")).toThrow('--capacity: unknown resource "gpu" (cpu, memory, ephemeral-storage)');
    expect(() => parseCapacity("memory=lots")).toThrow("--capacity memory=lots:");
    expect(() => parseCapacity("memory=1Ki")).toThrow("--capacity memory=1Ki: at least 1Mi");
  });
});

describe("the hollow host", () => {
  test("the kubelet's address rules pick the node's own InternalIP (the default route's interface)", async () => {
    const a = await resolveNodeAddresses({ nodeIPs: [], nodeName: "h-7", net: new HollowHostNetwork("172.16.0.8") });
    expect(a.addresses).toEqual([
      { type: "InternalIP", address: "172.16.0.8" },
      { type: "Hostname", address: "h-7" },
    ]);
  });

  test("the machine: the capacity asked for, this host's kernel, ids stable per name and distinct between names", () => {
    const base = readHostFacts("/");
    const a = hollowHostFacts(base, { cpu: 2, memoryBytes: 2 ** 30, ephemeralStorageBytes: 2 ** 34 }, "h-0");
    expect(a).toMatchObject({
      cpus: 2,
      memoryBytes: 2 ** 30,
      ephemeralStorageBytes: 2 ** 34,
      hugePages: [],
      kernelVersion: base.kernelVersion,
      architecture: base.architecture,
    });
    expect(a.machineID).toMatch(/^[0-9a-f]{32}$/);
    expect(a.systemUUID).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    const again = hollowHostFacts(base, DEFAULT_CAPACITY, "h-0");
    expect(again.machineID).toBe(a.machineID);
    expect(again.bootID).not.toBe(a.bootID);
    expect(hollowHostFacts(base, DEFAULT_CAPACITY, "h-1").machineID).not.toBe(a.machineID);
  });
});

describe("hollowNodeConfig", () => {
  const dir = mkdtempSync(join(tmpdir(), "hollow-config-"));
  const admin = join(dir, "admin.kubeconfig");
  const bootstrap = join(dir, "bootstrap.kubeconfig");
  writeFileSync(admin, "apiVersion: v1\nkind: Config\n");
  writeFileSync(bootstrap, "apiVersion: v1\nkind: Config\n");
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("the agent's own configuration: every path under the node's root, loopback HTTP on any port, no eviction thresholds", () => {
    const c = hollowNodeConfig(options("/srv/hollow", { kubeconfig: admin, maxPods: 30, nodeLabels: "tier=hollow", qps: 7, burst: 9 }), 4);
    expect(c.nodeName).toBe("h-4");
    expect(c.rootDir).toBe("/srv/hollow/h-4");
    expect(c.pods.logsDir).toBe("/srv/hollow/h-4/logs");
    expect(c.certDir).toBe("/srv/hollow/h-4/pki");
    expect(c.server).toMatchObject({ address: "127.0.0.1", port: 0, insecureHttp: true });
    expect(c.node.maxPods).toBe(30);
    expect(c.node.labels).toMatchObject({ tier: "hollow" });
    expect(c.eviction.thresholds).toEqual([]);
    expect(c.cluster?.kubeconfig).toBe(admin);
    expect(c.cluster?.kubeApi).toEqual({ qps: 7, burst: 9 });
    expect(c.cluster?.certificates.bootstrapKubeconfig).toBeUndefined();
  });

  test("with TLS bootstrap each node writes its own kubeconfig", () => {
    const c = hollowNodeConfig(options("/srv/hollow", { kubeconfig: "", bootstrapKubeconfig: bootstrap }), 2);
    expect(c.cluster?.kubeconfig).toBe("/srv/hollow/h-2/kubeconfig");
    expect(c.cluster?.certificates.bootstrapKubeconfig).toBe(bootstrap);
  });
});

describe("HollowFleet", () => {
  test("a node that cannot start is retried, not dropped; stop() ends the start and the retries", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hollow-fleet-"));
    const { log, lines } = linesLog();
    try {
      // No such kubeconfig: every start fails (the agent's own check), and is retried after 1 s.
      const fleet = new HollowFleet(options(join(dir, "root"), { nodes: 2 }), new RealClock(), log);
      const started = fleet.start();
      const deadline = Date.now() + 10_000;
      while (fleet.status().startFailures < 3 && Date.now() < deadline) await Bun.sleep(50);
      expect(fleet.status()).toMatchObject({ wanted: 2, started: 0 });
      expect(fleet.status().startFailures).toBeGreaterThanOrEqual(3);
      expect(lines.some((l) => l.startsWith("warn hollow node did not start; retrying") && l.includes("/nonexistent/admin.kubeconfig"))).toBe(true);
      await fleet.stop();
      await started;
      expect(fleet.status().started).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("nodeagent hollow: usage", () => {
  async function cli(argv: string[]) {
    let out = "";
    let err = "";
    const code = await runCli(root, ["hollow", ...argv], { out: (t) => void (out += t), err: (t) => void (err += t) });
    return { code, out, err };
  }

  test("mistakes are exit 2 and say what is wrong, before anything starts", async () => {
    expect(await cli(["--kubeconfig", "k"])).toMatchObject({ code: 2, err: expect.stringContaining("--nodes N is required") });
    expect(await cli(["--nodes", "3"])).toMatchObject({ code: 2, err: expect.stringContaining("give --kubeconfig") });
    expect(await cli(["--nodes", "3", "--kubeconfig", "k", "--bootstrap-kubeconfig", "b"])).toMatchObject({
      code: 2,
      err: expect.stringContaining("exclude each other"),
    });
    expect(await cli(["--nodes", "0", "--kubeconfig", "k"])).toMatchObject({
      code: 2,
      err: expect.stringContaining('--nodes "0": a whole number from 1 to 16384'),
    });
    expect(await cli(["--nodes", "10", "--first-index", "16380", "--kubeconfig", "k"])).toMatchObject({
      code: 2,
      err: expect.stringContaining("the last index, 16389"),
    });
    expect(await cli(["--nodes", "3", "--kubeconfig", "k", "--capacity", "cpu=half"])).toMatchObject({
      code: 2,
      err: expect.stringContaining("--capacity cpu=half"),
    });
    expect(await cli(["--nodes", "3", "--kubeconfig", "k", "--pod-start-latency", "soon"])).toMatchObject({
      code: 2,
      err: expect.stringContaining("--pod-start-latency"),
    });
    expect(await cli(["--nodes", "3", "--kubeconfig", "k", "--name-prefix", "Bad_"])).toMatchObject({ code: 2, err: expect.stringContaining("--name-prefix") });
  });

  test("--help shows the flags and examples", async () => {
    const r = await cli(["--help"]);
    expect(r.code).toBe(0);
    for (const flag of [
      "--kubeconfig",
      "--bootstrap-kubeconfig",
      "--nodes",
      "--first-index",
      "--name-prefix",
      "--max-pods",
      "--capacity",
      "--node-labels",
      "--pod-start-latency",
      "--qps",
      "--burst",
    ])
      expect(r.out).toContain(flag);
    expect(r.out).toContain("nodeagent hollow --kubeconfig admin.conf --nodes 1000");
  });
});
