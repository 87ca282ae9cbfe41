import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Node } from "kubernetes-types/core/v1";
import type { Image, StatusResponse, VersionResponse } from "../../src/cri/types";
import { DEFAULT_EVICTION_HARD, hardEvictionReservation, parseLangleMap, parseThresholds } from "../../src/eviction/thresholds";
import {
  buildNode,
  formatBytes,
  formatMillicores,
  goArch,
  KUBERNETES_VERSION,
  kubeletVersion,
  osPrettyName,
  parseLabels,
  parseTaint,
  parseTaints,
  readHostFacts,
  readHugePages,
  type BuildNodeOptions,
  type HostFacts,
} from "../../src/nodestatus";

// The agent gives buildNode the reservation of its configured hard thresholds; these tests use the
// kubelet's defaults (memory.available<100Mi, nodefs.available<10%).
const DEFAULT_HARD = parseThresholds({ hard: parseLangleMap(DEFAULT_EVICTION_HARD) });

const Gi = 2 ** 30;
const Mi = 2 ** 20;
const NOW = Date.UTC(2026, 0, 1, 12, 0, 0, 250);

const host: HostFacts = {
  cpus: 4,
  memoryBytes: 8 * Gi,
  ephemeralStorageBytes: 100 * Gi,
  machineID: "3d1219c7c4c5404aaa1f6d2a48adfda4",
  systemUUID: "",
  bootID: "cd80ce97-1aca-4325-937a-8ba97ce51295",
  kernelVersion: "6.1.0-18-amd64",
  osImage: "Debian GNU/Linux 12 (bookworm)",
  hugePages: [],
  architecture: "amd64",
};

function image(id: string, size: number, repoTags: string[], repoDigests: string[] = []): Image {
  return { id, size, repoTags, repoDigests, uid: null, username: "", spec: null, pinned: false };
}

type Conditions = { type: string; status: boolean; reason: string; message: string }[];

class FakeRuntime {
  images: Image[] = [
    image("sha256:small", 1_000, ["127.0.0.1:5000/busybox:latest"], ["127.0.0.1:5000/busybox@sha256:aaa"]),
    image("sha256:big", 9_000_000, ["registry.local/pause:3.9"], ["registry.local/pause@sha256:bbb"]),
  ];
  conditions: Conditions = [
    { type: "RuntimeReady", status: true, reason: "", message: "" },
    { type: "NetworkReady", status: true, reason: "", message: "" },
  ];
  failVersion = false;
  failImages = false;
  failStatus = false;

  async version(): Promise<VersionResponse> {
    if (this.failVersion) throw new Error("connection refused");
    return { version: "0.1.0", runtimeName: "containerd", runtimeVersion: "1.7.24", runtimeApiVersion: "v1" };
  }
  async listImages(): Promise<Image[]> {
    if (this.failImages) throw new Error("connection refused");
    return this.images;
  }
  async status(): Promise<StatusResponse> {
    if (this.failStatus) throw new Error("rpc error: code = Unavailable desc = connection refused");
    return { status: { conditions: this.conditions }, info: {}, runtimeHandlers: [], features: null };
  }
}

/** The reservation of the kubelet's default hard thresholds, as the agent computes it from the eviction manager's default. */
const defaultReservation = (capacity: { memoryBytes: number; ephemeralStorageBytes?: number }) =>
  hardEvictionReservation(parseThresholds({ hard: parseLangleMap(DEFAULT_EVICTION_HARD) }), capacity);

function opts(over: Partial<BuildNodeOptions> = {}): BuildNodeOptions {
  return {
    evictionReservation: defaultReservation,
    nodeName: "node-1",
    labels: {},
    taints: [],
    runtime: new FakeRuntime(),
    maxPods: 110,
    conditions: { ready: { ok: true, message: "" } },
    now: NOW,
    version: "0.1.0",
    host,
    ...over,
  };
}

function cond(node: Node, type: string) {
  return node.status?.conditions?.find((c) => c.type === type);
}

