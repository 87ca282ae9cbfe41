import { describe, expect, test } from "bun:test";
import type { Pod } from "kubernetes-types/core/v1";
import type { SourceReport } from "../../src/config/pod-config";
import { PodConfig } from "../../src/config/pod-config";
import { PushSource } from "../../src/config/push-source";
import { FakeClock } from "../../src/util/clock";
import { fakeLoader, quietLog } from "./fake-loader";

function pod(name: string, image = "busybox", nodeName?: string, namespace?: string): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, ...(namespace ? { namespace } : {}) },
    spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: "c", image }] },
  };
}

function setup() {
  const src = new PushSource({ nodeName: "node1", loader: fakeLoader, log: quietLog() });
  const snaps: SourceReport[] = [];
  return { src, snaps, start: () => src.start((s) => snaps.push(s)) };
}

const names = (s: SourceReport) => s.pods.map((p) => `${p.metadata?.namespace}/${p.metadata?.name}`);

describe("PushSource", () => {
  test("start sends the current set at once, so the api source counts as seen", () => {
    const { snaps, start } = setup();
    start();
    expect(snaps).toEqual([{ source: "api", pods: [], errors: [] }]);
  });

  test("add loads the pod (origin api) and sends a snapshot", () => {
    const { src, snaps, start } = setup();
    start();
    const r = src.add(pod("web"));
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.pod.spec?.nodeName).toBe("node1");
    expect(snaps).toHaveLength(2);
    expect(names(snaps[1]!)).toEqual(["default/web"]);
    expect(snaps[1]!.source).toBe("api");
  });

  test("a pod bound to another node is refused with 403 naming both nodes", () => {
    const { src, snaps, start } = setup();
    start();
    const r = src.add(pod("web", "busybox", "node2"));
    expect(r).toEqual({ ok: false, status: 403, message: 'pod default/web is bound to node "node2"; this is node "node1"' });
    expect(snaps).toHaveLength(1);
    expect(src.add(pod("web", "busybox", "node1")).ok).toBe(true);
  });

  test("a pod that does not load is refused with 422 and the loader's errors", () => {
    const { src, snaps, start } = setup();
    start();
    const r = src.add(pod("web", ""));
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.status).toBe(422);
      expect(r.message).toBe("POST /pods:1:1: spec.containers[0].image: Required value");
    }
    expect(snaps).toHaveLength(1);
  });

  test("pushing the same namespace/name again replaces it; identical content sends nothing", () => {
    const { src, snaps, start } = setup();
    start();
    src.add(pod("web"));
    src.add(pod("db", "postgres", undefined, "data"));
    src.add(pod("web"));
    expect(snaps).toHaveLength(3);
    src.add(pod("web", "nginx"));
    expect(snaps).toHaveLength(4);
    expect(names(snaps[3]!)).toEqual(["default/web", "data/db"]);
    expect(snaps[3]!.pods[0]!.spec?.containers[0]?.image).toBe("nginx");
  });

  test("remove deletes by namespace/name and says whether there was one", () => {
    const { src, snaps, start } = setup();
    start();
    src.add(pod("web"));
    expect(src.remove("default", "nope")).toBe(false);
    expect(snaps).toHaveLength(2);
    expect(src.remove("default", "web")).toBe(true);
    expect(snaps).toHaveLength(3);
    expect(snaps[2]!.pods).toEqual([]);
  });

  test("pods pushed before start are in the first snapshot; through PodConfig they are ADDed and REMOVEd", async () => {
    const { src, snaps, start } = setup();
    src.add(pod("early"));
    start();
    expect(names(snaps[0]!)).toEqual(["default/early"]);
    const config = new PodConfig({ clock: new FakeClock(), log: quietLog() });
    expect(config.apply(snaps[0]!).map((u) => u.op)).toEqual(["ADD"]);
    expect(config.seenAllSources(["api"])).toBe(true);
    src.remove("default", "early");
    expect(config.apply(snaps[1]!).map((u) => u.op)).toEqual(["REMOVE"]);
    expect(await src.scan()).toEqual({ source: "api", pods: [], errors: [] });
  });
});
