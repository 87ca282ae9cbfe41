// resolveAgentConfig: flags and a KubeletConfiguration file (kubeadm's, as written on a real node)
// into one validated AgentConfig, every mistake reported before anything starts.
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { kubeletConfigz } from "../../src/agent/configz";
import { AGENT_DEFAULTS, resolveAgentConfig, type AgentFlags } from "../../src/agent/agent-config";
import { ConfigError } from "../../src/util/errors";
import { FakeHostNetwork } from "../fakes/host-network";

const FIXTURES = join(import.meta.dir, "../fixtures/kubelet");
const dir = mkdtempSync(join(tmpdir(), "agent-config-"));
const manifests = join(dir, "manifests");
writeFileSync(join(dir, "token"), "s3cret\n", { mode: 0o600 });
writeFileSync(join(dir, "empty-token"), "\n", { mode: 0o600 });
writeFileSync(join(dir, "open-token"), "s3cret\n", { mode: 0o644 });
chmodSync(join(dir, "open-token"), 0o644);
Bun.spawnSync(["mkdir", "-p", manifests]);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const host = { hostname: () => " Worker-1 ", network: new FakeHostNetwork() };
const clientCA = join(dir, "ca.crt");
writeFileSync(clientCA, "-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n");
/** A kubeadm file whose staticPodPath and x509.clientCAFile exist on this machine. */
const kubeadm = (name: string) => readFileSync(join(FIXTURES, name), "utf8").replace("/etc/kubernetes/manifests", manifests).replace("/etc/kubernetes/pki/ca.crt", clientCA);

/** The agent's flags as the command layer hands them over: defaults filled in, `given` the ones typed. */
function resolve(given: Record<string, string | boolean>, text?: string, path = "/var/lib/kubelet/config.yaml") {
  const flags: AgentFlags = { ...AGENT_DEFAULTS, ...(text !== undefined ? { config: path } : {}), ...given };
  return resolveAgentConfig(flags, new Set(Object.keys(given)), text, host);
}

function errorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return e as ConfigError;
  }
  throw new Error("expected a ConfigError");
}

describe("resolveAgentConfig with kubeadm's /var/lib/kubelet/config.yaml", () => {
  test("the fields we implement are used; a zero value (0s, \"\") takes the default, as v1beta1 defaulting does", () => {
    const c = resolve({}, kubeadm("kubeadm-config.yaml"));
    expect(c.manifestPath).toBe(manifests);
    expect(c.pods.clusterDNS).toEqual(["10.96.0.10"]);
    expect(c.pods.clusterDomain).toBe("cluster.local");
    expect(c.fileCheckFrequencyMs).toBe(20_000);
    expect(c.httpCheckFrequencyMs).toBe(20_000);
    expect(c.syncFrequencyMs).toBe(60_000);
    expect(c.runtime.requestTimeoutMs).toBe(120_000);
    expect(c.runtime.endpoint).toBeUndefined();
    expect(c.cluster).toBeUndefined();
    // authentication/authorization are kubeadm's: x509 with the cluster CA is used; the webhooks
    // need --kubeconfig, so without it they are warned about and only the push token is authorized.
    expect(c.server).toEqual({
      address: "127.0.0.1", port: 10250, insecureHttp: false, anonymousReadOnly: false,
      authentication: { clientCAFile: clientCA, anonymous: false, webhook: { enabled: false, cacheTTLMs: 120_000 } },
      authorization: { mode: "PushTokenOnly", webhook: { cacheAuthorizedTTLMs: 300_000, cacheUnauthorizedTTLMs: 30_000 } },
    });
    expect(c.node.maxPods).toBe(110);
    expect(c.nodeName).toBe("worker-1");
    expect(c.nodeIPs).toEqual([]);
  });

  test("the set fields we do not implement are listed once, in one warning; fields at their zero value are not", () => {
    const c = resolve({}, kubeadm("kubeadm-config.yaml"));
    expect(c.warnings).toEqual([
      "/var/lib/kubelet/config.yaml: ignoring the fields nodeagent does not implement: healthzBindAddress, healthzPort",
      // Used with --kubeconfig (src/certificate); a standalone node has nobody to ask.
      "/var/lib/kubelet/config.yaml:40:1: rotateCertificates: ignored without --kubeconfig (there is no API server to issue certificates)",
      "/var/lib/kubelet/config.yaml:2:1: authentication.webhook.enabled: ignored without --kubeconfig (there is no API server to review tokens)",
      "/var/lib/kubelet/config.yaml:10:1: authorization.mode: Webhook ignored without --kubeconfig (there is no API server to ask); only the push token is authorized",
    ]);
  });

  test("an operator's usual edits: reservations summed, taints, maxPods, two DNS servers, durations, evictionHard used", () => {
    const c = resolve({}, kubeadm("kubeadm-tuned.yaml"));
    expect(c.node.maxPods).toBe(60);
    expect(c.node.reserved).toEqual({ cpu: "1250m", memory: String((256 + 512) * 2 ** 20) });
    expect(c.node.taints).toEqual([{ key: "dedicated", value: "edge", effect: "NoSchedule" }]);
    expect(c.pods.clusterDNS).toEqual(["10.96.0.10", "10.96.0.11"]);
    expect(c.fileCheckFrequencyMs).toBe(5_000);
    expect(c.syncFrequencyMs).toBe(30_000);
    expect(c.runtime.requestTimeoutMs).toBe(300_000);
    expect(c.runtime.endpoint).toBe("unix:///run/containerd/containerd.sock");
    // One for the fields not implemented, three for the webhook and certificate settings a standalone agent cannot use.
    expect(c.warnings).toHaveLength(4);
    expect(c.warnings[0]).toContain("healthzPort");
    expect(c.warnings[0]).not.toContain("evictionHard");
    expect(c.warnings[0]).not.toContain("cgroupDriver");
    expect(c.cgroups.driver).toBe("systemd");
    // The file's evictionHard replaces the default map: no nodefs.inodesFree threshold.
    expect(c.eviction.thresholds.map((t) => [t.signal, t.value])).toEqual([
      ["imagefs.available", { percentage: Math.fround(0.15) }],
      ["memory.available", { quantity: 200 * 2 ** 20 }],
      ["nodefs.available", { percentage: Math.fround(0.1) }],
    ]);
  });
});