describe("buildNode: capacity and allocatable", () => {
  test("capacity from the host; allocatable less the 100Mi memory and 10% nodefs hard eviction (10% a float32, as the kubelet's)", async () => {
    const node = await buildNode(opts());
    expect(node.status?.capacity).toEqual({ cpu: "4", memory: "8Gi", pods: "110", "ephemeral-storage": "100Gi" });
    // int64(100Gi × float32(0.1)) = 10737418400, 160 bytes more than 10Gi.
    expect(node.status?.allocatable).toEqual({ cpu: "4", memory: "8092Mi", pods: "110", "ephemeral-storage": "96636764000" });
  });

  test("the configured hard thresholds' reservation comes off allocatable instead of the defaults", async () => {
    const node = await buildNode(
      opts({ evictionReservation: (c) => ({ memoryBytes: 2 * 2 ** 30, ephemeralStorageBytes: (c.ephemeralStorageBytes ?? 0) / 4 }) }),
    );
    expect(node.status?.allocatable).toMatchObject({ memory: "6Gi", "ephemeral-storage": "75Gi" });
    const none = await buildNode(opts({ evictionReservation: () => ({ memoryBytes: 0, ephemeralStorageBytes: 0 }) }));
    expect(none.status?.allocatable).toMatchObject({ memory: "8Gi", "ephemeral-storage": "100Gi" });
  });

  test("reserved cpu, memory and storage come off allocatable", async () => {
    const node = await buildNode(opts({ reserved: { cpu: "500m", memory: "1Gi", ephemeralStorage: "5Gi" } }));
    expect(node.status?.allocatable).toEqual({ cpu: "3500m", memory: `${8192 - 1024 - 100}Mi`, pods: "110", "ephemeral-storage": "91268054880" });
    // Capacity is untouched.
    expect(node.status?.capacity?.cpu).toBe("4");
  });

  test("memory in Ki when MemTotal is not a whole number of MiB", async () => {
    const node = await buildNode(opts({ host: { ...host, memoryBytes: 16393380 * 1024 } }));
    expect(node.status?.capacity?.memory).toBe("16393380Ki");
    expect(node.status?.allocatable?.memory).toBe(`${16393380 - 100 * 1024}Ki`);
  });

  test("fractional reservations round up like Quantity.MilliValue", async () => {
    const node = await buildNode(opts({ reserved: { cpu: "0.1", memory: "1000" } }));
    expect(node.status?.allocatable?.cpu).toBe("3900m");
    expect(node.status?.allocatable?.memory).toBe(String(8 * Gi - 1000 - 100 * Mi));
  });

  test("reservations beyond capacity clamp at zero", async () => {
    const node = await buildNode(opts({ reserved: { cpu: "8", memory: "16Gi" } }));
    expect(node.status?.allocatable?.cpu).toBe("0");
    expect(node.status?.allocatable?.memory).toBe("0");
  });

  test("no ephemeral-storage when statfs was not available", async () => {
    const node = await buildNode(opts({ host: { ...host, ephemeralStorageBytes: undefined } }));
    expect(node.status?.capacity?.["ephemeral-storage"]).toBeUndefined();
    expect(node.status?.allocatable?.["ephemeral-storage"]).toBeUndefined();
  });

  test("a bad reservation is an error naming the quantity", async () => {
    await expect(buildNode(opts({ reserved: { memory: "lots" } }))).rejects.toThrow('invalid quantity "lots"');
  });
});

