// The pod sync and the managed /etc/hosts on the fake runtime: the file written in the pod's folder
// once the sandbox's IP is known and mounted at /etc/hosts of init and app containers, not into a
// container that mounts its own; a host-network pod's made from the node's file; a hostname the
// kubelet would refuse leaves the pod without a sandbox, saying why.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod } from "kubernetes-types/core/v1";
import { Backoff } from "../../src/agent/backoff";
import { PodSyncer } from "../../src/agent/pod-sync";
import type { RuntimeConfigOptions } from "../../src/agent/runtime-config";
import type { ContainerConfigInput } from "../../src/cri/types";
import { FakeClock } from "../../src/util/clock";
import { createLogger } from "../../src/util/log";
import { FakeRuntime } from "../fakes/runtime";
import { volumesFor } from "../fakes/volumes";

const base = mkdtempSync(join(tmpdir(), "nodeagent-etc-hosts-sync-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));
let seq = 0;

function setUp(): { rt: FakeRuntime; syncer: PodSyncer; opts: RuntimeConfigOptions } {
  const dir = join(base, String(++seq));
  mkdirSync(join(dir, "pods"), { recursive: true });
  const nodeHostsFile = join(dir, "node-hosts");
  writeFileSync(nodeHostsFile, "127.0.0.1 localhost\n192.0.2.10 node-a\n");
  const opts: RuntimeConfigOptions = {
    podLogsRoot: join(dir, "logs"),
    podsDir: join(dir, "pods"),
    cgroupRoot: "nodeagent-unit-test",
    nodeName: "node-a",
    hostIP: "192.0.2.10",
    clusterDns: { servers: [], domain: "cluster.local", resolvConf: "/etc/resolv.conf" },
    nodeHostsFile,
  };
  const clock = new FakeClock();
  const rt = new FakeRuntime(clock);
  const log = createLogger("text", -999);
  const syncer = new PodSyncer({
    runtime: rt,
    clock,
    crashBackoff: new Backoff(clock),
    imageBackoff: new Backoff(clock),
    config: opts,
    log,
    volumes: volumesFor(opts, clock, log),
  });
  return { rt, syncer, opts };
}

const busybox = (name: string, extra: object = {}) => ({ name, image: "localhost/nodeagent/busybox:1.35", command: ["sleep", "1000"], ...extra });

function pod(spec: Partial<NonNullable<Pod["spec"]>>): Pod {
  return { metadata: { name: "web", namespace: "prod", uid: "uid-hosts" }, spec: { containers: [busybox("app")], ...spec } };
}

function createdConfigs(rt: FakeRuntime): ContainerConfigInput[] {
  return (rt.callsOf("createContainer") as { config: ContainerConfigInput }[]).map((c) => c.config);
}

const hostsMount = (c: ContainerConfigInput) => (c.mounts ?? []).find((m) => m.containerPath === "/etc/hosts");

describe("the managed /etc/hosts in the pod sync", () => {
  test("an init container and the app containers mount <podDir>/etc-hosts, naming the sandbox's IP, the FQDN and the aliases", async () => {
    const { rt, syncer, opts } = setUp();
    const p = pod({ hostname: "web", subdomain: "db", initContainers: [busybox("init")], hostAliases: [{ ip: "123.45.67.89", hostnames: ["foo", "bar"] }] });
    await syncer.syncPod(p, undefined);
    const file = join(opts.podsDir, "uid-hosts", "etc-hosts");
    const [init] = createdConfigs(rt);
    expect(init!.metadata?.name).toBe("init");
    expect(hostsMount(init!)).toEqual({
      containerPath: "/etc/hosts",
      hostPath: file,
      readonly: false,
      selinuxRelabel: true,
      propagation: "PROPAGATION_PRIVATE",
    });
    const sandbox = (await rt.listPodSandbox())[0]!;
    const sandboxIP = (await rt.podSandboxStatus(sandbox.id)).status.network!.ip;
    expect(sandboxIP).toMatch(/^10\.88\.0\.\d+$/);
    const text = readFileSync(file, "utf8");
    expect(text).toStartWith("# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n");
    expect(text).toEndWith(`${sandboxIP}\tweb.db.prod.svc.cluster.local\tweb\n\n# Entries added by HostAliases.\n123.45.67.89\tfoo\tbar\n`);
    expect(statSync(file).mode & 0o777).toBe(0o644);
  });

  test("a container that mounts its own /etc/hosts keeps it; its neighbour gets the managed file", async () => {
    const { rt, syncer } = setUp();
    const p = pod({
      containers: [busybox("managed"), busybox("own", { volumeMounts: [{ name: "host-hosts", mountPath: "/etc/hosts" }] })],
      volumes: [{ name: "host-hosts", hostPath: { path: "/etc/hosts", type: "File" } }],
    });
    await syncer.syncPod(p, undefined);
    const byName = new Map(createdConfigs(rt).map((c) => [c.metadata?.name, c]));
    expect(hostsMount(byName.get("managed")!)?.hostPath).toEndWith("/uid-hosts/etc-hosts");
    expect((byName.get("own")!.mounts ?? []).filter((m) => m.containerPath === "/etc/hosts")).toEqual([
      { containerPath: "/etc/hosts", hostPath: "/etc/hosts", readonly: false, propagation: "PROPAGATION_PRIVATE" },
    ]);
  });

  test("a host-network pod: the node's file under its header, then the aliases; the sandbox's status is not asked for", async () => {
    const { rt, syncer, opts } = setUp();
    await syncer.syncPod(pod({ hostNetwork: true, hostAliases: [{ ip: "123.45.67.89", hostnames: ["foo", "bar"] }] }), undefined);
    expect(hostsMount(createdConfigs(rt)[0]!)).toBeDefined();
    expect(readFileSync(join(opts.podsDir, "uid-hosts", "etc-hosts"), "utf8")).toBe(
      "# Kubernetes-managed hosts file (host network).\n127.0.0.1 localhost\n192.0.2.10 node-a\n\n# Entries added by HostAliases.\n123.45.67.89\tfoo\tbar\n",
    );
    expect(rt.callsOf("podSandboxStatus")).toHaveLength(0);
  });

  test("setHostnameAsFQDN: the sandbox's hostname is the FQDN; one over 64 characters makes no sandbox and says why", async () => {
    const ok = setUp();
    await ok.syncer.syncPod(pod({ hostname: "web", subdomain: "db", setHostnameAsFQDN: true }), undefined);
    const [config] = ok.rt.callsOf("runPodSandbox") as { hostname: string }[];
    expect(config!.hostname).toBe("web.db.prod.svc.cluster.local");

    const { rt, syncer } = setUp();
    const r = await syncer.syncPod(pod({ hostname: "a".repeat(40), subdomain: "db", setHostnameAsFQDN: true }), undefined);
    expect(rt.callsOf("runPodSandbox")).toHaveLength(0);
    expect(r.waiting.get("app")).toEqual({
      reason: "ContainerCreating",
      message: `Failed to create pod sandbox: failed to construct FQDN from pod hostname and cluster domain, FQDN ${"a".repeat(40)}.db.prod.svc.cluster.local is too long (64 characters is the max, 66 characters requested)`,
    });
  });
});
