// resolveAgentConfig and the --config file: types, values and names with their line, every field
// type-checked whether or not a flag overrides it, and the folders the agent deletes in (issue 24).
import { afterAll, describe, expect, test } from "bun:test";
import { agentConfigFixture, errorOf } from "./agent-config-fixture";

const { dir, manifests, host, clientCA, resolve, cleanup } = agentConfigFixture();
afterAll(cleanup);

describe("the file: types, values and names, with their line", () => {
  const bad = (text: string) => errorOf(() => resolve({}, text, "/etc/k.yaml")).message;

  test("a wrong type names the field and its line", () => {
    expect(bad("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nmaxPods: abc\n")).toBe(
      `/etc/k.yaml:3:1: maxPods: expected a whole number, got the string "abc"`,
    );
    expect(bad("clusterDNS: 10.96.0.10\n")).toBe(`/etc/k.yaml:1:1: clusterDNS: expected a list of strings, got the string "10.96.0.10"`);
    expect(bad("kind: KubeletConfiguration\nsyncFrequency: 60\n")).toBe(`/etc/k.yaml:2:1: syncFrequency: expected a duration such as "20s", got 60`);
    expect(bad("staticPodPath:\n  dir: /x\n")).toBe(`/etc/k.yaml:1:1: staticPodPath: expected a string, got a mapping`);
    expect(bad("registerWithTaints:\n- key: a\n  effect: Sometimes\n")).toContain(
      `/etc/k.yaml:1:1: registerWithTaints: invalid taint "a:Sometimes": effect "Sometimes" must be one of`,
    );
  });

  test("a wrong value names the field and its line", () => {
    expect(bad("\n\nclusterDNS:\n- 10.96.0.10\n- coredns\n")).toBe(`/etc/k.yaml:3:1: clusterDNS: not an IP address`);
    expect(bad("staticPodPath: /no/such/manifests\n")).toBe(`/etc/k.yaml:1:1: staticPodPath: no such file or directory`);
    expect(bad("kubeReserved:\n  cpu: lots\n")).toContain("cpu=lots");
  });

  test("a name one edit away from a field we use is an error with the field meant; other unknown names are warned about", () => {
    expect(bad("kind: KubeletConfiguration\nstaticPodPaht: /etc/kubernetes/manifests\n")).toBe(
      `/etc/k.yaml:2:1: unknown field "staticPodPaht"; did you mean staticPodPath?`,
    );
    const c = resolve({}, "cpuManagerPolicy: static\nsomethingNew: 3\n", "/etc/k.yaml");
    expect(c.warnings).toEqual([
      "/etc/k.yaml: ignoring the fields nodeagent does not implement: cpuManagerPolicy; ignoring fields that KubeletConfiguration kubelet.config.k8s.io/v1beta1 does not have: somethingNew",
    ]);
  });

  test("kind, apiVersion, YAML and shape", () => {
    expect(bad("apiVersion: v1\nkind: Pod\n")).toBe(
      `/etc/k.yaml:1:1: apiVersion is "v1"; a kubelet configuration file has apiVersion: kubelet.config.k8s.io/v1beta1`,
    );
    expect(bad("kind: KubeProxyConfiguration\n")).toBe(
      `/etc/k.yaml:1:1: kind is "KubeProxyConfiguration"; a kubelet configuration file has kind: KubeletConfiguration`,
    );
    expect(bad("maxPods: 3\nmaxPods: 4\n")).toMatch(/^\/etc\/k\.yaml:2:1: not valid YAML: Map keys must be unique/);
    expect(bad("- a\n")).toContain("expected a mapping of fields");
  });
});