describe("buildNode: identity", () => {
  test("a v1 Node with the default labels, merged with the given ones (given win)", async () => {
    const node = await buildNode(opts({ labels: { "node-role.kubernetes.io/edge": "", "kubernetes.io/hostname": "custom", zone: "a" } }));
    expect(node.apiVersion).toBe("v1");
    expect(node.kind).toBe("Node");
    expect(node.metadata?.name).toBe("node-1");
    expect(node.metadata?.labels).toEqual({
      "beta.kubernetes.io/arch": "amd64",
      "beta.kubernetes.io/os": "linux",
      "kubernetes.io/arch": "amd64",
      "kubernetes.io/hostname": "custom",
      "kubernetes.io/os": "linux",
      "node-role.kubernetes.io/edge": "",
      zone: "a",
    });
  });

  test("kubernetes.io/hostname defaults to the node name", async () => {
    expect((await buildNode(opts())).metadata?.labels?.["kubernetes.io/hostname"]).toBe("node-1");
  });

  test("taints as given", async () => {
    const taints = [parseTaint("dedicated=edge:NoSchedule"), parseTaint("gpu:NoExecute")];
    const node = await buildNode(opts({ taints }));
    expect(node.spec?.taints).toEqual([
      { key: "dedicated", value: "edge", effect: "NoSchedule" },
      { key: "gpu", effect: "NoExecute" },
    ]);
    expect((await buildNode(opts())).spec?.taints).toBeUndefined();
  });

  test("nodeInfo", async () => {
    const node = await buildNode(opts());
    expect(node.status?.nodeInfo).toEqual({
      machineID: host.machineID,
      systemUUID: "",
      bootID: host.bootID,
      kernelVersion: "6.1.0-18-amd64",
      osImage: "Debian GNU/Linux 12 (bookworm)",
      containerRuntimeVersion: "containerd://1.7.24",
      kubeletVersion: "v1.36.2+nodeagent.0.1.0",
      // Deprecated; the 1.36 kubelet leaves it empty (DisableNodeKubeProxyVersion, locked on).
      kubeProxyVersion: "",
      operatingSystem: "linux",
      architecture: "amd64",
    });
  });

  test("an unreachable runtime: version Unknown of the runtime named at start (setters.go VersionInfo), no images, the node still built", async () => {
    const runtime = new FakeRuntime();
    runtime.failVersion = true;
    runtime.failImages = true;
    const node = await buildNode(opts({ runtime, runtimeName: "containerd" }));
    expect(node.status?.nodeInfo?.containerRuntimeVersion).toBe("containerd://Unknown");
    expect(node.status?.images).toEqual([]);
  });

  test("addresses as resolved (node-address.ts); without them the Hostname alone, the node name", async () => {
    const addresses = [
      { type: "InternalIP", address: "127.0.0.1" },
      { type: "Hostname", address: "node-1" },
    ];
    expect((await buildNode(opts({ addresses }))).status?.addresses).toEqual(addresses);
    expect((await buildNode(opts())).status?.addresses).toEqual([{ type: "Hostname", address: "node-1" }]);
  });

  test("hugepages-<size> capacity and allocatable from the pools, 0 for an empty pool; allocatable memory loses the reserved huge pages", async () => {
    const node = await buildNode(
      opts({
        host: {
          ...host,
          hugePages: [
            { pageSizeBytes: 2 * Mi, pages: 512 },
            { pageSizeBytes: Gi, pages: 0 },
          ],
        },
      }),
    );
    expect(node.status?.capacity).toMatchObject({ "hugepages-2Mi": "1Gi", "hugepages-1Gi": "0", memory: "8Gi" });
    expect(node.status?.allocatable).toMatchObject({ "hugepages-2Mi": "1Gi", "hugepages-1Gi": "0", memory: formatBytes(8 * Gi - 100 * Mi - Gi) });
    const none = await buildNode(opts());
    expect(Object.keys(none.status?.capacity ?? {}).filter((k) => k.startsWith("hugepages-"))).toEqual([]);
  });

  test("declares no features, reports no runtime features or handlers: what containerd 1.6/1.7 and the agent support (docs/feature-gates.md)", async () => {
    const node = await buildNode(opts());
    const status = node.status as Record<string, unknown>;
    expect(status.declaredFeatures).toBeUndefined();
    expect(status.features).toBeUndefined();
    expect(status.runtimeHandlers).toBeUndefined();
  });

  test("kubeletVersion is semver: the Kubernetes version followed, nodeagent's as build metadata", () => {
    const semver = /^v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;
    for (const v of ["0.1.0", "v2.0.0-rc.1", "1.0.0+git.abc", "weird version!", ""]) expect(kubeletVersion(v)).toMatch(semver);
    expect(kubeletVersion("0.1.0")).toBe(`v${KUBERNETES_VERSION}+nodeagent.0.1.0`);
    expect(KUBERNETES_VERSION).toBe("1.36.2");
    // No pre-release part: a "-…" suffix would sort before v1.36.2 in version-gated checks.
    expect(kubeletVersion("v2.0.0-rc.1")).toBe("v1.36.2+nodeagent.2.0.0-rc.1");
  });

  test("daemonEndpoints carries the agent's port", async () => {
    expect((await buildNode(opts({ port: 10250 }))).status?.daemonEndpoints).toEqual({ kubeletEndpoint: { Port: 10250 } });
  });
});

