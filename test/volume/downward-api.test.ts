import { expect, test } from "bun:test";
import type { Container, Pod } from "kubernetes-types/core/v1";
import { envFieldValue, formatMap, goQuote, metadataFieldValue, resourceFieldValue } from "../../src/objects/downward-api";
import { downwardAPIPayload } from "../../src/volume/downward-api";

const pod = (): Pod => ({
  metadata: { name: "web", namespace: "prod", uid: "u-1", labels: { tier: "front", app: "web" }, annotations: { note: 'say "hi"\n\tbye', "x/y": "é✓" } },
  spec: {
    nodeName: "n1",
    serviceAccountName: "builder",
    containers: [{ name: "app", resources: { requests: { cpu: "250m", memory: "64Mi" }, limits: { cpu: "1500m", memory: "128Mi" } } }, { name: "side" }],
  },
});
const ctx = { nodeName: "node-x", hostIP: "192.0.2.10" };
const text = (b: Uint8Array) => new TextDecoder().decode(b);

test("goQuote escapes as Go's %q: quotes, backslashes, control characters; printable unicode kept", () => {
  expect(goQuote('a"b\\c')).toBe('"a\\"b\\\\c"');
  expect(goQuote("l1\nl2\tx\r\x07\x00\x7f")).toBe('"l1\\nl2\\tx\\r\\a\\x00\\x7f"');
  expect(goQuote("é✓ 日本")).toBe('"é✓ 日本"');
  expect(goQuote("\u200b")).toBe('"\\u200b"');
});

test('FormatMap: sorted key="value" lines, no trailing newline; empty map is empty', () => {
  expect(formatMap({ tier: "front", app: "web" })).toBe('app="web"\ntier="front"');
  expect(formatMap(undefined)).toBe("");
  expect(metadataFieldValue(pod(), "metadata.annotations")).toBe('note="say \\"hi\\"\\n\\tbye"\nx/y="é✓"');
});

test("metadata fields, subscripts, and the kubelet's errors for the rest", () => {
  const p = pod();
  expect(metadataFieldValue(p, "metadata.name")).toBe("web");
  expect(metadataFieldValue(p, "metadata.namespace")).toBe("prod");
  expect(metadataFieldValue({ metadata: { name: "s" } }, "metadata.namespace")).toBe("default");
  expect(metadataFieldValue(p, "metadata.uid")).toBe("u-1");
  expect(metadataFieldValue(p, "metadata.labels['app']")).toBe("web");
  expect(metadataFieldValue(p, "metadata.labels['absent']")).toBe("");
  expect(metadataFieldValue(p, "metadata.annotations['x/y']")).toBe("é✓");
  expect(() => metadataFieldValue(p, "spec.nodeName")).toThrow("unsupported fieldPath: spec.nodeName");
  expect(() => metadataFieldValue(p, "metadata.name['x']")).toThrow(`fieldPath "metadata.name['x']" does not support subscript`);
});

test("env fields: node name, service account, pod and host IPs (host-network pods get the node's)", () => {
  const p = pod();
  expect(envFieldValue(p, "spec.nodeName", ctx, ["10.0.0.5"])).toBe("n1");
  expect(envFieldValue({ metadata: {}, spec: { containers: [] } }, "spec.nodeName", ctx, [])).toBe("node-x");
  expect(envFieldValue(p, "spec.serviceAccountName", ctx, [])).toBe("builder");
  expect(envFieldValue(p, "status.podIP", ctx, ["10.0.0.5", "fd00::5"])).toBe("10.0.0.5");
  expect(envFieldValue(p, "status.podIPs", ctx, ["10.0.0.5", "fd00::5"])).toBe("10.0.0.5,fd00::5");
  expect(envFieldValue(p, "status.hostIP", ctx, [])).toBe("192.0.2.10");
  expect(envFieldValue(p, "status.hostIPs", ctx, [])).toBe("192.0.2.10");
  p.spec!.hostNetwork = true;
  expect(envFieldValue(p, "status.podIP", ctx, ["10.0.0.5"])).toBe("192.0.2.10");
  expect(envFieldValue(p, "metadata.labels['tier']", ctx, [])).toBe("front");
  expect(() => envFieldValue(p, "status.phase", ctx, [])).toThrow("unsupported fieldPath: status.phase");
  // A dual-stack node: hostIP is the first InternalIP, hostIPs all of them, as in the pod's status.
  const dual = { ...ctx, hostIP: "2001:db8::10", hostIPs: ["2001:db8::10", "192.0.2.10"] };
  expect(envFieldValue(p, "status.hostIP", dual, [])).toBe("2001:db8::10");
  expect(envFieldValue(p, "status.hostIPs", dual, [])).toBe("2001:db8::10,192.0.2.10");
  expect(envFieldValue(p, "status.podIPs", dual, ["10.0.0.5"])).toBe("2001:db8::10,192.0.2.10");
});

