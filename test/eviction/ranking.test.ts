import { describe, expect, test } from "bun:test";
import type { Pod, Volume } from "kubernetes-types/core/v1";
import { evictionMessage, podRequest, rankFuncFor, rankMemoryPressure, rankPIDPressure } from "../../src/eviction/ranking";
import type { PodStats } from "../../src/stats/types";
import { MI, podStats } from "../fakes/eviction";

function pod(name: string, o: { memory?: string; storage?: string; priority?: number; volumes?: Volume[] } = {}): Pod {
  const requests: Record<string, string> = {};
  if (o.memory) requests.memory = o.memory;
  if (o.storage) requests["ephemeral-storage"] = o.storage;
  return {
    metadata: { name, namespace: "default", uid: `uid-${name}` },
    spec: {
      containers: [{ name: "main", image: "busybox", resources: { requests } }],
      ...(o.priority !== undefined ? { priority: o.priority } : {}),
      ...(o.volumes ? { volumes: o.volumes } : {}),
    },
  };
}

const lookup = (stats: PodStats[]) => (p: Pod) => stats.find((s) => s.podRef.uid === p.metadata?.uid);
const names = (pods: Pod[]) => pods.map((p) => p.metadata!.name);

describe("ranking for memory (rankMemoryPressure)", () => {
  test("usage over request first, then lower priority, then the larger usage above request", () => {
    const guaranteed = pod("guaranteed", { memory: "64Mi" }); // 10Mi used: under its request
    const besteffort = pod("besteffort"); // 5Mi over 0
    const burstableHigh = pod("burstable-high", { memory: "10Mi", priority: 1000 }); // 30Mi: 20Mi over
    const burstableLow = pod("burstable-low", { memory: "10Mi" }); // 12Mi: 2Mi over, priority 0
    const stats = [
      podStats(guaranteed, { main: { workingSet: 10 * MI } }),
      podStats(besteffort, { main: { workingSet: 5 * MI } }),
      podStats(burstableHigh, { main: { workingSet: 30 * MI } }),
      podStats(burstableLow, { main: { workingSet: 12 * MI } }),
    ];
    const pods = [guaranteed, burstableHigh, besteffort, burstableLow];
    rankMemoryPressure(pods, lookup(stats));
    // Over request: besteffort (5Mi over), burstable-low (2Mi over) at priority 0, the larger excess first; then burstable-high (priority 1000); then guaranteed.
    expect(names(pods)).toEqual(["besteffort", "burstable-low", "burstable-high", "guaranteed"]);
  });

  test("a pod without stats ranks first", () => {
    const a = pod("a");
    const b = pod("b");
    const pods = [a, b];
    rankMemoryPressure(pods, lookup([podStats(a, { main: { workingSet: 100 * MI } })]));
    expect(names(pods)).toEqual(["b", "a"]);
  });

  test("podRequest: containers summed, the largest init container if more, overhead added to a request", () => {
    const p: Pod = {
      spec: {
        containers: [
          { name: "a", resources: { requests: { memory: "10Mi" } } },
          { name: "b", resources: { requests: { memory: "20Mi" } } },
        ],
        initContainers: [{ name: "i", resources: { requests: { memory: "50Mi" } } }],
        overhead: { memory: "1Mi" },
      },
    };
    expect(podRequest(p, "memory")).toBe(51 * MI);
    expect(podRequest(pod("none"), "memory")).toBe(0);
  });
});

describe("ranking for pids and disk", () => {
  test("pids: lower priority first, then more processes", () => {
    const few = pod("few");
    const many = pod("many");
    const important = pod("important", { priority: 10 });
    const stats = [
      podStats(few, {}, { process_stats: { process_count: 3 } }),
      podStats(many, {}, { process_stats: { process_count: 300 } }),
      podStats(important, {}, { process_stats: { process_count: 900 } }),
    ];
    const pods = [important, few, many];
    rankPIDPressure(pods, lookup(stats));
    expect(names(pods)).toEqual(["many", "few", "important"]);
  });

  test("nodefs on one filesystem: rootfs + logs + local volumes (not memory-backed) over the ephemeral-storage request; with a dedicated imagefs, logs and volumes only", () => {
    const writer = pod("writer", { storage: "1Gi" }); // rootfs 600Mi: within its request
    const layer = pod("layer"); // rootfs 50Mi, no request
    const logger = pod("logger", {
      volumes: [
        { name: "scratch", emptyDir: {} },
        { name: "mem", emptyDir: { medium: "Memory" } },
      ],
    });
    const stats = lookup([
      podStats(writer, { main: { rootfs: 600 * MI, logs: 0 } }),
      podStats(layer, { main: { rootfs: 50 * MI, logs: 0 } }),
      podStats(
        logger,
        { main: { rootfs: 0, logs: 10 * MI } },
        {
          volume: [
            { time: "", name: "scratch", usedBytes: 20 * MI },
            { time: "", name: "mem", usedBytes: 900 * MI },
          ],
        },
      ),
    ]);
    const shared = [writer, logger, layer];
    rankFuncFor("nodefs.available", false)(shared, stats);
    // Over request: layer (50Mi) and logger (30Mi: the memory-backed volume does not count); writer is within its 1Gi.
    expect(names(shared)).toEqual(["layer", "logger", "writer"]);
    const dedicated = [writer, layer, logger];
    rankFuncFor("nodefs.available", true)(dedicated, stats);
    // Logs and volumes only: the logger alone uses any.
    expect(names(dedicated)).toEqual(["logger", "layer", "writer"]);
    const image = [logger, writer, layer];
    rankFuncFor("imagefs.available", true)(image, stats);
    expect(names(image)).toEqual(["layer", "logger", "writer"]);
  });
});

describe("the eviction message (evictionMessage)", () => {
  test("memory: each container over its request (in the stats' order), usage as a BinarySI quantity, the request as given", () => {
    const p: Pod = {
      metadata: { name: "p", uid: "u" },
      spec: {
        containers: [
          { name: "hog", resources: { requests: { memory: "64Mi" } } },
          { name: "idle", resources: { requests: { memory: "64Mi" } } },
          { name: "free" },
        ],
      },
    };
    const stats = lookup([podStats(p, { hog: { workingSet: 100 * MI + 512 * 1024 }, idle: { workingSet: MI }, free: { workingSet: 1536 } })]);
    expect(evictionMessage("memory", p, stats)).toBe(
      "The node was low on resource: memory. Container hog was using 102912Ki, which exceeds its request of 64Mi. Container free was using 1536, which exceeds its request of 0. ",
    );
  });

  test("without stats, and for inodes or pids: the first sentence alone", () => {
    const p = pod("p");
    expect(evictionMessage("memory", p, () => undefined)).toBe("The node was low on resource: memory. ");
    expect(evictionMessage("pids", p, lookup([podStats(p, { main: { workingSet: MI } })]))).toBe("The node was low on resource: pids. ");
  });

  test("ephemeral-storage: rootfs + logs of the container", () => {
    const p = pod("p", { storage: "1Mi" });
    expect(evictionMessage("ephemeral-storage", p, lookup([podStats(p, { main: { rootfs: 2 * MI, logs: MI } })]))).toBe(
      "The node was low on resource: ephemeral-storage. Container main was using 3Mi, which exceeds its request of 1Mi. ",
    );
  });
});
