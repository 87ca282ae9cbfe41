// The Node's addresses by the kubelet's rules (setters.go NodeAddress without a cloud provider), each
// rule through the HostNetwork fake: --node-ip, a node name that is an IP, the name's lookup (loopback
// and off-host answers skipped, the preferred family first), the default route's interface, and the
// loopback fallback when nothing else is found.
import { describe, expect, test } from "bun:test";
import { chooseHostInterface, parseDefaultRoutes, parseNodeIPs, resolveNodeAddresses } from "../../src/nodestatus/node-address";
import { FakeHostNetwork, ifaceAddress } from "../fakes/host-network";

const resolve = (net: FakeHostNetwork, nodeName: string, nodeIP = "") => resolveNodeAddresses({ nodeIPs: parseNodeIPs(nodeIP), nodeName, net });
const internal = (...ips: string[]) => ips.map((address) => ({ type: "InternalIP", address }));

describe("parseNodeIPs (--node-ip)", () => {
  test("one address or a dual-stack pair, canonical; empty is none", () => {
    expect(parseNodeIPs("")).toEqual([]);
    expect(parseNodeIPs(" 127.0.0.1 ")).toEqual(["127.0.0.1"]);
    expect(parseNodeIPs("2001:DB8::10, 192.0.2.10")).toEqual(["2001:db8::10", "192.0.2.10"]);
    expect(parseNodeIPs("0.0.0.0")).toEqual(["0.0.0.0"]);
    expect(parseNodeIPs("::")).toEqual(["::"]);
  });

  test("refused with the kubelet's reasons", () => {
    expect(() => parseNodeIPs("node-a")).toThrow(`"node-a" is not an IP address`);
    expect(() => parseNodeIPs("10.0.0.1,")).toThrow(`"" is not an IP address`);
    expect(() => parseNodeIPs("10.0.0.1,10.0.0.2")).toThrow("must contain either a single IP or a dual-stack pair of IPs");
    expect(() => parseNodeIPs("10.0.0.1,::1,10.0.0.2")).toThrow("must contain either a single IP or a dual-stack pair of IPs");
    expect(() => parseNodeIPs("::,10.0.0.1")).toThrow("cannot include '0.0.0.0' or '::'");
  });
});

describe("resolveNodeAddresses", () => {
  test("1. --node-ip is the InternalIP, loopback included; the Hostname is the node name; the name is not looked up", async () => {
    const net = new FakeHostNetwork();
    net.names["node-a"] = ["192.0.2.10"];
    const r = await resolve(net, "node-a", "127.0.0.1");
    expect(r.addresses).toEqual([...internal("127.0.0.1"), { type: "Hostname", address: "node-a" }]);
    expect(r.hostIPs).toEqual(["127.0.0.1"]);
    expect(r.warning).toBeUndefined();
    expect(net.lookups).toEqual([]);
  });

  test("1. a dual-stack pair: two InternalIPs in the given order, then the Hostname", async () => {
    const r = await resolve(new FakeHostNetwork(), "node-a", "2001:db8::10,192.0.2.10");
    expect(r.addresses).toEqual([...internal("2001:db8::10", "192.0.2.10"), { type: "Hostname", address: "node-a" }]);
    expect(r.hostIPs).toEqual(["2001:db8::10", "192.0.2.10"]);
  });

  test("1. a --node-ip no longer on the host fails validation, as the kubelet's setter does", async () => {
    const net = new FakeHostNetwork();
    delete net.ifaces.nodeagent0;
    await expect(resolve(net, "node-a", "10.88.0.1")).rejects.toThrow(
      `failed to validate nodeIP: node IP: "10.88.0.1" not found in the host's network interfaces`,
    );
  });

  test("2. a node name that is an IP is the InternalIP", async () => {
    const r = await resolve(new FakeHostNetwork(), "10.1.2.3");
    expect(r.addresses).toEqual([...internal("10.1.2.3"), { type: "Hostname", address: "10.1.2.3" }]);
  });

  test("3. the name's lookup: loopback (Debian's 127.0.1.1) and addresses not on this host are skipped; IPv4 preferred", async () => {
    const net = new FakeHostNetwork();
    net.names["node-a"] = ["127.0.1.1", "203.0.113.9", "2001:db8::10", "10.88.0.1", "192.0.2.10"];
    expect((await resolve(net, "node-a")).hostIPs).toEqual(["10.88.0.1"]);
    expect(net.lookups).toEqual(["node-a"]);
    // Only IPv6 valid: taken, since nothing of the preferred family is.
    net.names["node-a"] = ["127.0.1.1", "2001:db8::10"];
    expect((await resolve(net, "node-a")).hostIPs).toEqual(["2001:db8::10"]);
  });

  test('3. "::" prefers IPv6 from the lookup, and "0.0.0.0" means pick', async () => {
    const net = new FakeHostNetwork();
    net.names["node-a"] = ["192.0.2.10", "2001:db8::10"];
    expect((await resolve(net, "node-a", "::")).hostIPs).toEqual(["2001:db8::10"]);
    expect((await resolve(net, "node-a", "0.0.0.0")).hostIPs).toEqual(["192.0.2.10"]);
  });

  test("4. nothing from the lookup: the default route's interface, never a pod bridge listed before it", async () => {
    const net = new FakeHostNetwork();
    net.ifaces = { nodeagent0: net.ifaces.nodeagent0!, lo: net.ifaces.lo!, eth0: net.ifaces.eth0! };
    net.names["node-a"] = ["127.0.1.1"];
    expect((await resolve(net, "node-a")).addresses).toEqual([...internal("192.0.2.10"), { type: "Hostname", address: "node-a" }]);
    expect((await resolve(net, "node-a", "::")).hostIPs).toEqual(["2001:db8::10"]);
  });

  test("last: a host with only loopback gets the name's loopback address (else 127.0.0.1) and a warning", async () => {
    const net = new FakeHostNetwork();
    net.ifaces = { lo: net.ifaces.lo! };
    net.routes = [];
    const bare = await resolve(net, "node-a");
    expect(bare.hostIPs).toEqual(["127.0.0.1"]);
    expect(bare.warning).toBe(
      "can't get ip address of node node-a. error: no acceptable interface with global unicast address found on host; using 127.0.0.1 (give --node-ip to choose the node's address)",
    );
    net.names["node-a"] = ["127.0.1.1"];
    expect((await resolve(net, "node-a")).hostIPs).toEqual(["127.0.1.1"]);
    expect((await resolve(net, "node-a", "::")).hostIPs).toEqual(["::1"]);
  });
});

