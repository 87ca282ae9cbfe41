import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod, PodList } from "kubernetes-types/core/v1";
import type { SourceReport } from "../../src/config/pod-config";
import { PodConfig } from "../../src/config/pod-config";
import { pushPolicyCheck } from "../../src/config/push-policy";
import { conflictCheck, MAX_PUSHED_PODS, PushSource, PushUnavailableError } from "../../src/config/push-source";
import { loadStaticPods } from "../../src/manifest/load";
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

    test("the state file is the owner's alone (0600), even one an older agent wrote 0644", () => {
      const file = join(stateDir(), "pushed-pods.json");
      const src = withState(file);
      src.start(() => {});
      src.add(pod("web"));
      expect(statSync(file).mode & 0o777).toBe(0o600);
      chmodSync(file, 0o644);
      withState(file);
      expect(statSync(file).mode & 0o777).toBe(0o600);
    });

    test("an unreadable state file means 'not seen yet', not 'no pods': nothing is orphaned, pushes get 503, a copy is set aside", () => {
      const dir = stateDir();
      const file = join(dir, "pushed-pods.json");
      writeFileSync(file, "{ not json");
      const src = withState(file);
      const snaps: SourceReport[] = [];
      src.start((s) => snaps.push(s));
      expect(snaps[0]!.pods).toEqual([]);
      expect(snaps[0]!.complete).toBe(false);
      expect(snaps[0]!.errors[0]!.message).toContain("cannot be read back");
      const config = new PodConfig({ clock: new FakeClock(), log: quietLog() });
      config.apply(snaps[0]!);
      expect(config.seenAllSources(["push"])).toBe(false);
      expect(src.problems()).toHaveLength(1);
      expect(src.problems()[0]).toContain(file);
      // The file stays where it is; a copy is kept aside, once.
      expect(readFileSync(file, "utf8")).toBe("{ not json");
      const aside = () => readdirSync(dir).filter((n) => n.startsWith("pushed-pods.json.unreadable-"));
      expect(aside()).toHaveLength(1);
      expect(readFileSync(join(dir, aside()[0]!), "utf8")).toBe("{ not json");
      const r = src.add(pod("web"));
      expect(r).toMatchObject({ ok: false, status: 503 });
      if (!r.ok) expect(r.message).toContain("POST/DELETE /pods answer 503 until the file is fixed or removed");
      expect(() => src.remove("default", "web")).toThrow(PushUnavailableError);
      expect(readFileSync(file, "utf8")).toBe("{ not json");
      expect(aside()).toHaveLength(1);
      expect(snaps).toHaveLength(1);
    });

    test("a state file fixed by the operator is read on the next push: its pods come back with their UIDs, then the push", () => {
      const file = join(stateDir(), "pushed-pods.json");
      const first = withState(file);
      first.start(() => {});
      const kept = first.add(pod("kept"));
      const good = readFileSync(file, "utf8");
      writeFileSync(file, good.slice(0, 10));
      const src = withState(file);
      const snaps: SourceReport[] = [];
      src.start((s) => snaps.push(s));
      expect(snaps[0]!.complete).toBe(false);
      writeFileSync(file, good);
      expect(src.add(pod("new")).ok).toBe(true);
      expect(src.problems()).toEqual([]);
      expect(snaps.map((s) => [s.complete ?? true, names(s).join(",")])).toEqual([
        [false, ""],
        [true, "default/kept"],
        [true, "default/kept,default/new"],
      ]);
      expect(snaps[1]!.pods[0]!.metadata?.uid).toBe(kept.ok ? kept.pod.metadata!.uid! : "?");
    });

    test("a state file removed by the operator means no pushed pods, said plainly", () => {
      const file = join(stateDir(), "pushed-pods.json");
      writeFileSync(file, "garbage");
      const src = withState(file);
      const snaps: SourceReport[] = [];
      src.start((s) => snaps.push(s));
      rmSync(file);
      expect(src.reload()).toEqual([]);
      expect(snaps.map((s) => s.complete ?? true)).toEqual([false, true]);
      expect(src.add(pod("web")).ok).toBe(true);
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

  test("a kept pod a check would refuse now is kept running and reported", () => {
    const file = join(mkdtempSync(join(tmpdir(), "push-state-")), "pushed-pods.json");
    const privileged = { ...pod("root"), spec: { containers: [{ name: "c", image: "busybox", securityContext: { privileged: true } }] } };
    writeFileSync(file, JSON.stringify({ apiVersion: "v1", kind: "PodList", items: [privileged, pod("plain")] }));
    const src = new PushSource({ nodeName: "node1", loader: loadStaticPods, log: quietLog(), stateFile: file, checks: [pushPolicyCheck("restricted")] });
    const snaps: SourceReport[] = [];
    src.start((s) => snaps.push(s));
    expect(names(snaps[0]!)).toEqual(["default/root", "default/plain"]);
    expect(src.problems()).toHaveLength(1);
    expect(src.problems()[0]).toContain("pushed pod default/root would be refused now (403: ");
    rmSync(file);
  });
});

