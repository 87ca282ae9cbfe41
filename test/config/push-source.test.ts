import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod, PodList } from "kubernetes-types/core/v1";
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
    expect(snaps).toEqual([{ source: "push", pods: [], errors: [] }]);
  });

  test("add loads the pod (origin api) and sends a snapshot", () => {
    const { src, snaps, start } = setup();
    start();
    const r = src.add(pod("web"));
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.pod.spec?.nodeName).toBe("node1");
    expect(snaps).toHaveLength(2);
    expect(names(snaps[1]!)).toEqual(["default/web"]);
    expect(snaps[1]!.source).toBe("push");
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
    expect(config.seenAllSources(["push"])).toBe(true);
    src.remove("default", "early");
    expect(config.apply(snaps[1]!).map((u) => u.op)).toEqual(["REMOVE"]);
    expect(await src.scan()).toEqual({ source: "push", pods: [], errors: [] });
  });

  describe("with a state file", () => {
    const dirs: string[] = [];
    const stateDir = () => {
      const d = mkdtempSync(join(tmpdir(), "push-state-"));
      dirs.push(d);
      return d;
    };
    afterAll(() => {
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    });
    const withState = (file: string) => new PushSource({ nodeName: "node1", loader: fakeLoader, log: quietLog(), stateFile: file });

    test("a restarted source has the pods pushed before, with the same UIDs, and forgets removed ones", () => {
      const file = join(stateDir(), "pushed-pods.json");
      const first = withState(file);
      first.start(() => {});
      const web = first.add(pod("web"));
      first.add(pod("db", "postgres", undefined, "data"));
      first.remove("data", "db");
      const second = withState(file);
      const snaps: SourceReport[] = [];
      second.start((s) => snaps.push(s));
      expect(names(snaps[0]!)).toEqual(["default/web"]);
      expect(web.ok && snaps[0]!.pods[0]!.metadata?.uid).toBe(web.ok ? web.pod.metadata!.uid! : "");
      // What is kept is the pod as it was pushed, not the loaded one.
      const kept = JSON.parse(readFileSync(file, "utf8")) as PodList;
      expect(kept.items.map((p) => p.metadata?.name)).toEqual(["web"]);
      expect(kept.items[0]!.metadata?.uid).toBeUndefined();
    });

    test("an unreadable state file is set aside, never overwritten, and the set starts empty", () => {
      const dir = stateDir();
      const file = join(dir, "pushed-pods.json");
      writeFileSync(file, "{ not json");
      const src = withState(file);
      const snaps: SourceReport[] = [];
      src.start((s) => snaps.push(s));
      expect(snaps[0]!.pods).toEqual([]);
      const aside = readdirSync(dir).filter((n) => n.startsWith("pushed-pods.json.unreadable-"));
      expect(aside).toHaveLength(1);
      expect(readFileSync(join(dir, aside[0]!), "utf8")).toBe("{ not json");
    });

    test("a kept pod that no longer loads is dropped, the others stay", () => {
      const file = join(stateDir(), "pushed-pods.json");
      const bad = pod("bad");
      bad.spec!.nodeName = "elsewhere";
      writeFileSync(file, JSON.stringify({ apiVersion: "v1", kind: "PodList", items: [pod("good"), bad] }));
      const snaps: SourceReport[] = [];
      withState(file).start((s) => snaps.push(s));
      expect(names(snaps[0]!)).toEqual(["default/good"]);
    });
  });
});