describe("buildNode: images", () => {
  test("largest first, digests before tags", async () => {
    const node = await buildNode(opts());
    expect(node.status?.images).toEqual([
      { names: ["registry.local/pause@sha256:bbb", "registry.local/pause:3.9"], sizeBytes: 9_000_000 },
      { names: ["127.0.0.1:5000/busybox@sha256:aaa", "127.0.0.1:5000/busybox:latest"], sizeBytes: 1_000 },
    ]);
  });

  test("at most 50 images of at most 5 names", async () => {
    const runtime = new FakeRuntime();
    runtime.images = Array.from({ length: 60 }, (_, i) =>
      image(
        `sha256:${i}`,
        1000 + i,
        Array.from({ length: 7 }, (_, t) => `img${i}:t${t}`),
      ),
    );
    const images = (await buildNode(opts({ runtime }))).status?.images ?? [];
    expect(images).toHaveLength(50);
    expect(images[0]!.sizeBytes).toBe(1059);
    expect(images[0]!.names).toEqual(["img59:t0", "img59:t1", "img59:t2", "img59:t3", "img59:t4"]);
    expect(images[49]!.sizeBytes).toBe(1010);
  });
});

describe("buildNode: conditions", () => {
  test("Ready with the kubelet's reason and message; no pressure", async () => {
    const node = await buildNode(opts());
    const t = "2026-01-01T12:00:00Z";
    expect(node.status?.conditions).toEqual([
      {
        type: "MemoryPressure",
        status: "False",
        reason: "KubeletHasSufficientMemory",
        message: "kubelet has sufficient memory available",
        lastHeartbeatTime: t,
        lastTransitionTime: t,
      },
      {
        type: "DiskPressure",
        status: "False",
        reason: "KubeletHasNoDiskPressure",
        message: "kubelet has no disk pressure",
        lastHeartbeatTime: t,
        lastTransitionTime: t,
      },
      {
        type: "PIDPressure",
        status: "False",
        reason: "KubeletHasSufficientPID",
        message: "kubelet has sufficient PID available",
        lastHeartbeatTime: t,
        lastTransitionTime: t,
      },
      { type: "Ready", status: "True", reason: "KubeletReady", message: "kubelet is posting ready status", lastHeartbeatTime: t, lastTransitionTime: t },
    ]);
  });

  test("the eviction manager's pressure conditions in the kubelet's words; Ready unaffected", async () => {
    const node = await buildNode(
      opts({ conditions: { ready: { ok: true, message: "" }, pressure: new Set(["MemoryPressure", "DiskPressure", "PIDPressure"]) } }),
    );
    expect(node.status?.conditions?.map((c) => [c.type, c.status, c.reason, c.message])).toEqual([
      ["MemoryPressure", "True", "KubeletHasInsufficientMemory", "kubelet has insufficient memory available"],
      ["DiskPressure", "True", "KubeletHasDiskPressure", "kubelet has disk pressure"],
      ["PIDPressure", "True", "KubeletHasInsufficientPID", "kubelet has insufficient PID available"],
      ["Ready", "True", "KubeletReady", "kubelet is posting ready status"],
    ]);
  });

  test("not ready with the agent's message", async () => {
    const msg = "PLEG is not healthy: pleg was last seen active 3m1s ago; threshold is 3m0s";
    const ready = cond(await buildNode(opts({ conditions: { ready: { ok: false, message: msg } } })), "Ready");
    expect(ready).toMatchObject({ status: "False", reason: "KubeletNotReady", message: msg });
  });

  test("the runtime's network condition, in the kubelet's words", async () => {
    const runtime = new FakeRuntime();
    runtime.conditions = [
      { type: "RuntimeReady", status: true, reason: "", message: "" },
      { type: "NetworkReady", status: false, reason: "NetworkPluginNotReady", message: "Network plugin returns error: cni plugin not initialized" },
    ];
    const ready = cond(await buildNode(opts({ runtime })), "Ready");
    expect(ready).toMatchObject({
      status: "False",
      reason: "KubeletNotReady",
      message:
        "container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized",
    });
  });

  test("several reasons are aggregated like utilerrors: runtime first, in brackets", async () => {
    const runtime = new FakeRuntime();
    runtime.conditions = [{ type: "NetworkReady", status: true, reason: "", message: "" }];
    const ready = cond(await buildNode(opts({ runtime, conditions: { ready: { ok: false, message: "sync loop stalled" } } })), "Ready");
    expect(ready?.message).toBe("[container runtime not ready: <nil>, sync loop stalled]");
  });

  test("a failing runtime status call makes the node not ready", async () => {
    const runtime = new FakeRuntime();
    runtime.failStatus = true;
    const ready = cond(await buildNode(opts({ runtime })), "Ready");
    expect(ready).toMatchObject({ status: "False", message: "container runtime is down: rpc error: code = Unavailable desc = connection refused" });
  });

  test("lastTransitionTime is kept from the previous node while the status is unchanged", async () => {
    const first = await buildNode(opts());
    const later = NOW + 10_000;
    const same = await buildNode(opts({ now: later, previous: first }));
    expect(cond(same, "Ready")).toMatchObject({ status: "True", lastHeartbeatTime: "2026-01-01T12:00:10Z", lastTransitionTime: "2026-01-01T12:00:00Z" });
    const flipped = await buildNode(opts({ now: later, previous: first, conditions: { ready: { ok: false, message: "x" } } }));
    expect(cond(flipped, "Ready")).toMatchObject({ status: "False", lastTransitionTime: "2026-01-01T12:00:10Z" });
    expect(cond(flipped, "MemoryPressure")?.lastTransitionTime).toBe("2026-01-01T12:00:00Z");
  });
});