describe("eviction settings", () => {
  test("the kubelet's defaults: four hard thresholds, a 5m transition period, soft grace cap 0", () => {
    const c = resolve({});
    expect(c.eviction.thresholds.map((t) => t.signal)).toEqual(["memory.available", "nodefs.available", "nodefs.inodesFree", "imagefs.available"]);
    expect(c.eviction.thresholds.every((t) => t.gracePeriodMs === 0)).toBe(true);
    expect(c.eviction.pressureTransitionPeriodMs).toBe(300_000);
    expect(c.eviction.maxPodGracePeriodSeconds).toBe(0);
  });

  test("a given --eviction-hard replaces the whole default map; an empty one leaves no threshold", () => {
    expect(resolve({ "eviction-hard": "memory.available<1Gi" }).eviction.thresholds).toEqual([{ signal: "memory.available", value: { quantity: 2 ** 30 }, gracePeriodMs: 0 }]);
    expect(resolve({ "eviction-hard": "" }).eviction.thresholds).toEqual([]);
  });

  test("soft thresholds with their grace periods, minimum reclaim, transition period and grace cap from flags", () => {
    const c = resolve({
      "eviction-soft": "memory.available<2Gi", "eviction-soft-grace-period": "memory.available=1m", "eviction-minimum-reclaim": "memory.available=256Mi",
      "eviction-pressure-transition-period": "30s", "eviction-max-pod-grace-period": "-1",
    });
    expect(c.eviction.thresholds.find((t) => t.gracePeriodMs > 0)).toEqual({ signal: "memory.available", value: { quantity: 2 * 2 ** 30 }, gracePeriodMs: 60_000, minReclaim: { quantity: 256 * 2 ** 20 } });
    expect(c.eviction.pressureTransitionPeriodMs).toBe(30_000);
    expect(c.eviction.maxPodGracePeriodSeconds).toBe(-1);
  });

  test("the KubeletConfiguration fields, a flag winning over its field", () => {
    const text = `apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
evictionHard: {memory.available: 300Mi}
evictionSoft: {nodefs.available: 20%}
evictionSoftGracePeriod: {nodefs.available: 2m}
evictionMinimumReclaim: {nodefs.available: 1Gi}
evictionPressureTransitionPeriod: 1m
evictionMaxPodGracePeriod: 60
`;
    const c = resolve({}, text);
    expect(c.eviction.thresholds).toEqual([
      { signal: "memory.available", value: { quantity: 300 * 2 ** 20 }, gracePeriodMs: 0 },
      { signal: "nodefs.available", value: { percentage: Math.fround(0.2) }, gracePeriodMs: 120_000, minReclaim: { quantity: 2 ** 30 } },
    ]);
    expect(c.eviction.pressureTransitionPeriodMs).toBe(60_000);
    expect(c.eviction.maxPodGracePeriodSeconds).toBe(60);
    expect(c.warnings).toEqual([]);
    expect(resolve({ "eviction-hard": "memory.available<1Gi" }, text).eviction.thresholds[0]!.value).toEqual({ quantity: 2 ** 30 });
    expect(kubeletConfigz(c).kubeletconfig).toMatchObject({
      evictionHard: { "memory.available": "300Mi" }, evictionSoft: { "nodefs.available": "20%" }, evictionSoftGracePeriod: { "nodefs.available": "2m" },
      evictionPressureTransitionPeriod: "1m0s", evictionMaxPodGracePeriod: 60,
    });
  });

  test("mistakes name the flag or the file's field, and the entry", () => {
    expect(errorOf(() => resolve({ "eviction-hard": "memory.available<1Gi,memory.free<1Gi" })).message).toBe('--eviction-hard: "memory.free<1Gi": unsupported eviction signal memory.free');
    expect(errorOf(() => resolve({ "eviction-hard": "memory.available=1Gi" })).message).toBe(
      '--eviction-hard "memory.available=1Gi": malformed pair "memory.available=1Gi", expect string<string',
    );
    expect(errorOf(() => resolve({ "eviction-soft": "memory.available<1Gi" })).message).toBe(
      '--eviction-soft: "memory.available": grace period must be specified for the soft eviction threshold memory.available',
    );
    expect(errorOf(() => resolve({ "eviction-minimum-reclaim": "nodefs.available=-1Gi" })).message).toBe(
      '--eviction-minimum-reclaim: "nodefs.available=-1Gi": negative eviction minimum reclaim specified for nodefs.available',
    );
    expect(errorOf(() => resolve({ "eviction-pressure-transition-period": "0s" })).message).toBe('--eviction-pressure-transition-period "0s": must be longer than 0');
    expect(errorOf(() => resolve({ "eviction-max-pod-grace-period": "1m" })).message).toContain("--eviction-max-pod-grace-period");
    const file = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nevictionHard:\n  nodefs.available: 150%\n";
    expect(errorOf(() => resolve({}, file)).message).toBe(
      '/var/lib/kubelet/config.yaml:3:1: evictionHard: "nodefs.available<150%": eviction percentage threshold nodefs.available must be <= 100%: 150%',
    );
  });
});

describe("flags, file and defaults", () => {
  test("a flag given on the command line wins over the file; the file wins over a flag's default", () => {
    const text = kubeadm("kubeadm-tuned.yaml");
    expect(resolve({ "max-pods": "30" }, text).node.maxPods).toBe(30);
    expect(resolve({}, text).node.maxPods).toBe(60);
    expect(resolve({ "cluster-dns": "10.0.0.53" }, text).pods.clusterDNS).toEqual(["10.0.0.53"]);
    const other = join(dir, "other");
    Bun.spawnSync(["mkdir", "-p", other]);
    expect(resolve({ "pod-manifest-path": other }, text).manifestPath).toBe(other);
  });

  test("without a file every setting has the flag's default", () => {
    const c = resolveAgentConfig({}, new Set(), undefined, host);
    expect(c.fileCheckFrequencyMs).toBe(20_000);
    expect(c.node.maxPods).toBe(110);
    expect(c.server.port).toBe(10250);
    expect(c.rootDir).toBe("/var/lib/nodeagent");
    expect(c.plegMode).toBe("auto");
    expect(c.warnings).toEqual([]);
  });

  test("--port 0 on the command line is any free port; port: 0 in the file is unset (10250), as the kubelet defaults it", () => {
    expect(resolve({ port: "0" }).server.port).toBe(0);
    expect(resolve({}, "port: 0\n").server.port).toBe(10250);
  });

  test("the push token is read at start; a missing, empty or world-readable file is an error", () => {
    expect(resolve({ "push-token-file": join(dir, "token") }).pushToken).toBe("s3cret");
    expect(errorOf(() => resolve({ "push-token-file": join(dir, "empty-token") })).message).toContain("empty");
    expect(errorOf(() => resolve({ "push-token-file": join(dir, "open-token") })).message).toContain("0644");
    expect(errorOf(() => resolve({ "push-token-file": join(dir, "nope") })).message).toBe(`--push-token-file "${join(dir, "nope")}": no such file or directory`);
  });

  test("--push-policy is checked; HTTPS may listen anywhere, --insecure-http only on loopback", () => {
    expect(resolve({ "push-policy": "restricted" }).pushPolicy).toBe("restricted");
    expect(resolve({}).pushPolicy).toBe("unrestricted");
    expect(errorOf(() => resolve({ "push-policy": "strict" })).message).toContain("use unrestricted, restricted");
    // Every request is authenticated over TLS, so a token is no longer what makes 0.0.0.0 safe.
    expect(resolve({ address: "0.0.0.0" }).server.address).toBe("0.0.0.0");
    expect(resolve({ address: "0.0.0.0", "anonymous-read-only": true }).server.anonymousReadOnly).toBe(true);
    expect(errorOf(() => resolve({ address: "0.0.0.0", "insecure-http": true })).message).toContain("--insecure-http serves the API without TLS, for this host only, and --address 0.0.0.0 is not a loopback address");
    expect(resolve({ "insecure-http": true }).server.insecureHttp).toBe(true);
    expect(errorOf(() => resolve({ "insecure-http": true, "client-ca-file": join(dir, "ca.crt") })).message).toContain("--client-ca-file needs TLS");
  });

  test("authentication and authorization: the kubelet's flags, else the file's blocks, else the defaults", () => {
    // Standalone: nothing but the push token is authorized; no webhook, no anonymous.
    const standalone = resolve({}).server;
    expect(standalone.authentication).toEqual({ anonymous: false, webhook: { enabled: false, cacheTTLMs: 120_000 } });
    expect(standalone.authorization.mode).toBe("PushTokenOnly");
    // A node of a cluster: the webhooks by default, with the kubelet's TTLs.
    const kubeconfig = join(dir, "kubeconfig");
    writeFileSync(kubeconfig, "apiVersion: v1\nkind: Config\n");
    const cluster = resolve({ kubeconfig }).server;
    expect(cluster.authentication.webhook).toEqual({ enabled: true, cacheTTLMs: 120_000 });
    expect(cluster.authorization).toEqual({ mode: "Webhook", webhook: { cacheAuthorizedTTLMs: 300_000, cacheUnauthorizedTTLMs: 30_000 } });
    // Flags win over the file.
    const file = `apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
authentication:
  anonymous: {enabled: true}
  webhook: {enabled: true, cacheTTL: 10s}
  x509: {clientCAFile: ${join(dir, "ca.crt")}}
authorization:
  mode: AlwaysAllow
  webhook: {cacheAuthorizedTTL: 1m, cacheUnauthorizedTTL: 5s}
`;
    const fromFile = resolve({ kubeconfig }, file).server;
    expect(fromFile.authentication).toEqual({ clientCAFile: join(dir, "ca.crt"), anonymous: true, webhook: { enabled: true, cacheTTLMs: 10_000 } });
    expect(fromFile.authorization).toEqual({ mode: "AlwaysAllow", webhook: { cacheAuthorizedTTLMs: 60_000, cacheUnauthorizedTTLMs: 5_000 } });
    const overridden = resolve({ kubeconfig, "anonymous-auth": false, "authorization-mode": "Webhook", "authentication-token-webhook-cache-ttl": "30s" }, file).server;
    expect(overridden.authentication.anonymous).toBe(false);
    expect(overridden.authentication.webhook.cacheTTLMs).toBe(30_000);
    expect(overridden.authorization.mode).toBe("Webhook");
    // Asking for a webhook on the command line without an API server is the kubelet's start-up error.
    expect(errorOf(() => resolve({ "authorization-mode": "Webhook" })).message).toContain("--authorization-mode Webhook asks the API server (SubjectAccessReview): give --kubeconfig too");
    expect(errorOf(() => resolve({ "authentication-token-webhook": true })).message).toContain("give --kubeconfig too");
    expect(resolve({ "authorization-mode": "AlwaysAllow" }).server.authorization.mode).toBe("AlwaysAllow");
    expect(errorOf(() => resolve({ "client-ca-file": join(dir, "nope.crt") })).message).toBe(`--client-ca-file "${join(dir, "nope.crt")}": no such file or directory`);
    expect(errorOf(() => resolve({}, file.replace("mode: AlwaysAllow", "mode: RBAC"))).message).toContain("authorization.mode: use Webhook or AlwaysAllow");
  });
});

