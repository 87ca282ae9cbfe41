// resolveAgentConfig: flags and a KubeletConfiguration file (kubeadm's, as written on a real node)
// into one validated AgentConfig, every mistake reported before anything starts. (The file's types
// and names: agent-config-file.test.ts; each subsystem's settings: agent-config-subsystems.test.ts.)
import { afterAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { kubeletConfigz } from "../../src/agent/configz";
import { resolveAgentConfig } from "../../src/agent/agent-config";
import { agentConfigFixture, errorOf } from "./agent-config-fixture";

const { dir, manifests, host, clientCA, kubeadm, resolve, cleanup } = agentConfigFixture();
afterAll(cleanup);

describe("resolveAgentConfig with kubeadm's /var/lib/kubelet/config.yaml", () => {
  test('the fields we implement are used; a zero value (0s, "") takes the default, as v1beta1 defaulting does', () => {
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
      address: "127.0.0.1",
      port: 10250,
      insecureHttp: false,
      anonymousReadOnly: false,
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
    expect(errorOf(() => resolve({ "push-token-file": join(dir, "nope") })).message).toBe(
      `--push-token-file "${join(dir, "nope")}": no such file or directory`,
    );
  });

  test("--push-policy is checked; HTTPS may listen anywhere, --insecure-http only on loopback", () => {
    expect(resolve({ "push-policy": "restricted" }).pushPolicy).toBe("restricted");
    expect(resolve({}).pushPolicy).toBe("unrestricted");
    expect(errorOf(() => resolve({ "push-policy": "strict" })).message).toContain("use unrestricted, restricted");
    // Every request is authenticated over TLS, so a token is no longer what makes 0.0.0.0 safe.
    expect(resolve({ address: "0.0.0.0" }).server.address).toBe("0.0.0.0");
    expect(resolve({ address: "0.0.0.0", "anonymous-read-only": true }).server.anonymousReadOnly).toBe(true);
    expect(errorOf(() => resolve({ address: "0.0.0.0", "insecure-http": true })).message).toContain(
      "--insecure-http serves the API without TLS, for this host only, and --address 0.0.0.0 is not a loopback address",
    );
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
    const overridden = resolve(
      { kubeconfig, "anonymous-auth": false, "authorization-mode": "Webhook", "authentication-token-webhook-cache-ttl": "30s" },
      file,
    ).server;
    expect(overridden.authentication.anonymous).toBe(false);
    expect(overridden.authentication.webhook.cacheTTLMs).toBe(30_000);
    expect(overridden.authorization.mode).toBe("Webhook");
    // Asking for a webhook on the command line without an API server is the kubelet's start-up error.
    expect(errorOf(() => resolve({ "authorization-mode": "Webhook" })).message).toContain(
      "--authorization-mode Webhook asks the API server (SubjectAccessReview): give --kubeconfig too",
    );
    expect(errorOf(() => resolve({ "authentication-token-webhook": true })).message).toContain("give --kubeconfig too");
    expect(resolve({ "authorization-mode": "AlwaysAllow" }).server.authorization.mode).toBe("AlwaysAllow");
    expect(errorOf(() => resolve({ "client-ca-file": join(dir, "nope.crt") })).message).toBe(
      `--client-ca-file "${join(dir, "nope.crt")}": no such file or directory`,
    );
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
    expect(
      resolve({ "bootstrap-kubeconfig": boot, kubeconfig: join(dir, "not-yet.kubeconfig"), "rotate-certificates": true }).cluster?.certificates
        ?.rotateCertificates,
    ).toBe(true);
    expect(resolve({ "cert-dir": "/etc/na/pki" }).certDir).toBe("/etc/na/pki");
    const f = resolve(
      { kubeconfig: boot },
      "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nrotateCertificates: true\nserverTLSBootstrap: true\n",
    );
    expect(f.cluster?.certificates).toEqual({ rotateCertificates: true, serverTLSBootstrap: true });
    expect(kubeletConfigz(f).kubeletconfig).toMatchObject({ rotateCertificates: true, serverTLSBootstrap: true });
    // Mistakes, each naming the flag.
    expect(errorOf(() => resolve({ kubeconfig: join(dir, "not-yet.kubeconfig") })).message).toBe(
      `--kubeconfig "${join(dir, "not-yet.kubeconfig")}": no such file or directory`,
    );
    expect(errorOf(() => resolve({ "bootstrap-kubeconfig": boot })).message).toContain("--bootstrap-kubeconfig needs --kubeconfig");
    expect(errorOf(() => resolve({ "bootstrap-kubeconfig": "/no/such", kubeconfig: "/x" })).message).toContain(
      `--bootstrap-kubeconfig "/no/such": no such file or directory`,
    );
    expect(errorOf(() => resolve({ "rotate-certificates": "true" })).message).toBe(
      "--rotate-certificates asks the API server for certificates: give --kubeconfig (or --bootstrap-kubeconfig) too",
    );
    expect(errorOf(() => resolve({ kubeconfig: boot, "rotate-server-certificates": "yes" })).message).toBe(
      `--rotate-server-certificates "yes": use true or false`,
    );
    expect(
      errorOf(() => resolve({ kubeconfig: boot, "rotate-server-certificates": "true", "tls-cert-file": clientCA, "tls-private-key-file": clientCA })).message,
    ).toContain("--rotate-server-certificates requests the serving certificate from the cluster: drop --tls-cert-file");
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
    expect(e.message).toBe(
      `2 problems:\n  --max-pods "abc": expected a whole number from 0 to 1000000\n  --port "abc": expected a whole number from 0 to 65535`,
    );
  });
});

describe("--node-labels as the kubelet checks them", () => {
  test("labels outside the kubernetes.io and k8s.io namespaces, and those a kubelet may set, are accepted", () => {
    const labels = "example.com/rack=r1,tier=edge,node.kubernetes.io/pool=a,kubelet.kubernetes.io/x=y,topology.kubernetes.io/zone=z1,kubernetes.io/arch=amd64";
    expect(resolve({ "node-labels": labels }).node.labels).toEqual({
      "example.com/rack": "r1",
      tier: "edge",
      "node.kubernetes.io/pool": "a",
      "kubelet.kubernetes.io/x": "y",
      "topology.kubernetes.io/zone": "z1",
      "kubernetes.io/arch": "amd64",
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

describe("/configz", () => {
  test("the configuration in KubeletConfiguration's names and Go durations; header values and the token never shown", () => {
    const tokenFile = join(dir, "configz-token");
    writeFileSync(tokenFile, "s3cret-token\n", { mode: 0o600 });
    const c = resolve({
      "pod-manifest-path": manifests,
      "manifest-url": "http://127.0.0.1:1/pods.yaml",
      "manifest-url-header": "Authorization:Bearer hidden",
      "sync-frequency": "90s",
      "push-token-file": tokenFile,
      "cluster-dns": "10.96.0.10",
    });
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