describe("chooseHostInterface (apimachinery util/net)", () => {
  test("default routes: the first route of the first family with a global unicast address on its interface", () => {
    const net = new FakeHostNetwork();
    net.ifaces.wg0 = [ifaceAddress("fe80::2")];
    net.routes = [
      { iface: "wg0", family: 4 },
      { iface: "eth0", family: 6 },
      { iface: "eth0", family: 4 },
    ];
    expect(chooseHostInterface(net, [4, 6])).toBe("192.0.2.10");
    expect(chooseHostInterface(net, [6, 4])).toBe("2001:db8::10");
    net.routes = [{ iface: "wg0", family: 4 }];
    expect(() => chooseHostInterface(net, [4, 6])).toThrow("unable to select an IP from default routes.");
  });

  test("no default route: any interface that is up, loopback and link-local skipped", () => {
    const net = new FakeHostNetwork();
    net.routes = [];
    net.ifaces = { lo: net.ifaces.lo!, ll: [ifaceAddress("169.254.3.3")], nodeagent0: net.ifaces.nodeagent0! };
    expect(chooseHostInterface(net, [4, 6])).toBe("10.88.0.1");
  });

  test("parseDefaultRoutes reads /proc/net/route and /proc/net/ipv6_route", () => {
    const route4 = [
      "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT",
      "nodeagent0\t0000580A\t00000000\t0001\t0\t0\t0\t0000FFFF\t0\t0\t0",
      "eth0\t00000000\t010200C0\t0003\t0\t0\t0\t00000000\t0\t0\t0",
    ].join("\n");
    const route6 = [
      "fe800000000000000000000000000000 40 00000000000000000000000000000000 00 00000000000000000000000000000000 00000100 00000001 00000000 00000001     eth0",
      "00000000000000000000000000000000 00 00000000000000000000000000000000 00 fe800000000000000000000000000001 00000400 00000001 00000000 00000003     eth1",
      "00000000000000000000000000000000 00 00000000000000000000000000000000 00 00000000000000000000000000000000 ffffffff 00000001 00000000 00200200       lo",
    ].join("\n");
    expect(parseDefaultRoutes(route4, route6)).toEqual([
      { iface: "eth0", family: 4 },
      { iface: "eth1", family: 6 },
    ]);
    expect(parseDefaultRoutes("", "")).toEqual([]);
  });
});