describe("values are checked before anything starts", () => {
  const cases: Array<[Record<string, string>, string]> = [
    [{ "max-pods": "abc" }, `--max-pods "abc": expected a whole number from 0 to 1000000`],
    [{ port: "abc" }, `--port "abc": expected a whole number from 0 to 65535`],
    [{ port: "70000" }, `--port "70000": expected a whole number from 0 to 65535`],
    [{ "sync-frequency": "soon" }, `--sync-frequency "soon": invalid duration "soon"`],
    [{ "file-check-frequency": "0s" }, `--file-check-frequency "0s": must be longer than 0`],
    [{ "node-ip": "10.0.0" }, `--node-ip "10.0.0": "10.0.0" is not an IP address`],
    [{ "node-ip": "192.0.2.10,10.88.0.1" }, `--node-ip "192.0.2.10,10.88.0.1": must contain either a single IP or a dual-stack pair of IPs`],
    [{ "node-ip": "192.0.2.10,2001:db8::10,10.88.0.1" }, `must contain either a single IP or a dual-stack pair of IPs`],
    [{ "node-ip": "0.0.0.0,2001:db8::10" }, `--node-ip "0.0.0.0,2001:db8::10": a dual-stack --node-ip cannot include '0.0.0.0' or '::'`],
    [{ "node-ip": "198.51.100.7" }, `--node-ip "198.51.100.7": node IP: "198.51.100.7" not found in the host's network interfaces`],
    [{ "node-ip": "fe80::1" }, `--node-ip "fe80::1": nodeIP can't be a link-local unicast address`],
    [{ "node-ip": "224.0.0.1" }, `--node-ip "224.0.0.1": nodeIP can't be a multicast address`],
    [{ "cluster-dns": "10.96.0.10,dns" }, `--cluster-dns "10.96.0.10,dns": not an IP address`],
    [{ "kube-reserved": "cpu=lots" }, `--kube-reserved/--system-reserved: cpu=lots:`],
    [{ "kube-reserved": "gpu=1" }, `only cpu, memory and ephemeral-storage can be reserved`],
    [{ "register-with-taints": "dedicated=edge" }, `--register-with-taints "dedicated=edge": invalid taint "dedicated=edge": missing effect`],
    [{ "manifest-url-header": "NoColon" }, `--manifest-url-header "NoColon": "NoColon": use Name:Value`],
    [{ "manifest-url": "ftp://x" }, `--manifest-url "ftp://x": expected an http:// or https:// URL`],
    [{ "pleg-mode": "fast" }, `--pleg-mode "fast": use auto, generic, evented`],
    [{ "cgroup-root": "nodeagent" }, `--cgroup-root "nodeagent": must be an absolute cgroup path`],
    [{ "hostname-override": "Bad_Name" }, `node name "bad_name"`],
    [{ "tls-cert-file": "/etc/hostname" }, "--tls-cert-file and --tls-private-key-file go together"],
    [{ context: "prod" }, "--context chooses a context of --kubeconfig"],
  ];
  for (const [flags, message] of cases) {
    const [[flag, value]] = Object.entries(flags) as [[string, string]];
    test(`--${flag} ${JSON.stringify(value)}`, () => {
      expect(errorOf(() => resolve(flags)).message).toContain(message);
    });
  }

  test("certificates: --bootstrap-kubeconfig lets --kubeconfig not exist yet; --cert-dir defaults under --root-dir; rotation flags and fields", () => {
    const boot = join(dir, "bootstrap.kubeconfig");
    writeFileSync(boot, "apiVersion: v1\nkind: Config\n");
    const c = resolve({ "bootstrap-kubeconfig": boot, kubeconfig: join(dir, "not-yet.kubeconfig"), "rotate-certificates": "true", "root-dir": "/srv/na" });
    expect(c.cluster?.kubeconfig).toBe(join(dir, "not-yet.kubeconfig"));
    expect(c.cluster?.certificates).toEqual({ bootstrapKubeconfig: boot, rotateCertificates: true, serverTLSBootstrap: false });
    expect(c.certDir).toBe("/srv/na/pki");
    // A bare --rotate-certificates on the command line is a boolean true, as the kubelet's bool flag.
    expect(resolve({ "bootstrap-kubeconfig": boot, kubeconfig: join(dir, "not-yet.kubeconfig"), "rotate-certificates": true }).cluster?.certificates?.rotateCertificates).toBe(true);
    expect(resolve({ "cert-dir": "/etc/na/pki" }).certDir).toBe("/etc/na/pki");
    const f = resolve({ kubeconfig: boot }, "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nrotateCertificates: true\nserverTLSBootstrap: true\n");
    expect(f.cluster?.certificates).toEqual({ rotateCertificates: true, serverTLSBootstrap: true });
    expect(kubeletConfigz(f).kubeletconfig).toMatchObject({ rotateCertificates: true, serverTLSBootstrap: true });
    // Mistakes, each naming the flag.
    expect(errorOf(() => resolve({ kubeconfig: join(dir, "not-yet.kubeconfig") })).message).toBe(`--kubeconfig "${join(dir, "not-yet.kubeconfig")}": no such file or directory`);
    expect(errorOf(() => resolve({ "bootstrap-kubeconfig": boot })).message).toContain("--bootstrap-kubeconfig needs --kubeconfig");
    expect(errorOf(() => resolve({ "bootstrap-kubeconfig": "/no/such" , kubeconfig: "/x" })).message).toContain(`--bootstrap-kubeconfig "/no/such": no such file or directory`);
    expect(errorOf(() => resolve({ "rotate-certificates": "true" })).message).toBe("--rotate-certificates asks the API server for certificates: give --kubeconfig (or --bootstrap-kubeconfig) too");
    expect(errorOf(() => resolve({ kubeconfig: boot, "rotate-server-certificates": "yes" })).message).toBe(`--rotate-server-certificates "yes": use true or false`);
    expect(errorOf(() => resolve({ kubeconfig: boot, "rotate-server-certificates": "true", "tls-cert-file": clientCA, "tls-private-key-file": clientCA })).message).toContain("--rotate-server-certificates requests the serving certificate from the cluster: drop --tls-cert-file");
  });

  test("a missing --pod-manifest-path is an error at start", () => {
    expect(errorOf(() => resolve({ "pod-manifest-path": "/no/such/dir" })).message).toBe(`--pod-manifest-path "/no/such/dir": no such file or directory`);
  });

  test("--local-objects must be an existing directory (exit 2 like every flag)", () => {
    expect(errorOf(() => resolve({ "local-objects": "/no/such/dir" })).message).toBe(`--local-objects "/no/such/dir": no such file or directory`);
    expect(errorOf(() => resolve({ "local-objects": "/etc/hostname" })).message).toBe(`--local-objects "/etc/hostname": not a directory`);
    expect(resolve({ "local-objects": "/etc" }).localObjects).toBe("/etc");
    expect(resolve({}).localObjects).toBeUndefined();
    expect(errorOf(() => resolve({ "local-objects": "/etc", kubeconfig: "/etc/hostname" })).message).toContain("give one of the two");
  });

  test("every mistake is reported at once, one a line", () => {
    const e = errorOf(() => resolve({ "max-pods": "abc", port: "abc" }));
    expect(e.message).toBe(`2 problems:\n  --max-pods "abc": expected a whole number from 0 to 1000000\n  --port "abc": expected a whole number from 0 to 65535`);
  });
});