describe("the folders the agent deletes in, and the cgroup root (issue 24)", () => {
  const msg = (given: Record<string, string>, text?: string) => errorOf(() => resolve(given, text, "/etc/k.yaml")).message;

  test("--pod-logs-dir, --root-dir, --cert-dir: empty, relative, / and the host's system folders are errors naming the flag", () => {
    expect(msg({ "pod-logs-dir": "" })).toBe(`--pod-logs-dir "": must not be empty: give an absolute path such as /var/log/pods`);
    expect(msg({ "pod-logs-dir": "logs" })).toBe(
      `--pod-logs-dir "logs": must be an absolute path such as /var/log/pods (not relative to the working directory)`,
    );
    expect(msg({ "pod-logs-dir": "/etc" })).toBe(
      `--pod-logs-dir "/etc": is /etc, a system folder of the host: the agent removes what it does not recognise in its folders; use a folder of its own such as /var/log/pods`,
    );
    expect(msg({ "pod-logs-dir": "/var/log/pods/.." })).toContain(`--pod-logs-dir "/var/log/pods/..": is (once normalised) /var/log, a system folder`);
    expect(msg({ "pod-logs-dir": "//usr/" })).toContain("is (once normalised) /usr,");
    expect(msg({ "root-dir": "/" })).toBe(
      `--root-dir "/": is /, the root of the host: the agent removes what it does not recognise in its folders; use a folder of its own such as /var/lib/nodeagent`,
    );
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
    expect(msg({}, `kind: KubeletConfiguration\npodLogsDir: ""\n`)).toBe(
      `/etc/k.yaml:2:1: podLogsDir: must not be empty: give an absolute path such as /var/log/pods`,
    );
    expect(msg({}, "podLogsDir: logs\n")).toContain("/etc/k.yaml:1:1: podLogsDir: must be an absolute path");
    expect(msg({}, "podLogsDir: /etc/\n")).toContain("/etc/k.yaml:1:1: podLogsDir: is (once normalised) /etc, a system folder");
    expect(resolve({}, "kind: KubeletConfiguration\n").pods.logsDir).toBe("/var/log/pods");
    expect(resolve({}, "podLogsDir: /srv/pod-logs\n").pods.logsDir).toBe("/srv/pod-logs");
    // Checked even when the flag overrides it; then the flag wins.
    expect(msg({ "pod-logs-dir": "/srv/logs" }, "podLogsDir: /etc\n")).toContain("/etc/k.yaml:1:1: podLogsDir: is /etc");
    expect(resolve({ "pod-logs-dir": "/srv/logs" }, "podLogsDir: /srv/pod-logs\n").pods.logsDir).toBe("/srv/logs");
  });

  test("--cgroup-root (and cgroupRoot, the reserved cgroups) a clean absolute cgroup path", () => {
    expect(msg({ "cgroup-root": "/../../etc" })).toBe(
      `--cgroup-root "/../../etc": must not have a ".." segment: a cgroup path names a cgroup below the root, e.g. /nodeagent`,
    );
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
    expect(bad("authentication:\n  webhook:\n    enabled: 'yes please'\n")).toBe(
      `/etc/k.yaml:3:5: authentication.webhook.enabled: expected true or false, got the string "yes please"`,
    );
    expect(bad("authentication:\n  anonymous: true\n")).toBe("/etc/k.yaml:2:3: authentication.anonymous: expected a mapping, got true");
    expect(bad("authorization:\n  mode: 3\n")).toBe("/etc/k.yaml:2:3: authorization.mode: expected a string, got 3");
    expect(bad("authorization:\n  webhook:\n    cacheAuthorizedTTL: 5\n")).toBe(
      `/etc/k.yaml:3:5: authorization.webhook.cacheAuthorizedTTL: expected a duration such as "20s", got 5`,
    );
    expect(bad("authorization: Webhook\n")).toBe(`/etc/k.yaml:1:1: authorization: expected a mapping, got the string "Webhook"`);
  });

  test("maps and lists: evictionHard, kubeReserved, registerWithTaints, staticPodURLHeader; an empty value of the wrong type too", () => {
    expect(bad("evictionHard: []\n")).toBe("/etc/k.yaml:1:1: evictionHard: expected a mapping of names to quantities, got a list");
    expect(bad("evictionHard:\n  memory.available: [1]\n")).toBe(
      `/etc/k.yaml:2:3: evictionHard.memory.available: expected a quantity (a string such as "100Mi" or "10%"), got a list`,
    );
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
    expect(bad("authentication:\n  anonymous:\n    enabled: 3\n", { "anonymous-auth": "true" })).toContain(
      "authentication.anonymous.enabled: expected true or false, got 3",
    );
    expect(bad("authentication:\n  webhook:\n    cacheTTL: soon\n", { "authentication-token-webhook-cache-ttl": "1m" })).toContain(
      `authentication.webhook.cacheTTL: invalid duration "soon"`,
    );
    expect(bad("authorization:\n  mode: Sometimes\n", { "authorization-mode": "AlwaysAllow" })).toContain("authorization.mode: use Webhook or AlwaysAllow");
    expect(bad("authentication:\n  x509:\n    clientCAFile: /no/such/ca.crt\n", { "client-ca-file": clientCA })).toContain(
      "authentication.x509.clientCAFile: no such file or directory",
    );
    expect(resolve({ "max-pods": "30" }, "maxPods: 60\n").node.maxPods).toBe(30);
  });

  test("an unknown field inside a block is warned about with the other unknown names", () => {
    const c = resolve({}, "authentication:\n  x509:\n    clientCAFile: ''\n    extra: 1\n", "/etc/k.yaml");
    expect(c.warnings).toEqual([
      "/etc/k.yaml: ignoring fields that KubeletConfiguration kubelet.config.k8s.io/v1beta1 does not have: authentication.x509.extra",
    ]);
  });

  test("a YAML alias bomb is a configuration error (exit 2), not a crash", () => {
    const lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"];
    for (let i = 1; i < 10; i++)
      lines.push(
        `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(10)
          .fill(`*${String.fromCharCode(96 + i)}`)
          .join(", ")}]`,
      );
    const started = performance.now();
    expect(bad(`${lines.join("\n")}\nclusterDNS: *j\n`)).toBe(
      "/etc/k.yaml: not a usable KubeletConfiguration: Excessive alias count indicates a resource exhaustion attack",
    );
    expect(performance.now() - started).toBeLessThan(1000);
  });

  test("every field the agent reads has its type", async () => {
    const { CONFIG_FILE_FIELDS } = await import("../../src/agent/agent-config");
    const { KUBELET_CONFIG_TYPES } = await import("../../src/agent/agent-config");
    expect(Object.keys(KUBELET_CONFIG_TYPES).sort()).toEqual(Object.keys(CONFIG_FILE_FIELDS).sort());
  });
});
