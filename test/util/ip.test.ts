// parseIP and the address classes, as Go's net.IP answers them.
import { describe, expect, test } from "bun:test";
import { isGlobalUnicastIP, isLinkLocalUnicastIP, isLoopbackIP, isMulticastIP, isUnspecifiedIP, parseIP } from "../../src/util/ip";

const p = (s: string) => parseIP(s)!;

describe("parseIP", () => {
  test("canonical spellings as ip.String() prints them; IPv4-mapped IPv6 is IPv4", () => {
    expect(parseIP(" 10.0.0.1 ")).toEqual({ family: 4, bytes: [10, 0, 0, 1], text: "10.0.0.1" });
    expect(p("2001:DB8:0:0:0:0:0:10").text).toBe("2001:db8::10");
    expect(p("0:0::1").text).toBe("::1");
    expect(p("::ffff:192.0.2.1")).toEqual({ family: 4, bytes: [192, 0, 2, 1], text: "192.0.2.1" });
    expect(p("2001:db8::1.2.3.4").bytes.slice(12)).toEqual([1, 2, 3, 4]);
    expect(p("fe80::1").bytes).toEqual([0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
  });

  test("not addresses", () => {
    for (const s of ["", "10.0.0", "10.0.0.256", "host-a", "1::2::3", "10.0.0.1/24"]) expect(parseIP(s)).toBeUndefined();
  });
});

describe("classes", () => {
  const cases: [string, { loopback?: boolean; multicast?: boolean; linkLocal?: boolean; unspecified?: boolean; global: boolean }][] = [
    ["127.0.0.1", { loopback: true, global: false }],
    ["127.1.2.3", { loopback: true, global: false }],
    ["::1", { loopback: true, global: false }],
    ["224.0.0.1", { multicast: true, global: false }],
    ["ff02::1", { multicast: true, global: false }],
    ["169.254.1.1", { linkLocal: true, global: false }],
    ["fe80::1", { linkLocal: true, global: false }],
    ["febf::1", { linkLocal: true, global: false }],
    ["0.0.0.0", { unspecified: true, global: false }],
    ["::", { unspecified: true, global: false }],
    ["255.255.255.255", { global: false }],
    ["10.88.0.1", { global: true }],
    ["192.0.2.10", { global: true }],
    ["fd00::1", { global: true }],
    ["fec0::1", { global: true }],
  ];
  for (const [s, want] of cases) {
    test(s, () => {
      const ip = p(s);
      expect([isLoopbackIP(ip), isMulticastIP(ip), isLinkLocalUnicastIP(ip), isUnspecifiedIP(ip), isGlobalUnicastIP(ip)]).toEqual([
        !!want.loopback,
        !!want.multicast,
        !!want.linkLocal,
        !!want.unspecified,
        want.global,
      ]);
    });
  }
});