describe("the node's cgroups: --cgroup-driver, --cgroups-per-qos, --enforce-node-allocatable", () => {
  test("the kubelet's defaults: cgroupfs, the QoS hierarchy, pods enforced; kube- and system-reserved kept apart", () => {
    const c = resolve({ "kube-reserved": "cpu=500m,memory=1Gi", "system-reserved": "memory=512Mi" });
    expect(c.cgroups).toEqual({ driver: "cgroupfs", perQOS: true, enforceNodeAllocatable: ["pods"] });
    expect(c.node.kubeReserved).toEqual({ cpu: "500m", memory: String(2 ** 30) });
    expect(c.node.systemReserved).toEqual({ memory: String(2 ** 29) });
    expect(c.node.reserved).toEqual({ cpu: "500m", memory: String(2 ** 30 + 2 ** 29) });
  });

  test("flags: systemd, the flat layout with nothing enforced, the reserved cgroups", () => {
    expect(resolve({ "cgroup-driver": "systemd" }).cgroups.driver).toBe("systemd");
    expect(resolve({ "cgroups-per-qos": "false", "enforce-node-allocatable": "" }).cgroups).toEqual({ driver: "cgroupfs", perQOS: false, enforceNodeAllocatable: [] });
    // As the command line gives a boolean flag (--cgroups-per-qos=false, --no-cgroups-per-qos), as pflag's.
    expect(resolve({ "cgroups-per-qos": false, "enforce-node-allocatable": "" }).cgroups.perQOS).toBe(false);
    expect(resolve({ "enforce-node-allocatable": "none" }).cgroups.enforceNodeAllocatable).toEqual([]);
    const c = resolve({ "enforce-node-allocatable": "pods,system-reserved,kube-reserved", "system-reserved-cgroup": "/system.slice", "kube-reserved-cgroup": "/kube.slice" });
    expect(c.cgroups).toEqual({ driver: "cgroupfs", perQOS: true, enforceNodeAllocatable: ["pods", "system-reserved", "kube-reserved"], systemReservedCgroup: "/system.slice", kubeReservedCgroup: "/kube.slice" });
  });

  test("the file's fields; an explicit false and an explicit empty list are not the defaults", () => {
    const file = (body: string) => `apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n${body}`;
    expect(resolve({}, file("cgroupDriver: systemd\ncgroupsPerQOS: false\nenforceNodeAllocatable: []\n")).cgroups).toEqual({ driver: "systemd", perQOS: false, enforceNodeAllocatable: [] });
    expect(resolve({}, file("enforceNodeAllocatable: [pods, kube-reserved]\nkubeReservedCgroup: /kube.slice\n")).cgroups).toMatchObject({ perQOS: true, enforceNodeAllocatable: ["pods", "kube-reserved"], kubeReservedCgroup: "/kube.slice" });
    expect(errorOf(() => resolve({}, file("cgroupsPerQOS: \"no\"\n"))).message).toContain("cgroupsPerQOS: expected true or false");
  });

  test("mistakes, with what to do", () => {
    expect(errorOf(() => resolve({ "cgroup-driver": "systemD" })).message).toBe(`--cgroup-driver "systemD": use cgroupfs, systemd`);
    expect(errorOf(() => resolve({ "cgroups-per-qos": "yes" })).message).toBe(`--cgroups-per-qos "yes": use true or false`);
    expect(errorOf(() => resolve({ "enforce-node-allocatable": "pods,memory" })).message).toContain(`--enforce-node-allocatable "pods,memory": invalid option "memory": valid options are "pods", "system-reserved", "kube-reserved", "none"`);
    expect(errorOf(() => resolve({ "enforce-node-allocatable": "none,pods" })).message).toContain(`may not contain additional enforcements when "none" is specified`);
    expect(errorOf(() => resolve({ "cgroups-per-qos": "false" })).message).toBe("--enforce-node-allocatable is not supported unless --cgroups-per-qos is turned on: give --enforce-node-allocatable= (empty) with --cgroups-per-qos=false");
    expect(errorOf(() => resolve({ "enforce-node-allocatable": "pods,system-reserved" })).message).toStartWith(`--system-reserved-cgroup must be specified when "system-reserved" is in --enforce-node-allocatable`);
    expect(errorOf(() => resolve({ "enforce-node-allocatable": "kube-reserved" })).message).toStartWith(`--kube-reserved-cgroup must be specified when "kube-reserved" is in --enforce-node-allocatable`);
  });
});

