import { describe, expect, test } from "bun:test";
import { bridgeCniConflist, containerdConfigToml, DISABLED_PLUGINS, tomlString } from "../../src/cri/containerd-config";

const base = {
  root: "/var/lib/nodeagent/containerd",
  state: "/run/nodeagent/containerd",
  socket: "/run/nodeagent/containerd/containerd.sock",
  sandboxImage: "localhost/nodeagent/pause:1.0",
  cniConfDir: "/etc/nodeagent/cni",
};

/** The body of a `[table]` section: its lines up to the next table header (a line starting with `[`, after indentation). */
function section(toml: string, header: string): string[] {
  const lines = toml.split("\n");
  const start = lines.findIndex((l) => l.trim() === header);
  if (start < 0) throw new Error(`no section ${header} in:\n${toml}`);
  const body: string[] = [];
  for (const l of lines.slice(start + 1)) {
    if (l.trim().startsWith("[")) break;
    if (l.trim() !== "" && !l.trim().startsWith("#")) body.push(l.trim());
  }
  return body;
}

/** Top-level key = value lines, before the first table. */
function topLevel(toml: string): string[] {
  const out: string[] = [];
  for (const l of toml.split("\n")) {
    if (l.trim().startsWith("[")) break;
    if (l.trim() !== "" && !l.trim().startsWith("#")) out.push(l.trim());
  }
  return out;
}

const CRI = '[plugins."io.containerd.grpc.v1.cri"]';

describe("containerdConfigToml", () => {
  const toml = containerdConfigToml(base);

  test("version 2 with its own root and state", () => {
    const top = topLevel(toml);
    expect(top).toContain("version = 2");
    expect(top).toContain('root = "/var/lib/nodeagent/containerd"');
    expect(top).toContain('state = "/run/nodeagent/containerd"');
  });

  test("gRPC socket, and a ttrpc socket of its own", () => {
    expect(section(toml, "[grpc]")).toEqual(['address = "/run/nodeagent/containerd/containerd.sock"']);
    expect(section(toml, "[ttrpc]")).toEqual(['address = "/run/nodeagent/containerd/containerd.sock.ttrpc"']);
  });

  test("no debug or metrics listener", () => {
    expect(section(toml, "[debug]")).toEqual(['address = ""']);
    expect(section(toml, "[metrics]")).toEqual(['address = ""']);
  });

  test("CRI is required and never disabled; unusable snapshotters are disabled", () => {
    const top = topLevel(toml);
    expect(top).toContain('required_plugins = ["io.containerd.grpc.v1.cri"]');
    const disabled = top.find((l) => l.startsWith("disabled_plugins = "));
    expect(disabled).toBeDefined();
    expect(disabled).not.toContain("io.containerd.grpc.v1.cri");
    for (const p of ["aufs", "btrfs", "zfs", "devmapper"]) expect(disabled).toContain(`"io.containerd.snapshotter.v1.${p}"`);
    expect(disabled).not.toContain("overlayfs");
    expect(DISABLED_PLUGINS.every((p) => p.startsWith("io.containerd.snapshotter.v1."))).toBe(true);
  });

  test("opt plugin lives under root", () => {
    expect(section(toml, '[plugins."io.containerd.internal.v1.opt"]')).toEqual(['path = "/var/lib/nodeagent/containerd/opt"']);
    expect(containerdConfigToml({ ...base, root: "/x/" })).toContain('path = "/x/opt"');
  });

  test("NRI stays off (it would listen on a host-global socket)", () => {
    expect(section(toml, '[plugins."io.containerd.nri.v1.nri"]')).toEqual(["disable = true"]);
  });

  test("CRI plugin settings", () => {
    const cri = section(toml, CRI);
    expect(cri).toContain('sandbox_image = "localhost/nodeagent/pause:1.0"');
    expect(cri).toContain("restrict_oom_score_adj = true");
    expect(cri).toContain("enable_cdi = false");
    expect(cri).toContain('stream_server_address = "127.0.0.1"');
    expect(cri).toContain('stream_server_port = "0"');
    expect(cri).toContain("netns_mounts_under_state_dir = true");
  });

  test("more runtime handlers (RuntimeClass handlers) are runc runtimes with the same options", () => {
    const more = containerdConfigToml({ ...base, runtimeHandlers: ["runc-alt"] });
    expect(section(more, '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc-alt]')).toEqual(['runtime_type = "io.containerd.runc.v2"']);
    expect(section(more, '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc-alt.options]')).toEqual(
      section(more, '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]'),
    );
    expect(toml).not.toContain("runc-alt");
  });

  test("runc v2 runtime with the cgroupfs driver and its state under ours", () => {
    expect(section(toml, '[plugins."io.containerd.grpc.v1.cri".containerd]')).toEqual(['snapshotter = "overlayfs"', 'default_runtime_name = "runc"']);
    expect(section(toml, '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]')).toEqual(['runtime_type = "io.containerd.runc.v2"']);
    expect(section(toml, '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]')).toEqual([
      "SystemdCgroup = false",
      'Root = "/run/nodeagent/containerd/runc"',
    ]);
  });

  test("CNI dirs, /usr/lib/cni by default", () => {
    expect(section(toml, '[plugins."io.containerd.grpc.v1.cri".cni]')).toEqual([
      'bin_dir = "/usr/lib/cni"',
      'conf_dir = "/etc/nodeagent/cni"',
      "max_conf_num = 1",
    ]);
    const custom = containerdConfigToml({ ...base, cniBinDir: "/opt/cni/bin" });
    expect(section(custom, '[plugins."io.containerd.grpc.v1.cri".cni]')).toContain('bin_dir = "/opt/cni/bin"');
  });

  test("no deprecated registry mirrors (1.7 warns on every ctr call)", () => {
    const code = toml
      .split("\n")
      .filter((l) => !l.trim().startsWith("#"))
      .join("\n");
    expect(code).not.toContain("mirrors");
    expect(code).not.toContain("registry");
  });

  test("every table header appears once", () => {
    const headers = toml
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l.startsWith("["));
    expect(new Set(headers).size).toBe(headers.length);
  });

  test("every key = value line has a TOML value: quoted string, bool, integer or string array", () => {
    for (const raw of toml.split("\n")) {
      const l = raw.trim();
      if (l === "" || l.startsWith("#") || l.startsWith("[")) continue;
      expect(l).toMatch(/^[A-Za-z_]+ = ("([^"\\]|\\.)*"|true|false|\d+|\[("([^"\\]|\\.)*"(, )?)*\])$/);
    }
  });

  test("paths with spaces, quotes and backslashes are quoted and escaped", () => {
    const odd = containerdConfigToml({
      ...base,
      root: "/tmp/my dir/root",
      state: '/tmp/a "quoted" state',
      socket: "/tmp/back\\slash/c.sock",
      cniConfDir: "/tmp/tab\there",
    });
    expect(odd).toContain('root = "/tmp/my dir/root"');
    expect(odd).toContain('state = "/tmp/a \\"quoted\\" state"');
    expect(odd).toContain('address = "/tmp/back\\\\slash/c.sock"');
    expect(odd).toContain('address = "/tmp/back\\\\slash/c.sock.ttrpc"');
    expect(odd).toContain('conf_dir = "/tmp/tab\\there"');
    expect(odd).toContain('path = "/tmp/my dir/root/opt"');
  });

  test("rejects relative paths and an empty sandbox image", () => {
    expect(() => containerdConfigToml({ ...base, root: "var/lib/x" })).toThrow(/root must be an absolute path/);
    expect(() => containerdConfigToml({ ...base, socket: "c.sock" })).toThrow(/socket/);
    expect(() => containerdConfigToml({ ...base, cniBinDir: "cni" })).toThrow(/cniBinDir/);
    expect(() => containerdConfigToml({ ...base, sandboxImage: " " })).toThrow(/sandboxImage/);
  });
});

