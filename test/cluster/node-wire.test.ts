import { expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { toWire, withTimeout } from "../../src/cluster/wire";
import { loadKubeClient } from "../../src/kube";

test("withTimeout aborts a call to an API server that never answers", async () => {
  const hung = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Promise<Response>(() => {}) });
  const dir = mkdtempSync(join(tmpdir(), "node-wire-"));
  try {
    const path = join(dir, "kubeconfig");
    const config = {
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: "c", cluster: { server: `http://127.0.0.1:${hung.port}`, "insecure-skip-tls-verify": true } }],
      users: [{ name: "u", user: { token: "t" } }],
      contexts: [{ name: "x", context: { cluster: "c", user: "u" } }],
      "current-context": "x",
    };
    writeFileSync(path, JSON.stringify(config));
    const client = await loadKubeClient(path);
    const started = performance.now();
    await expect(client.core.readNode({ name: "n1" }, withTimeout(200))).rejects.toThrow();
    const took = performance.now() - started;
    expect(took).toBeGreaterThanOrEqual(150);
    expect(took).toBeLessThan(5_000);
  } finally {
    hung.stop(true);
    rmSync(dir, { recursive: true, force: true });
  }
});

test("toWire gives the API's JSON back: times as strings, model classes as plain objects", async () => {
  const { V1Node, V1NodeDaemonEndpoints, V1DaemonEndpoint, V1NodeStatus } = await import("@kubernetes/client-node");
  const node = Object.assign(new V1Node(), {
    status: Object.assign(new V1NodeStatus(), {
      daemonEndpoints: Object.assign(new V1NodeDaemonEndpoints(), { kubeletEndpoint: Object.assign(new V1DaemonEndpoint(), { Port: 10250 }) }),
      conditions: [{ type: "Ready", status: "True", lastHeartbeatTime: new Date(Date.UTC(2026, 0, 1)) }],
    }),
  });
  expect(toWire(node, "V1Node")).toEqual({
    status: {
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      conditions: [{ type: "Ready", status: "True", lastHeartbeatTime: "2026-01-01T00:00:00.000Z" }],
    },
  });
});