describe("--node-labels as the kubelet checks them", () => {
  test("labels outside the kubernetes.io and k8s.io namespaces, and those a kubelet may set, are accepted", () => {
    const labels = "example.com/rack=r1,tier=edge,node.kubernetes.io/pool=a,kubelet.kubernetes.io/x=y,topology.kubernetes.io/zone=z1,kubernetes.io/arch=amd64";
    expect(resolve({ "node-labels": labels }).node.labels).toEqual({
      "example.com/rack": "r1", tier: "edge", "node.kubernetes.io/pool": "a", "kubelet.kubernetes.io/x": "y", "topology.kubernetes.io/zone": "z1", "kubernetes.io/arch": "amd64",
    });
  });

  test("a label NodeRestriction forbids a node to set itself is refused, with the kubelet's message", () => {
    const e = errorOf(() => resolve({ "node-labels": "node-role.kubernetes.io/worker=,team.k8s.io/x=y,app=web" }));
    expect(e.message).toBe(
      "unknown 'kubernetes.io' or 'k8s.io' labels specified with --node-labels: [node-role.kubernetes.io/worker team.k8s.io/x]\n" +
        "--node-labels in the 'kubernetes.io' namespace must begin with an allowed prefix (kubelet.kubernetes.io, node.kubernetes.io) " +
        "or be in the specifically allowed set (beta.kubernetes.io/arch, beta.kubernetes.io/instance-type, beta.kubernetes.io/os, " +
        "failure-domain.beta.kubernetes.io/region, failure-domain.beta.kubernetes.io/zone, kubernetes.io/arch, kubernetes.io/hostname, " +
        "kubernetes.io/os, node.kubernetes.io/instance-type, topology.kubernetes.io/region, topology.kubernetes.io/zone)",
    );
    expect(errorOf(() => resolve({ "node-labels": "node-restriction.kubernetes.io/team=a" })).message).toContain("[node-restriction.kubernetes.io/team]");
  });

  test("a label that is not a label is refused", () => {
    expect(errorOf(() => resolve({ "node-labels": "bad key=x" })).message).toContain(`--node-labels: invalid label "bad key=x"`);
  });
});

describe("the file: types, values and names, with their line", () => {
  const bad = (text: string) => errorOf(() => resolve({}, text, "/etc/k.yaml")).message;

  test("a wrong type names the field and its line", () => {
    expect(bad("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nmaxPods: abc\n")).toBe(`/etc/k.yaml:3:1: maxPods: expected a whole number, got the string "abc"`);
    expect(bad("clusterDNS: 10.96.0.10\n")).toBe(`/etc/k.yaml:1:1: clusterDNS: expected a list of strings, got the string "10.96.0.10"`);
    expect(bad("kind: KubeletConfiguration\nsyncFrequency: 60\n")).toBe(`/etc/k.yaml:2:1: syncFrequency: expected a duration such as "20s", got 60`);
    expect(bad("staticPodPath:\n  dir: /x\n")).toBe(`/etc/k.yaml:1:1: staticPodPath: expected a string, got a mapping`);
    expect(bad("registerWithTaints:\n- key: a\n  effect: Sometimes\n")).toContain(`/etc/k.yaml:1:1: registerWithTaints: invalid taint "a:Sometimes": effect "Sometimes" must be one of`);
  });

  test("a wrong value names the field and its line", () => {
    expect(bad("\n\nclusterDNS:\n- 10.96.0.10\n- coredns\n")).toBe(`/etc/k.yaml:3:1: clusterDNS: not an IP address`);
    expect(bad("staticPodPath: /no/such/manifests\n")).toBe(`/etc/k.yaml:1:1: staticPodPath: no such file or directory`);
    expect(bad("kubeReserved:\n  cpu: lots\n")).toContain("cpu=lots");
  });

  test("a name one edit away from a field we use is an error with the field meant; other unknown names are warned about", () => {
    expect(bad("kind: KubeletConfiguration\nstaticPodPaht: /etc/kubernetes/manifests\n")).toBe(`/etc/k.yaml:2:1: unknown field "staticPodPaht"; did you mean staticPodPath?`);
    const c = resolve({}, "cpuManagerPolicy: static\nsomethingNew: 3\n", "/etc/k.yaml");
    expect(c.warnings).toEqual([
      "/etc/k.yaml: ignoring the fields nodeagent does not implement: cpuManagerPolicy; ignoring fields that KubeletConfiguration kubelet.config.k8s.io/v1beta1 does not have: somethingNew",
    ]);
  });

  test("kind, apiVersion, YAML and shape", () => {
    expect(bad("apiVersion: v1\nkind: Pod\n")).toBe(`/etc/k.yaml:1:1: apiVersion is "v1"; a kubelet configuration file has apiVersion: kubelet.config.k8s.io/v1beta1`);
    expect(bad("kind: KubeProxyConfiguration\n")).toBe(`/etc/k.yaml:1:1: kind is "KubeProxyConfiguration"; a kubelet configuration file has kind: KubeletConfiguration`);
    expect(bad("maxPods: 3\nmaxPods: 4\n")).toMatch(/^\/etc\/k\.yaml:2:1: not valid YAML: Map keys must be unique/);
    expect(bad("- a\n")).toContain("expected a mapping of fields");
  });
});