test("resource fields: ceil(quantity/divisor), CPU in milli-units, limits defaulted to node allocatable", () => {
  const c: Container = pod().spec!.containers[0]!;
  expect(resourceFieldValue(c, { resource: "limits.cpu" })).toBe("2");
  expect(resourceFieldValue(c, { resource: "limits.cpu", divisor: "1m" })).toBe("1500");
  expect(resourceFieldValue(c, { resource: "requests.cpu", divisor: "100m" })).toBe("3");
  expect(resourceFieldValue(c, { resource: "limits.memory", divisor: "1Mi" })).toBe("128");
  expect(resourceFieldValue(c, { resource: "requests.memory" })).toBe(String(64 * 1024 * 1024));
  expect(resourceFieldValue(c, { resource: "requests.memory", divisor: "1G" })).toBe("1");
  expect(resourceFieldValue(c, { resource: "limits.memory", divisor: "0" })).toBe(String(128 * 1024 * 1024));
  const bare: Container = { name: "side" };
  const alloc = { cpu: "4", memory: "8Gi", "ephemeral-storage": "100Gi" };
  expect(resourceFieldValue(bare, { resource: "limits.cpu" }, alloc)).toBe("4");
  expect(resourceFieldValue(bare, { resource: "limits.memory", divisor: "1Gi" }, alloc)).toBe("8");
  expect(resourceFieldValue(bare, { resource: "limits.ephemeral-storage", divisor: "1Gi" }, alloc)).toBe("100");
  // Requests are never defaulted from allocatable; without allocatable a missing limit is 0.
  expect(resourceFieldValue(bare, { resource: "requests.cpu" }, alloc)).toBe("0");
  expect(resourceFieldValue(bare, { resource: "limits.memory" })).toBe("0");
  expect(resourceFieldValue({ name: "h", resources: { limits: { "hugepages-2Mi": "4Mi" } } }, { resource: "limits.hugepages-2Mi", divisor: "2Mi" })).toBe("2");
  expect(() => resourceFieldValue(c, { resource: "limits.gpu" })).toThrow("unsupported container resource : limits.gpu");
});

test("a downwardAPI volume's payload: items with modes, resource files by container, errors aggregated", () => {
  const p = pod();
  const out = downwardAPIPayload(
    p,
    [
      { path: "labels", fieldRef: { fieldPath: "metadata.labels" } },
      { path: "meta/name", fieldRef: { fieldPath: "metadata.name" }, mode: 0o600 },
      { path: "mem", resourceFieldRef: { containerName: "app", resource: "limits.memory", divisor: "1Mi" } },
    ],
    0o644,
  );
  expect([...out.keys()]).toEqual(["labels", "meta/name", "mem"]);
  expect(text(out.get("labels")!.data)).toBe('app="web"\ntier="front"');
  expect(out.get("labels")!.mode).toBe(0o644);
  expect(out.get("meta/name")!.mode).toBe(0o600);
  expect(text(out.get("mem")!.data)).toBe("128");
  expect(() => downwardAPIPayload(p, [{ path: "a", fieldRef: { fieldPath: "spec.nodeName" } }], 0o644)).toThrow("unsupported fieldPath: spec.nodeName");
  expect(() =>
    downwardAPIPayload(
      p,
      [
        { path: "a", fieldRef: { fieldPath: "spec.nodeName" } },
        { path: "b", resourceFieldRef: { containerName: "nope", resource: "limits.cpu" } },
      ],
      0o644,
    ),
  ).toThrow("[unsupported fieldPath: spec.nodeName, container nope not found]");
});