describe("PushSource: what a push may not do (issue 12)", () => {
  const real = (opts: Partial<ConstructorParameters<typeof PushSource>[0]> = {}) => {
    const src = new PushSource({ nodeName: "node1", loader: loadStaticPods, log: quietLog(), ...opts });
    const snaps: SourceReport[] = [];
    src.start((s) => snaps.push(s));
    return { src, snaps };
  };

  test("the UID is the agent's hash: a client's uid, even a static pod's or '..', is ignored", () => {
    const { src } = real();
    const plain = src.add(pod("web"));
    src.remove("default", "web");
    for (const uid of ["..", "../../../tmp/victim", "0b9c5d1e-7f3a-4e2b-9c8d-1a2b3c4d5e6f"]) {
      const r = src.add({ ...pod("web"), metadata: { name: "web", uid } });
      expect(r.ok && plain.ok && r.pod.metadata!.uid === plain.pod.metadata!.uid).toBe(true);
      src.remove("default", "web");
    }
  });

  test("a pod whose name or UID another source holds is refused with 409, naming the holder; nothing is kept", () => {
    const config = new PodConfig({ clock: new FakeClock(), log: quietLog() });
    const staticPod = loadStaticPods(JSON.stringify(pod("web")), { source: "file", location: "/m/web.yaml", nodeName: "node1" });
    if (!staticPod.ok) throw new Error("static pod does not load");
    config.apply({ source: "file", pods: staticPod.pods, errors: [] });
    const { src, snaps } = real({ checks: [conflictCheck(config)] });
    const r = src.add(pod("web-node1"));
    expect(r).toEqual({
      ok: false,
      status: 409,
      message: `pod default/web-node1 is held by source file (UID ${staticPod.pods[0]!.metadata!.uid}): a pushed pod cannot take over another source's pod`,
    });
    expect(snaps).toHaveLength(1);
    expect(src.add(pod("web-node1", "busybox", undefined, "other")).ok).toBe(true);
  });

  test("--push-policy restricted refuses privileged, host namespaces, hostPath and extra capabilities with 403 naming the field", () => {
    const { src, snaps } = real({ checks: [pushPolicyCheck("restricted")] });
    const cases: [Pod, string][] = [
      [
        { ...pod("a"), spec: { containers: [{ name: "c", image: "busybox", securityContext: { privileged: true } }] } },
        "spec.containers[0].securityContext.privileged",
      ],
      [{ ...pod("b"), spec: { hostNetwork: true, containers: [{ name: "c", image: "busybox" }] } }, "spec.hostNetwork"],
      [{ ...pod("c"), spec: { hostPID: true, containers: [{ name: "c", image: "busybox" }] } }, "spec.hostPID"],
      [{ ...pod("d"), spec: { hostIPC: true, containers: [{ name: "c", image: "busybox" }] } }, "spec.hostIPC"],
      [
        { ...pod("e"), spec: { volumes: [{ name: "root", hostPath: { path: "/" } }], containers: [{ name: "c", image: "busybox" }] } },
        "spec.volumes[0].hostPath",
      ],
      [
        {
          ...pod("f"),
          spec: {
            initContainers: [{ name: "i", image: "busybox", securityContext: { capabilities: { add: ["SYS_ADMIN", "CHOWN"] } } }],
            containers: [{ name: "c", image: "busybox" }],
          },
        },
        "spec.initContainers[0].securityContext.capabilities.add: SYS_ADMIN not allowed",
      ],
    ];
    for (const [p, field] of cases) {
      const r = src.add(p);
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.status).toBe(403);
        expect(r.message).toContain("--push-policy restricted");
        expect(r.message).toContain(field);
      }
    }
    expect(snaps).toHaveLength(1);
    expect(
      src.add({ ...pod("ok"), spec: { containers: [{ name: "c", image: "busybox", securityContext: { capabilities: { add: ["NET_BIND_SERVICE"] } } }] } }).ok,
    ).toBe(true);
    // The default policy has no check at all.
    expect(pushPolicyCheck("unrestricted")).toBeUndefined();
    expect(real().src.add(cases[0]![0]).ok).toBe(true);
  });

  test("the set is bounded: one pod more is refused with 403, replacing one is not", () => {
    expect(MAX_PUSHED_PODS).toBe(1000);
    const src = new PushSource({ nodeName: "node1", loader: fakeLoader, log: quietLog(), maxPods: 2 });
    src.start(() => {});
    expect(src.add(pod("a")).ok).toBe(true);
    expect(src.add(pod("b")).ok).toBe(true);
    expect(src.add(pod("c"))).toEqual({ ok: false, status: 403, message: "pod default/c is refused: the agent keeps at most 2 pushed pods; DELETE one first" });
    expect(src.add(pod("b", "nginx")).ok).toBe(true);
    src.remove("default", "a");
    expect(src.add(pod("c")).ok).toBe(true);
  });

  test("checks run in order and see the loaded pod; the first refusal answers", () => {
    const seen: string[] = [];
    const src = new PushSource({
      nodeName: "node1",
      loader: fakeLoader,
      log: quietLog(),
      checks: [
        undefined,
        (p) => (seen.push(`${p.spec?.nodeName}:${p.metadata?.uid?.length}`), undefined),
        () => ({ status: 418, message: "no" }),
        () => ({ status: 500, message: "never asked" }),
      ],
    });
    src.start(() => {});
    expect(src.add(pod("web"))).toEqual({ ok: false, status: 418, message: "no" });
    expect(seen).toEqual(["node1:32"]);
  });
});