describe("the folders the agent deletes in, and the cgroup root (issue 24)", () => {
  const msg = (given: Record<string, string>, text?: string) => errorOf(() => resolve(given, text, "/etc/k.yaml")).message;

  test("--pod-logs-dir, --root-dir, --cert-dir: empty, relative, / and the host's system folders are errors naming the flag", () => {
    expect(msg({ "pod-logs-dir": "" })).toBe(`--pod-logs-dir "": must not be empty: give an absolute path such as /var/log/pods`);
    expect(msg({ "pod-logs-dir": "logs" })).toBe(`--pod-logs-dir "logs": must be an absolute path such as /var/log/pods (not relative to the working directory)`);
    expect(msg({ "pod-logs-dir": "/etc" })).toBe(`--pod-logs-dir "/etc": is /etc, a system folder of the host: the agent removes what it does not recognise in its folders; use a folder of its own such as /var/log/pods`);
    expect(msg({ "pod-logs-dir": "/var/log/pods/.." })).toContain(`--pod-logs-dir "/var/log/pods/..": is (once normalised) /var/log, a system folder`);
    expect(msg({ "pod-logs-dir": "//usr/" })).toContain("is (once normalised) /usr,");
    expect(msg({ "root-dir": "/" })).toBe(`--root-dir "/": is /, the root of the host: the agent removes what it does not recognise in its folders; use a folder of its own such as /var/lib/nodeagent`);
    expect(msg({ "root-dir": "" })).toContain(`--root-dir "": must not be empty`);
    expect(msg({ "root-dir": "na" })).toContain(`--root-dir "na": must be an absolute path`);
    expect(msg({ "root-dir": "/var/lib" })).toContain("/var/lib, a system folder");
    expect(msg({ "cert-dir": "/etc" })).toContain(`--cert-dir "/etc": is /etc, a system folder`);
    expect(msg({ "cert-dir": "" })).toContain(`--cert-dir "": must not be empty`);
    expect(msg({ "cert-dir": "pki" })).toContain(`--cert-dir "pki": must be an absolute path`);
    for (const f of ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/boot", "/root", "/home", "/var", "/proc", "/sys", "/dev", "/run"]) {
      expect(msg({ "pod-logs-dir": f })).toContain(`${f}, a system folder of the host`);
    }
    // Their own folders below the system ones are fine.
    const c = resolve({ "pod-logs-dir": "/var/log/pods", "root-dir": "/var/lib/na", "cert-dir": "/etc/na/pki" });
    expect([c.pods.logsDir, c.rootDir, c.certDir]).toEqual(["/var/log/pods", "/var/lib/na", "/etc/na/pki"]);
  });

  test("podLogsDir in the file: empty, relative or a system folder is an error naming the file, line and field; left out it is the default", () => {
    expect(msg({}, `kind: KubeletConfiguration\npodLogsDir: ""\n`)).toBe(`/etc/k.yaml:2:1: podLogsDir: must not be empty: give an absolute path such as /var/log/pods`);
    expect(msg({}, "podLogsDir: logs\n")).toContain("/etc/k.yaml:1:1: podLogsDir: must be an absolute path");
    expect(msg({}, "podLogsDir: /etc/\n")).toContain("/etc/k.yaml:1:1: podLogsDir: is (once normalised) /etc, a system folder");
    expect(resolve({}, "kind: KubeletConfiguration\n").pods.logsDir).toBe("/var/log/pods");
    expect(resolve({}, "podLogsDir: /srv/pod-logs\n").pods.logsDir).toBe("/srv/pod-logs");
    // Checked even when the flag overrides it; then the flag wins.
    expect(msg({ "pod-logs-dir": "/srv/logs" }, "podLogsDir: /etc\n")).toContain("/etc/k.yaml:1:1: podLogsDir: is /etc");
    expect(resolve({ "pod-logs-dir": "/srv/logs" }, "podLogsDir: /srv/pod-logs\n").pods.logsDir).toBe("/srv/logs");
  });

  test("--cgroup-root (and cgroupRoot, the reserved cgroups) a clean absolute cgroup path", () => {
    expect(msg({ "cgroup-root": "/../../etc" })).toBe(`--cgroup-root "/../../etc": must not have a ".." segment: a cgroup path names a cgroup below the root, e.g. /nodeagent`);
    expect(msg({ "cgroup-root": "" })).toBe(`--cgroup-root "": must be an absolute cgroup path, e.g. /nodeagent`);
    expect(msg({ "cgroup-root": "/a//b" })).toContain("empty segment");
    expect(msg({ "cgroup-root": "/a/./b" })).toContain(`a "." segment`);
    expect(msg({ "cgroup-root": "/na\n" })).toContain("newline");
    expect(msg({}, "cgroupRoot: /x/../../y\n")).toContain(`/etc/k.yaml:1:1: cgroupRoot: must not have a ".." segment`);
    expect(msg({ "kube-reserved-cgroup": "/../kube" })).toContain(`--kube-reserved-cgroup "/../kube": must not have a ".." segment`);
    expect(msg({ "system-reserved-cgroup": "system.slice" })).toContain(`--system-reserved-cgroup "system.slice": must be an absolute cgroup path`);
    expect(resolve({ "cgroup-root": "/" }).pods.cgroupRoot).toBe("/");
    expect(resolve({ "cgroup-root": "/a/b" }).pods.cgroupRoot).toBe("/a/b");
  });
});