describe("host facts", () => {
  test("readHostFacts reads this host", () => {
    const facts = readHostFacts();
    expect(facts.cpus).toBeGreaterThanOrEqual(1);
    expect(facts.memoryBytes).toBeGreaterThan(0);
    expect(facts.kernelVersion).not.toBe("");
    expect(facts.architecture).toBe(goArch());
    expect(facts.bootID).toMatch(/^[0-9a-f-]{36}$/);
  });

  const fixtures = mkdtempSync(join(tmpdir(), "host-facts-"));
  afterAll(() => rmSync(fixtures, { recursive: true, force: true }));
  const fixture = (name: string, files: Record<string, string>) => {
    const root = join(fixtures, name);
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    return root;
  };

  test("readHostFacts reads cAdvisor's files under a root (fixture)", () => {
    const root = fixture("full", {
      "etc/machine-id": "3d1219c7c4c5404aaa1f6d2a48adfda4\n",
      "var/lib/dbus/machine-id": "ffffffffffffffffffffffffffffffff\n",
      "sys/class/dmi/id/product_uuid": "ec2a1b2c-0000-1111-2222-333344445555\n",
      "proc/sys/kernel/random/boot_id": "cd80ce97-1aca-4325-937a-8ba97ce51295\n",
      "proc/sys/kernel/osrelease": "6.1.0-18-amd64\n",
      "etc/os-release": 'NAME="Debian GNU/Linux"\nPRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\n',
      "sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages": "16\n",
      "sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages": "0\n",
    });
    const facts = readHostFacts("/", root);
    expect(facts).toMatchObject({
      machineID: "3d1219c7c4c5404aaa1f6d2a48adfda4",
      systemUUID: "ec2a1b2c-0000-1111-2222-333344445555",
      bootID: "cd80ce97-1aca-4325-937a-8ba97ce51295",
      kernelVersion: "6.1.0-18-amd64",
      osImage: "Debian GNU/Linux 12 (bookworm)",
      hugePages: [
        { pageSizeBytes: 2 * Mi, pages: 16 },
        { pageSizeBytes: Gi, pages: 0 },
      ],
    });
  });

  test("fallbacks: dbus's machine-id, no product_uuid (not root) → empty, no os-release → Linux, no hugepages directory → no pools", () => {
    const root = fixture("sparse", { "var/lib/dbus/machine-id": "0123456789abcdef0123456789abcdef\n" });
    const facts = readHostFacts("/", root);
    expect(facts).toMatchObject({ machineID: "0123456789abcdef0123456789abcdef", systemUUID: "", bootID: "", osImage: "Linux", hugePages: [] });
    expect(readHugePages(join(fixtures, "nowhere"))).toEqual([]);
    expect(osPrettyName("PRETTY_NAME='Ubuntu 22.04.4 LTS'\n")).toBe("Ubuntu 22.04.4 LTS");
  });

  test("goArch maps Node's names to GOARCH", () => {
    expect(goArch("x64")).toBe("amd64");
    expect(goArch("arm64")).toBe("arm64");
    expect(goArch("ia32")).toBe("386");
  });
});