describe("tomlString", () => {
  test("escapes quote, backslash and control characters", () => {
    expect(tomlString("plain")).toBe('"plain"');
    expect(tomlString('a"b')).toBe('"a\\"b"');
    expect(tomlString("a\\b")).toBe('"a\\\\b"');
    expect(tomlString("\n\r\t\b\f")).toBe('"\\n\\r\\t\\b\\f"');
    expect(tomlString("\u0001\u007f")).toBe('"\\u0001\\u007F"');
  });
  test("keeps non-ASCII text, rejects lone surrogates", () => {
    expect(tomlString("/tmp/é/😀")).toBe('"/tmp/é/😀"');
    expect(() => tomlString("\ud800x")).toThrow(/surrogate/);
    expect(() => tomlString("x\udc00")).toThrow(/surrogate/);
  });
});

describe("bridgeCniConflist", () => {
  const json = bridgeCniConflist({ name: "nodeagent", bridge: "na0", subnet: "10.88.0.0/16" });
  const c = JSON.parse(json);

  test("valid JSON, cniVersion 0.4.0, named", () => {
    expect(c.cniVersion).toBe("0.4.0");
    expect(c.name).toBe("nodeagent");
    expect(json.endsWith("\n")).toBe(true);
  });

  test("bridge: gateway, masquerade, host-local IPAM over the subnet with a default route", () => {
    const bridge = c.plugins[0];
    expect(bridge.type).toBe("bridge");
    expect(bridge.bridge).toBe("na0");
    expect(bridge.isGateway).toBe(true);
    expect(bridge.ipMasq).toBe(true);
    expect(bridge.ipam.type).toBe("host-local");
    expect(bridge.ipam.ranges).toEqual([[{ subnet: "10.88.0.0/16" }]]);
    expect(bridge.ipam.routes).toEqual([{ dst: "0.0.0.0/0" }]);
  });

  test("portmap with the portMappings capability; no loopback entry (containerd adds it)", () => {
    expect(c.plugins.map((p: { type: string }) => p.type)).toEqual(["bridge", "portmap"]);
    expect(c.plugins[1].capabilities).toEqual({ portMappings: true });
  });

  test("other subnets and bridges pass through", () => {
    const d = JSON.parse(bridgeCniConflist({ name: "nodeagent-na17br0", bridge: "na17br0", subnet: "10.88.17.0/24" }));
    expect(d.plugins[0].bridge).toBe("na17br0");
    expect(d.plugins[0].ipam.ranges[0][0].subnet).toBe("10.88.17.0/24");
  });

  test("rejects bad subnets, over-long bridge names and odd network names", () => {
    const ok = { name: "n", bridge: "na0", subnet: "10.88.0.0/16" };
    for (const subnet of ["10.88.0.0", "10.88.0.0/31", "10.300.0.0/16", "fd00::/64", "10.88.0.0/16 "]) {
      expect(() => bridgeCniConflist({ ...ok, subnet })).toThrow(/subnet/);
    }
    expect(() => bridgeCniConflist({ ...ok, bridge: "a-very-long-bridge" })).toThrow(/bridge name/);
    expect(() => bridgeCniConflist({ ...ok, bridge: "" })).toThrow(/bridge name/);
    expect(() => bridgeCniConflist({ ...ok, name: "has space" })).toThrow(/network name/);
  });
});