describe("the file: every field type-checked, nested blocks included, whether or not a flag overrides it (issue 24)", () => {
  const bad = (text: string, given: Record<string, string> = {}) => errorOf(() => resolve(given, text, "/etc/k.yaml")).message;

  test("authentication and authorization of the wrong shape, anywhere inside, name the file, line and field path", () => {
    expect(bad("kind: KubeletConfiguration\nauthentication: []\n")).toBe("/etc/k.yaml:2:1: authentication: expected a mapping, got a list");
    expect(bad("authentication:\n  x509: 5\n")).toBe("/etc/k.yaml:2:3: authentication.x509: expected a mapping, got 5");
    expect(bad("authentication:\n  x509:\n    clientCAFile: [a]\n")).toBe("/etc/k.yaml:3:5: authentication.x509.clientCAFile: expected a string, got a list");
    expect(bad("authentication:\n  webhook:\n    enabled: 'yes please'\n")).toBe(`/etc/k.yaml:3:5: authentication.webhook.enabled: expected true or false, got the string "yes please"`);
    expect(bad("authentication:\n  anonymous: true\n")).toBe("/etc/k.yaml:2:3: authentication.anonymous: expected a mapping, got true");
    expect(bad("authorization:\n  mode: 3\n")).toBe("/etc/k.yaml:2:3: authorization.mode: expected a string, got 3");
    expect(bad("authorization:\n  webhook:\n    cacheAuthorizedTTL: 5\n")).toBe(`/etc/k.yaml:3:5: authorization.webhook.cacheAuthorizedTTL: expected a duration such as "20s", got 5`);
    expect(bad("authorization: Webhook\n")).toBe(`/etc/k.yaml:1:1: authorization: expected a mapping, got the string "Webhook"`);
  });

  test("maps and lists: evictionHard, kubeReserved, registerWithTaints, staticPodURLHeader; an empty value of the wrong type too", () => {
    expect(bad("evictionHard: []\n")).toBe("/etc/k.yaml:1:1: evictionHard: expected a mapping of names to quantities, got a list");
    expect(bad("evictionHard:\n  memory.available: [1]\n")).toBe(`/etc/k.yaml:2:3: evictionHard.memory.available: expected a quantity (a string such as "100Mi" or "10%"), got a list`);
    expect(bad("kubeReserved: 1Gi\n")).toContain("/etc/k.yaml:1:1: kubeReserved: expected a mapping of names to quantities");
    expect(bad("registerWithTaints:\n- key: a\n  effect: {x: 1}\n")).toBe("/etc/k.yaml:3:3: registerWithTaints[0].effect: expected a string, got a mapping");
    expect(bad("staticPodURLHeader:\n  X-A: b\n")).toBe(`/etc/k.yaml:2:3: staticPodURLHeader.X-A: expected a list of strings, got the string "b"`);
    expect(bad(`maxPods: ""\n`)).toBe(`/etc/k.yaml:1:1: maxPods: expected a whole number, got the string ""`);
    expect(bad("syncFrequency: 0\n")).toBe(`/etc/k.yaml:1:1: syncFrequency: expected a duration such as "20s", got 0`);
  });

  test("every mistake at once, a type mistake beside a value mistake", () => {
    expect(bad("authentication: []\nmaxPods: abc\nclusterDNS: [coredns]\n")).toBe(
      `3 problems:\n  /etc/k.yaml:1:1: authentication: expected a mapping, got a list\n  /etc/k.yaml:2:1: maxPods: expected a whole number, got the string "abc"\n  /etc/k.yaml:3:1: clusterDNS: not an IP address`,
    );
  });

  test("a field a flag overrides is checked all the same, then the flag wins", () => {
    expect(bad("maxPods: abc\n", { "max-pods": "30" })).toContain(`/etc/k.yaml:1:1: maxPods: expected a whole number, got the string "abc"`);
    expect(bad("maxPods: 2000000\n", { "max-pods": "30" })).toContain("/etc/k.yaml:1:1: maxPods: expected a whole number from 0 to 1000000, got 2000000");
    expect(bad("syncFrequency: soon\n", { "sync-frequency": "1m" })).toContain(`/etc/k.yaml:1:1: syncFrequency: invalid duration "soon"`);
    expect(bad("authentication:\n  anonymous:\n    enabled: 3\n", { "anonymous-auth": "true" })).toContain("authentication.anonymous.enabled: expected true or false, got 3");
    expect(bad("authentication:\n  webhook:\n    cacheTTL: soon\n", { "authentication-token-webhook-cache-ttl": "1m" })).toContain(`authentication.webhook.cacheTTL: invalid duration "soon"`);
    expect(bad("authorization:\n  mode: Sometimes\n", { "authorization-mode": "AlwaysAllow" })).toContain("authorization.mode: use Webhook or AlwaysAllow");
    expect(bad("authentication:\n  x509:\n    clientCAFile: /no/such/ca.crt\n", { "client-ca-file": clientCA })).toContain("authentication.x509.clientCAFile: no such file or directory");
    expect(resolve({ "max-pods": "30" }, "maxPods: 60\n").node.maxPods).toBe(30);
  });

  test("an unknown field inside a block is warned about with the other unknown names", () => {
    const c = resolve({}, "authentication:\n  x509:\n    clientCAFile: ''\n    extra: 1\n", "/etc/k.yaml");
    expect(c.warnings).toEqual(["/etc/k.yaml: ignoring fields that KubeletConfiguration kubelet.config.k8s.io/v1beta1 does not have: authentication.x509.extra"]);
  });

  test("a YAML alias bomb is a configuration error (exit 2), not a crash", () => {
    const lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"];
    for (let i = 1; i < 10; i++) lines.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(10).fill(`*${String.fromCharCode(96 + i)}`).join(", ")}]`);
    const started = performance.now();
    expect(bad(`${lines.join("\n")}\nclusterDNS: *j\n`)).toBe("/etc/k.yaml: not a usable KubeletConfiguration: Excessive alias count indicates a resource exhaustion attack");
    expect(performance.now() - started).toBeLessThan(1000);
  });

  test("every field the agent reads has its type", async () => {
    const { CONFIG_FILE_FIELDS } = await import("../../src/agent/agent-config");
    const { KUBELET_CONFIG_TYPES } = await import("../../src/agent/agent-config");
    expect(Object.keys(KUBELET_CONFIG_TYPES).sort()).toEqual(Object.keys(CONFIG_FILE_FIELDS).sort());
  });
});

describe("/configz", () => {
  test("the configuration in KubeletConfiguration's names and Go durations; header values and the token never shown", () => {
    const tokenFile = join(dir, "configz-token");
    writeFileSync(tokenFile, "s3cret-token\n", { mode: 0o600 });
    const c = resolve({ "pod-manifest-path": manifests, "manifest-url": "http://127.0.0.1:1/pods.yaml", "manifest-url-header": "Authorization:Bearer hidden", "sync-frequency": "90s", "push-token-file": tokenFile, "cluster-dns": "10.96.0.10" });
    const z = kubeletConfigz(c);
    expect(z.kubeletconfig).toMatchObject({
      kind: "KubeletConfiguration",
      apiVersion: "kubelet.config.k8s.io/v1beta1",
      staticPodPath: manifests,
      staticPodURL: "http://127.0.0.1:1/pods.yaml",
      staticPodURLHeader: { Authorization: ["<redacted>"] },
      syncFrequency: "1m30s",
      fileCheckFrequency: "20s",
      port: 10250,
      maxPods: 110,
      clusterDNS: ["10.96.0.10"],
      authentication: { anonymous: { enabled: false }, webhook: { cacheTTL: "2m0s" } },
      authorization: { webhook: { cacheAuthorizedTTL: "5m0s", cacheUnauthorizedTTL: "30s" } },
    });
    const text = JSON.stringify(z);
    expect(text).not.toContain("hidden");
    expect(text).not.toContain("s3cret-token");
  });
});

describe("--allowed-unsafe-sysctls / allowedUnsafeSysctls", () => {
  test("names and prefixes from the flag or the file, the flag winning; none by default; shown by /configz", () => {
    expect(resolve({}).allowedUnsafeSysctls).toEqual([]);
    expect(resolve({ "allowed-unsafe-sysctls": "kernel.msg*, net.core.somaxconn" }).allowedUnsafeSysctls).toEqual(["kernel.msg*", "net.core.somaxconn"]);
    const text = "kind: KubeletConfiguration\nallowedUnsafeSysctls:\n- net.*\n";
    expect(resolve({}, text).allowedUnsafeSysctls).toEqual(["net.*"]);
    expect(resolve({ "allowed-unsafe-sysctls": "kernel.sem" }, text).allowedUnsafeSysctls).toEqual(["kernel.sem"]);
    expect(kubeletConfigz(resolve({}, text)).kubeletconfig.allowedUnsafeSysctls).toEqual(["net.*"]);
  });

  test("a pattern the kubelet would refuse names the flag or the field", () => {
    expect(errorOf(() => resolve({ "allowed-unsafe-sysctls": "kernel.panic" })).message).toBe(`--allowed-unsafe-sysctls "kernel.panic": the sysctl "kernel.panic" are not known to be namespaced`);
    expect(errorOf(() => resolve({}, "allowedUnsafeSysctls:\n- vm.*\n", "/etc/k.yaml")).message).toBe(`/etc/k.yaml:1:1: allowedUnsafeSysctls: the sysctls "vm.*" are not known to be namespaced`);
  });
});

describe("garbage collection and log rotation settings", () => {
  test("the kubelet's defaults; kubeadm's imageMinimumGCAge: 0s is its zero value, so the default", () => {
    for (const c of [resolve({}), resolve({}, kubeadm("kubeadm-config.yaml"))]) {
      expect(c.gc).toEqual({
        image: { highThresholdPercent: 85, lowThresholdPercent: 80, minAgeMs: 120_000 },
        imagePeriodMs: 300_000,
        container: { minAgeMs: 0, maxPerPodContainer: 1, maxContainers: -1 },
        containerPeriodMs: 60_000,
        containerLogs: { maxSizeBytes: 10 * 2 ** 20, maxFiles: 5 },
      });
    }
    expect(kubeletConfigz(resolve({})).kubeletconfig).toMatchObject({
      imageGCHighThresholdPercent: 85, imageGCLowThresholdPercent: 80, imageMinimumGCAge: "2m0s", containerLogMaxSize: "10Mi", containerLogMaxFiles: 5,
    });
  });

  test("flags, and the KubeletConfiguration fields (a flag wins over the file)", () => {
    const flags = resolve({
      "image-gc-high-threshold": "1", "image-gc-low-threshold": "0", "minimum-image-ttl-duration": "0s", "image-gc-period": "2s",
      "minimum-container-ttl-duration": "30s", "maximum-dead-containers-per-container": "2", "maximum-dead-containers": "100", "container-gc-period": "5s",
      "container-log-max-size": "10Ki", "container-log-max-files": "3",
    }).gc;
    expect(flags).toEqual({
      image: { highThresholdPercent: 1, lowThresholdPercent: 0, minAgeMs: 0 },
      imagePeriodMs: 2000,
      container: { minAgeMs: 30_000, maxPerPodContainer: 2, maxContainers: 100 },
      containerPeriodMs: 5000,
      containerLogs: { maxSizeBytes: 10 * 1024, maxFiles: 3 },
    });
    const file = "kind: KubeletConfiguration\nimageGCHighThresholdPercent: 90\nimageGCLowThresholdPercent: 70\nimageMinimumGCAge: 5m\ncontainerLogMaxSize: 50Mi\ncontainerLogMaxFiles: 2\n";
    expect(resolve({}, file).gc).toMatchObject({ image: { highThresholdPercent: 90, lowThresholdPercent: 70, minAgeMs: 300_000 }, containerLogs: { maxSizeBytes: 50 * 2 ** 20, maxFiles: 2 } });
    expect(resolve({ "container-log-max-files": "7" }, file).gc.containerLogs.maxFiles).toBe(7);
  });

  test("mistakes name the flag or the field", () => {
    const msg = (given: Record<string, string>, text?: string) => errorOf(() => resolve(given, text)).message;
    expect(msg({ "image-gc-high-threshold": "101" })).toBe('--image-gc-high-threshold "101": expected a whole number from 0 to 100');
    expect(msg({ "image-gc-low-threshold": "85" })).toBe("--image-gc-low-threshold (imageGCLowThresholdPercent) 85 must be less than --image-gc-high-threshold (imageGCHighThresholdPercent) 85");
    expect(msg({ "container-log-max-files": "1" })).toBe("--container-log-max-files (containerLogMaxFiles) 1 must be greater than 1: the live log and at least one rotated file");
    expect(msg({ "container-log-max-size": "ten" })).toStartWith('--container-log-max-size "ten": ');
    expect(msg({ "container-log-max-size": "0" })).toBe('--container-log-max-size "0": must be greater than 0');
    expect(msg({ "maximum-dead-containers": "-2" })).toBe('--maximum-dead-containers "-2": expected a whole number of at least -1');
    expect(msg({ "minimum-image-ttl-duration": "-1s" })).toStartWith('--minimum-image-ttl-duration "-1s": ');
    expect(msg({}, "kind: KubeletConfiguration\ncontainerLogMaxFiles: many\n")).toStartWith("/var/lib/kubelet/config.yaml:2:1: containerLogMaxFiles: expected a whole number");
  });
});

describe("graceful node shutdown settings", () => {
  const msg = (given: Record<string, string | boolean>, text?: string) => errorOf(() => resolve(given, text)).message;

  test("off by default; --shutdown-grace-period 10s with 4s for critical pods is the kubelet's two groups; SIGTERM leaves pods unless --shutdown-pods", () => {
    expect(resolve({}).shutdown).toEqual({ periods: [], gracePeriodMs: 0, criticalPodsMs: 0, byPodPriority: false, shutdownPods: false });
    const c = resolve({ "shutdown-grace-period": "10s", "shutdown-grace-period-critical-pods": "4s", "shutdown-pods": true });
    expect(c.shutdown).toEqual({
      periods: [
        { priority: 0, shutdownGracePeriodSeconds: 6 },
        { priority: 2_000_000_000, shutdownGracePeriodSeconds: 4 },
      ],
      gracePeriodMs: 10_000,
      criticalPodsMs: 4_000,
      byPodPriority: false,
      shutdownPods: true,
    });
    expect(kubeletConfigz(c).kubeletconfig).toMatchObject({ shutdownGracePeriod: "10s", shutdownGracePeriodCriticalPods: "4s" });
    expect(kubeletConfigz(c).kubeletconfig.shutdownGracePeriodByPodPriority).toBeUndefined();
  });

  test("the KubeletConfiguration fields: the pair (a flag wins), or shutdownGracePeriodByPodPriority", () => {
    const pair = "kind: KubeletConfiguration\nshutdownGracePeriod: 30s\nshutdownGracePeriodCriticalPods: 10s\n";
    expect(resolve({}, pair).shutdown.periods).toEqual([
      { priority: 0, shutdownGracePeriodSeconds: 20 },
      { priority: 2_000_000_000, shutdownGracePeriodSeconds: 10 },
    ]);
    expect(resolve({ "shutdown-grace-period": "60s" }, pair).shutdown.periods[0]).toEqual({ priority: 0, shutdownGracePeriodSeconds: 50 });
    const byPriority = "kind: KubeletConfiguration\nshutdownGracePeriodByPodPriority:\n- priority: 100000\n  shutdownGracePeriodSeconds: 20\n- priority: 0\n  shutdownGracePeriodSeconds: 5\n";
    const listed = resolve({}, byPriority);
    expect(listed.shutdown.periods).toEqual([
      { priority: 100_000, shutdownGracePeriodSeconds: 20 },
      { priority: 0, shutdownGracePeriodSeconds: 5 },
    ]);
    expect(kubeletConfigz(listed).kubeletconfig).toMatchObject({ shutdownGracePeriod: "0s", shutdownGracePeriodByPodPriority: listed.shutdown.periods });
    // kubeadm writes the pair at its zero value: off.
    expect(resolve({}, "kind: KubeletConfiguration\nshutdownGracePeriod: 0s\nshutdownGracePeriodCriticalPods: 0s\n").shutdown.periods).toEqual([]);
  });

  test("mistakes, as the kubelet's validation finds them, naming the flag or the field", () => {
    expect(msg({ "shutdown-grace-period": "10s", "shutdown-grace-period-critical-pods": "20s" })).toBe(
      "--shutdown-grace-period-critical-pods (shutdownGracePeriodCriticalPods) 20s must be <= --shutdown-grace-period (shutdownGracePeriod) 10s",
    );
    expect(msg({ "shutdown-grace-period": "500ms" })).toBe('--shutdown-grace-period "500ms": must be either zero or otherwise >= 1 sec');
    expect(msg({ "shutdown-grace-period": "soon" })).toStartWith('--shutdown-grace-period "soon": ');
    expect(msg({ "shutdown-pods": true })).toBe("--shutdown-pods stops the pods within the graceful shutdown's budget: give --shutdown-grace-period (or shutdownGracePeriodByPodPriority in --config)");
    expect(msg({ "shutdown-grace-period": "10s" }, "kind: KubeletConfiguration\nshutdownGracePeriodByPodPriority:\n- priority: 0\n  shutdownGracePeriodSeconds: 5\n")).toBe(
      "/var/lib/kubelet/config.yaml:2:1: shutdownGracePeriodByPodPriority: cannot be given with shutdownGracePeriod (--shutdown-grace-period) or shutdownGracePeriodCriticalPods at the same time",
    );
    expect(msg({}, "kind: KubeletConfiguration\nshutdownGracePeriodByPodPriority:\n- priority: high\n")).toBe(
      '/var/lib/kubelet/config.yaml:3:3: shutdownGracePeriodByPodPriority[0].priority: expected a whole number, got the string "high"',
    );
    expect(msg({}, "kind: KubeletConfiguration\nshutdownGracePeriod: 1\n")).toBe('/var/lib/kubelet/config.yaml:2:1: shutdownGracePeriod: expected a duration such as "20s", got 1');
  });
});