describe("quantities", () => {
  test("formatBytes and formatMillicores are canonical", () => {
    expect(formatBytes(1024)).toBe("1Ki");
    expect(formatBytes(1536)).toBe("1536");
    expect(formatBytes(8 * Gi)).toBe("8Gi");
    expect(formatBytes(Gi + Mi)).toBe("1025Mi");
    expect(formatBytes(-5)).toBe("0");
    expect(formatMillicores(4000)).toBe("4");
    expect(formatMillicores(3900)).toBe("3900m");
  });
});

describe("parseTaint", () => {
  test("key=value:effect and key:effect", () => {
    expect(parseTaint("dedicated=edge:NoSchedule")).toEqual({ key: "dedicated", value: "edge", effect: "NoSchedule" });
    expect(parseTaint("example.com/gpu:NoExecute")).toEqual({ key: "example.com/gpu", effect: "NoExecute" });
    expect(parseTaint("k=:PreferNoSchedule")).toEqual({ key: "k", value: "", effect: "PreferNoSchedule" });
  });

  test("clear errors for bad input", () => {
    expect(() => parseTaint("dedicated=edge")).toThrow('invalid taint "dedicated=edge": missing effect');
    expect(() => parseTaint("k=v:Sometimes")).toThrow('effect "Sometimes" must be one of NoSchedule, PreferNoSchedule, NoExecute');
    expect(() => parseTaint("k=v:NoSchedule:x")).toThrow("expected key=value:effect or key:effect");
    expect(() => parseTaint("k=v=w:NoSchedule")).toThrow("expected key=value:effect or key:effect");
    expect(() => parseTaint("=v:NoSchedule")).toThrow("key: name part must be non-empty");
    expect(() => parseTaint("-bad:NoSchedule")).toThrow("key: name part must consist of alphanumeric characters");
    expect(() => parseTaint("Bad.Prefix/k:NoSchedule")).toThrow("key: prefix part a lowercase RFC 1123 subdomain must consist of");
    expect(() => parseTaint("k=has space:NoSchedule")).toThrow("a valid label must be an empty string or consist of");
    expect(() => parseTaint(`k=${"v".repeat(64)}:NoSchedule`)).toThrow("must be no more than 63 characters");
  });

  test("parseTaints splits a comma list", () => {
    expect(parseTaints("")).toEqual([]);
    expect(parseTaints("a=b:NoSchedule,c:NoExecute")).toEqual([
      { key: "a", value: "b", effect: "NoSchedule" },
      { key: "c", effect: "NoExecute" },
    ]);
  });
});

describe("parseLabels", () => {
  test("a=b,c=d with trimming, empty values, prefixes, last one wins", () => {
    expect(parseLabels("")).toEqual({});
    expect(parseLabels("a=b, c = d ,node-role.kubernetes.io/edge=,a=z")).toEqual({ a: "z", c: "d", "node-role.kubernetes.io/edge": "" });
  });

  test("clear errors for bad input", () => {
    expect(() => parseLabels("a=b,c")).toThrow('invalid label "c": expected key=value');
    expect(() => parseLabels("=b")).toThrow('invalid label "=b": name part must be non-empty');
    expect(() => parseLabels("a/b/c=d")).toThrow("with an optional DNS subdomain prefix and '/'");
    expect(() => parseLabels("a=b c")).toThrow('invalid label "a=b c": a valid label must be an empty string or consist of');
    expect(() => parseLabels(`${"k".repeat(64)}=v`)).toThrow("name part must be no more than 63 characters");
    expect(() => parseLabels("/k=v")).toThrow("prefix part must be non-empty");
  });
});
