import { describe, expect, test } from "bun:test";
import type { Pod, PodDNSConfig } from "kubernetes-types/core/v1";
import { effectiveDnsPolicy, parseResolvConf, podDnsConfig, type ClusterDnsOptions } from "../../src/agent/dns";

const HOST = "# host\nnameserver 192.0.2.53\nnameserver 192.0.2.54\nsearch corp.example lab.example\noptions edns0 timeout:2\n";
const cluster: ClusterDnsOptions = { servers: ["10.96.0.10"], domain: "cluster.local", resolvConf: "/etc/resolv.conf" };
const read = () => HOST;

function pod(spec: { dnsPolicy?: string; hostNetwork?: boolean; dnsConfig?: PodDNSConfig } = {}): Pod {
  return { metadata: { name: "p", namespace: "apps" }, spec: { containers: [], ...spec } };
}

describe("pod DNS", () => {
  test("resolv.conf parsing: nameservers, the last search line, options; comments ignored", () => {
    expect(parseResolvConf(HOST + "search only.example ; trailing\n")).toEqual({
      servers: ["192.0.2.53", "192.0.2.54"],
      searches: ["only.example"],
      options: ["edns0", "timeout:2"],
    });
  });

  test("the effective policy: ClusterFirst needs cluster DNS and a pod network; ClusterFirstWithHostNet does not", () => {
    expect(effectiveDnsPolicy(pod(), cluster)).toBe("ClusterFirst");
    expect(effectiveDnsPolicy(pod(), undefined)).toBe("Default");
    expect(effectiveDnsPolicy(pod(), { ...cluster, servers: [] })).toBe("Default");
    expect(effectiveDnsPolicy(pod({ hostNetwork: true }), cluster)).toBe("Default");
    expect(effectiveDnsPolicy(pod({ hostNetwork: true, dnsPolicy: "ClusterFirstWithHostNet" }), cluster)).toBe("ClusterFirst");
    expect(effectiveDnsPolicy(pod({ dnsPolicy: "None" }), cluster)).toBe("None");
  });

  test("ClusterFirst: the cluster's servers, the namespace's searches then the host's, ndots:5", () => {
    expect(podDnsConfig(pod(), cluster, read)).toEqual({
      servers: ["10.96.0.10"],
      searches: ["apps.svc.cluster.local", "svc.cluster.local", "cluster.local", "corp.example", "lab.example"],
      options: ["ndots:5"],
    });
  });

  test("Default without dnsConfig leaves the host's file to the runtime; with one, merges onto the host's", () => {
    expect(podDnsConfig(pod({ dnsPolicy: "Default" }), cluster, read)).toBeNull();
    expect(podDnsConfig(pod(), undefined, read)).toBeNull();
    const merged = podDnsConfig(
      pod({
        dnsPolicy: "Default",
        dnsConfig: { nameservers: ["192.0.2.54", "192.0.2.99"], searches: ["x.example"], options: [{ name: "timeout", value: "5" }, { name: "rotate" }] },
      }),
      cluster,
      read,
    );
    expect(merged).toEqual({
      servers: ["192.0.2.53", "192.0.2.54", "192.0.2.99"],
      searches: ["corp.example", "lab.example", "x.example"],
      options: ["edns0", "timeout:5", "rotate"],
    });
  });

  test("None: only what dnsConfig says; the kubelet's limits of 3 servers and 32 searches", () => {
    const many = Array.from({ length: 40 }, (_, i) => `s${i}.example`);
    const cfg = podDnsConfig(
      pod({ dnsPolicy: "None", dnsConfig: { nameservers: ["1.1.1.1", "2.2.2.2", "3.3.3.3", "4.4.4.4"], searches: many } }),
      cluster,
      read,
    )!;
    expect(cfg.servers).toEqual(["1.1.1.1", "2.2.2.2", "3.3.3.3"]);
    expect(cfg.searches).toHaveLength(32);
    expect(cfg.options).toEqual([]);
  });

  test("an unreadable host file gives no host settings rather than failing the pod", () => {
    const cfg = podDnsConfig(pod(), cluster, () => {
      throw new Error("ENOENT");
    });
    expect(cfg!.searches).toEqual(["apps.svc.cluster.local", "svc.cluster.local", "cluster.local"]);
  });
});
