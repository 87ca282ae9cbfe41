// The managed /etc/hosts content and the pod's hostname and domain, as the 1.36 kubelet makes them
// (kubelet_pods.go managedHostsFileContent, nodeHostsFileContent, GeneratePodHostNameAndDomain;
// util.go GetNodenameForKernel): pure functions, no disk but a temporary node hosts file.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod } from "kubernetes-types/core/v1";
import { hostAliasesEntries, hostsFileContent, managedHostsFileContent, mountsEtcHosts, nodeHostsFileContent } from "../../src/agent/etc-hosts";
import { nodenameForKernel, PodHostnameError, podHostnameAndDomain } from "../../src/agent/pod-hostname";
import { sandboxConfig, type RuntimeConfigOptions } from "../../src/agent/runtime-config";

const base = mkdtempSync(join(tmpdir(), "nodeagent-etc-hosts-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

const LOCAL =
  "# Kubernetes-managed hosts file.\n" +
  "127.0.0.1\tlocalhost\n" +
  "::1\tlocalhost ip6-localhost ip6-loopback\n" +
  "fe00::0\tip6-localnet\n" +
  "fe00::0\tip6-mcastprefix\n" +
  "fe00::1\tip6-allnodes\n" +
  "fe00::2\tip6-allrouters\n";

const pod = (spec: Partial<NonNullable<Pod["spec"]>> = {}, name = "web-node1"): Pod => ({
  metadata: { name, namespace: "prod", uid: "u-1" },
  spec: { containers: [{ name: "app", image: "busybox" }], ...spec },
});

describe("managed hosts file content", () => {
  test("pod IP and hostname, no subdomain, no aliases", () => {
    expect(managedHostsFileContent(["10.88.0.7"], "web", "", undefined)).toBe(`${LOCAL}10.88.0.7\tweb\n`);
  });

  test("dual-stack: one line per IP in the sandbox's order, each with the FQDN first when there is a domain", () => {
    expect(managedHostsFileContent(["10.88.0.7", "fd00::7"], "web", "db.prod.svc.cluster.local", [])).toBe(
      `${LOCAL}10.88.0.7\tweb.db.prod.svc.cluster.local\tweb\nfd00::7\tweb.db.prod.svc.cluster.local\tweb\n`,
    );
  });

  test("hostAliases: a blank line, the comment, each IP with its names tab-separated, in order", () => {
    const aliases = [
      { ip: "123.45.67.89", hostnames: ["foo", "bar"] },
      { ip: "fd00::1", hostnames: ["v6"] },
    ];
    expect(hostAliasesEntries(aliases)).toBe("\n# Entries added by HostAliases.\n123.45.67.89\tfoo\tbar\nfd00::1\tv6\n");
    expect(managedHostsFileContent(["10.88.0.7"], "web", "", aliases)).toBe(`${LOCAL}10.88.0.7\tweb\n${hostAliasesEntries(aliases)}`);
    expect(hostAliasesEntries([])).toBe("");
  });

  test("host network: the node's file as it is under its own header, then the aliases", () => {
    const node = "127.0.0.1 localhost\n192.0.2.10 node1\n";
    expect(nodeHostsFileContent(node, undefined)).toBe(`# Kubernetes-managed hosts file (host network).\n${node}`);
    expect(nodeHostsFileContent(node, [{ ip: "123.45.67.89", hostnames: ["foo", "bar"] }])).toBe(
      `# Kubernetes-managed hosts file (host network).\n${node}\n# Entries added by HostAliases.\n123.45.67.89\tfoo\tbar\n`,
    );
  });

  test("hostsFileContent reads the node's file only for a host-network pod", () => {
    const nodeHosts = join(base, "node-hosts");
    writeFileSync(nodeHosts, "192.0.2.10 node1\n");
    const aliases = [{ ip: "10.0.0.1", hostnames: ["db"] }];
    expect(hostsFileContent({ pod: pod({ hostNetwork: true, hostAliases: aliases }), podIPs: [], hostname: "x", domain: "", nodeHostsPath: nodeHosts })).toBe(
      "# Kubernetes-managed hosts file (host network).\n192.0.2.10 node1\n\n# Entries added by HostAliases.\n10.0.0.1\tdb\n",
    );
    expect(hostsFileContent({ pod: pod({ hostAliases: aliases }), podIPs: ["10.88.0.7"], hostname: "web", domain: "", nodeHostsPath: nodeHosts })).toStartWith(
      LOCAL,
    );
  });
});

describe("which containers get the file", () => {
  const c = { name: "app", image: "busybox" };
  test("a pod on the pod network only once its sandbox has an IP; a host-network pod always", () => {
    expect(mountsEtcHosts(pod(), c, [])).toBe(false);
    expect(mountsEtcHosts(pod(), c, ["10.88.0.7"])).toBe(true);
    expect(mountsEtcHosts(pod({ hostNetwork: true }), c, [])).toBe(true);
  });

  test("not a container that mounts something of its own at /etc/hosts", () => {
    const own = { ...c, volumeMounts: [{ name: "h", mountPath: "/etc/hosts" }] };
    expect(mountsEtcHosts(pod(), own, ["10.88.0.7"])).toBe(false);
    expect(mountsEtcHosts(pod({ hostNetwork: true }), own, [])).toBe(false);
    expect(mountsEtcHosts(pod(), { ...c, volumeMounts: [{ name: "h", mountPath: "/etc/hosts-original" }] }, ["10.88.0.7"])).toBe(true);
  });
});

describe("hostname and domain", () => {
  test("the pod's name, or spec.hostname; the domain from the subdomain, namespace and cluster domain", () => {
    expect(podHostnameAndDomain(pod(), "cluster.local")).toEqual({ hostname: "web-node1", domain: "" });
    expect(podHostnameAndDomain(pod({ hostname: "web", subdomain: "db" }), "cluster.local")).toEqual({ hostname: "web", domain: "db.prod.svc.cluster.local" });
    expect(podHostnameAndDomain(pod({ subdomain: "db" }), "example.org")).toEqual({ hostname: "web-node1", domain: "db.prod.svc.example.org" });
  });

  test("a name over 63 characters is cut, without a trailing '-' or '.'", () => {
    const long = `${"a".repeat(62)}-bcd`;
    expect(podHostnameAndDomain(pod({}, long), "cluster.local").hostname).toBe("a".repeat(62));
  });

  test("hostnameOverride wins over hostname and subdomain, with no domain", () => {
    const p = pod({ hostname: "web", subdomain: "db" });
    (p.spec as { hostnameOverride?: string }).hostnameOverride = "override.example.host";
    expect(podHostnameAndDomain(p, "cluster.local")).toEqual({ hostname: "override.example.host", domain: "" });
  });

  test("an invalid hostname, subdomain or override is the kubelet's error", () => {
    expect(() => podHostnameAndDomain(pod({ hostname: "Web_1" }), "cluster.local")).toThrow(/^pod Hostname "Web_1" is not a valid DNS label: /);
    expect(() => podHostnameAndDomain(pod({ subdomain: "a.b" }), "cluster.local")).toThrow(/^pod Subdomain "a.b" is not a valid DNS label: /);
    const p = pod();
    (p.spec as { hostnameOverride?: string }).hostnameOverride = "Bad_Name";
    expect(() => podHostnameAndDomain(p, "cluster.local")).toThrow(PodHostnameError);
  });

  test("setHostnameAsFQDN: the FQDN with a domain, the short name without; over 64 characters is an error", () => {
    expect(nodenameForKernel({ hostname: "web", domain: "db.prod.svc.cluster.local" }, true)).toBe("web.db.prod.svc.cluster.local");
    expect(nodenameForKernel({ hostname: "web", domain: "db.prod.svc.cluster.local" }, false)).toBe("web");
    expect(nodenameForKernel({ hostname: "web", domain: "" }, true)).toBe("web");
    const long = { hostname: "a".repeat(40), domain: "db.prod.svc.cluster.local" };
    expect(() => nodenameForKernel(long, true)).toThrow(
      `failed to construct FQDN from pod hostname and cluster domain, FQDN ${"a".repeat(40)}.db.prod.svc.cluster.local is too long (64 characters is the max, 66 characters requested)`,
    );
  });

  test("the sandbox's hostname: the FQDN with setHostnameAsFQDN, none on the host network", () => {
    const o: RuntimeConfigOptions = {
      podLogsRoot: "/var/log/pods",
      podsDir: "/var/lib/nodeagent/pods",
      cgroupRoot: "/nodeagent",
      nodeName: "node1",
      hostIP: "192.0.2.10",
      clusterDns: { servers: [], domain: "cluster.local", resolvConf: "/etc/resolv.conf" },
    };
    expect(sandboxConfig(pod({ hostname: "web", subdomain: "db" }), 0, o).hostname).toBe("web");
    expect(sandboxConfig(pod({ hostname: "web", subdomain: "db", setHostnameAsFQDN: true }), 0, o).hostname).toBe("web.db.prod.svc.cluster.local");
    expect(sandboxConfig(pod({ hostNetwork: true, subdomain: "db", setHostnameAsFQDN: true }), 0, o).hostname).toBe("");
    expect(() => sandboxConfig(pod({ hostname: "a".repeat(40), subdomain: "db", setHostnameAsFQDN: true }), 0, o)).toThrow(PodHostnameError);
  });
});
