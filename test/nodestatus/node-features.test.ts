// status.features of the Node (1.36 setters.go NodeFeatures): what the runtime's CRI Status says it can
// do, published only when it says anything (containerd 1.6 and 1.7 send no features), and carried onto
// the API server's Node.
import { expect, test } from "bun:test";
import type { StatusResponse } from "../../src/cri/types";
import { DEFAULT_EVICTION_HARD, hardEvictionReservation, parseLangleMap, parseThresholds } from "../../src/eviction/thresholds";
import { buildNode, type BuildNodeOptions, type HostFacts } from "../../src/nodestatus";
import { withReportedStatus } from "../../src/nodestatus/status-update";

const host: HostFacts = {
  cpus: 2,
  memoryBytes: 4 * 2 ** 30,
  ephemeralStorageBytes: 50 * 2 ** 30,
  machineID: "m",
  systemUUID: "",
  bootID: "b",
  kernelVersion: "6.1.0",
  osImage: "Debian",
  hugePages: [],
  architecture: "amd64",
};

function opts(features: StatusResponse["features"]): BuildNodeOptions {
  const runtime = {
    version: async () => ({ version: "0.1.0", runtimeName: "containerd", runtimeVersion: "2.1.0", runtimeApiVersion: "v1" }),
    listImages: async () => [],
    status: async (): Promise<StatusResponse> => ({
      status: {
        conditions: [
          { type: "RuntimeReady", status: true, reason: "", message: "" },
          { type: "NetworkReady", status: true, reason: "", message: "" },
        ],
      },
      info: {},
      runtimeHandlers: [],
      features,
    }),
  };
  return {
    evictionReservation: (c) => hardEvictionReservation(parseThresholds({ hard: parseLangleMap(DEFAULT_EVICTION_HARD) }), c),
    nodeName: "node-1",
    labels: {},
    taints: [],
    runtime: runtime as unknown as BuildNodeOptions["runtime"],
    maxPods: 110,
    conditions: { ready: { ok: true, message: "" } },
    now: Date.UTC(2026, 0, 1),
    version: "0.1.0",
    host,
  };
}

const features = (n: { status?: unknown }) => (n.status as { features?: unknown }).features;

test("a runtime that reports SupplementalGroupsPolicy: status.features says so (true or false); one that reports nothing: no field", async () => {
  expect(features(await buildNode(opts({ supplementalGroupsPolicy: true })))).toEqual({ supplementalGroupsPolicy: true });
  expect(features(await buildNode(opts({ supplementalGroupsPolicy: false })))).toEqual({ supplementalGroupsPolicy: false });
  const none = await buildNode(opts(null));
  expect(none.status).not.toHaveProperty("features");
});

test("the features reach the API server's Node; none reported keeps what it had", async () => {
  const built = await buildNode(opts({ supplementalGroupsPolicy: true }));
  const api = withReportedStatus({ metadata: { name: "node-1" }, status: {} }, built, { ready: true, message: "" }, "2026-01-01T00:00:10Z");
  expect(features(api)).toEqual({ supplementalGroupsPolicy: true });
  expect(
    features(withReportedStatus({ metadata: { name: "node-1" }, status: {} }, await buildNode(opts(null)), { ready: true, message: "" }, "t")),
  ).toBeUndefined();
});
