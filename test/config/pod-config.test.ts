import { describe, expect, test } from "bun:test";
import type { Pod } from "kubernetes-types/core/v1";
import { ApiserverSource } from "../../src/config/apiserver-source";
import { PodConfig } from "../../src/config/pod-config";
import { CONFIG_HASH_ANNOTATION, CONFIG_MIRROR_ANNOTATION, CONFIG_SEEN_ANNOTATION, CONFIG_SOURCE_ANNOTATION } from "../../src/api/annotations";
import type { PodUpdate } from "../../src/config/types";
import type { PodSourceName } from "../../src/manifest/types";
import { FakeClock } from "../../src/util/clock";
import { quietLog } from "./fake-loader";

function pod(
  name: string,
  uid: string,
  over: {
    image?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    phase?: string;
    deletionTimestamp?: string;
    namespace?: string;
  } = {},
): Pod {
  return {
    metadata: {
      name,
      namespace: over.namespace ?? "default",
      uid,
      ...(over.labels ? { labels: over.labels } : {}),
      annotations: { [CONFIG_HASH_ANNOTATION]: uid, ...(over.annotations ?? {}) },
      ...(over.deletionTimestamp ? { deletionTimestamp: over.deletionTimestamp, deletionGracePeriodSeconds: 30 } : {}),
    },
    spec: { containers: [{ name: "c", image: over.image ?? "busybox" }] },
    status: { phase: over.phase ?? "Pending" },
  };
}

function setup() {
  const clock = new FakeClock();
  const config = new PodConfig({ clock, log: quietLog() });
  const apply = (source: PodSourceName, pods: Pod[], complete?: boolean) =>
    config.apply({ source, pods, errors: [], ...(complete === undefined ? {} : { complete }) });
  return { clock, config, apply };
}

/** op → names, in emitted order. */
function summary(updates: PodUpdate[]): [string, string[]][] {
  return updates.map((u) => [u.op, u.pods.map((p) => p.metadata?.name ?? "")]);
}

describe("PodConfig merge", () => {
  test("new pods are ADDed with config.source and an RFC 3339 config.seen", () => {
    const { apply, clock } = setup();
    const updates = apply("file", [pod("a", "u1"), pod("b", "u2")]);
    expect(summary(updates)).toEqual([["ADD", ["a", "b"]]]);
    const a = updates[0]!.pods[0]!;
    expect(a.metadata?.annotations?.[CONFIG_SOURCE_ANNOTATION]).toBe("file");
    expect(a.metadata?.annotations?.[CONFIG_SEEN_ANNOTATION]).toBe(new Date(clock.now()).toISOString());
    expect(a.metadata?.annotations?.[CONFIG_SEEN_ANNOTATION]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    expect(updates[0]!.source).toBe("file");
  });

  test("the same set again is a no-op, and so is a change to local annotations only", () => {
    const { apply } = setup();
    apply("file", [pod("a", "u1")]);
    expect(apply("file", [pod("a", "u1")])).toEqual([]);
    const local = pod("a", "u1", {
      annotations: { [CONFIG_SOURCE_ANNOTATION]: "http", [CONFIG_SEEN_ANNOTATION]: "1999-01-01T00:00:00Z", [CONFIG_MIRROR_ANNOTATION]: "x" },
    });
    expect(apply("file", [local])).toEqual([]);
  });

  test("spec, label and annotation changes are UPDATEs; status alone is a RECONCILE", () => {
    const { apply } = setup();
    apply("api", [pod("a", "u1"), pod("b", "u2"), pod("c", "u3"), pod("d", "u4")]);
    const updates = apply("api", [
      pod("a", "u1", { image: "nginx" }),
      pod("b", "u2", { labels: { tier: "web" } }),
      pod("c", "u3", { annotations: { note: "x" } }),
      pod("d", "u4", { phase: "Running" }),
    ]);
    expect(summary(updates)).toEqual([
      ["UPDATE", ["a", "b", "c"]],
      ["RECONCILE", ["d"]],
    ]);
    expect(updates[0]!.pods[0]!.spec?.containers[0]?.image).toBe("nginx");
    expect(updates[0]!.pods[1]!.metadata?.labels).toEqual({ tier: "web" });
    expect(updates[0]!.pods[2]!.metadata?.annotations?.note).toBe("x");
    expect(updates[1]!.pods[0]!.status?.phase).toBe("Running");
  });

  test("an UPDATE carries the new generation with the spec it numbers (checkAndUpdatePod), for observedGeneration", () => {
    const { apply } = setup();
    const gen = (p: Pod, generation: number): Pod => ({ ...p, metadata: { ...p.metadata, generation } });
    apply("api", [gen(pod("a", "u1"), 1)]);
    const updates = apply("api", [gen(pod("a", "u1", { image: "nginx" }), 2)]);
    expect(summary(updates)).toEqual([["UPDATE", ["a"]]]);
    expect(updates[0]!.pods[0]!.metadata?.generation).toBe(2);
    // The first graceful deletion bumps it too.
    const deleted = apply("api", [gen(pod("a", "u1", { image: "nginx", deletionTimestamp: "2026-01-01T00:00:30Z" }), 3)]);
    expect(deleted[0]!.pods[0]!.metadata?.generation).toBe(3);
  });

  test("a deletion timestamp makes a DELETE, not an UPDATE", () => {
    const { apply } = setup();
    apply("api", [pod("a", "u1")]);
    const updates = apply("api", [pod("a", "u1", { deletionTimestamp: "2026-01-01T00:00:30Z" })]);
    expect(summary(updates)).toEqual([["DELETE", ["a"]]]);
    expect(updates[0]!.pods[0]!.metadata?.deletionTimestamp).toBe("2026-01-01T00:00:30Z");
    expect(updates[0]!.pods[0]!.metadata?.deletionGracePeriodSeconds).toBe(30);
    expect(apply("api", [pod("a", "u1", { deletionTimestamp: "2026-01-01T00:00:30Z" })])).toEqual([]);
  });

  test("UIDs that are gone are REMOVEd", () => {
    const { apply, config } = setup();
    apply("file", [pod("a", "u1"), pod("b", "u2")]);
    expect(summary(apply("file", [pod("b", "u2")]))).toEqual([["REMOVE", ["a"]]]);
    expect(summary(apply("file", []))).toEqual([["REMOVE", ["b"]]]);
    expect(config.pods()).toEqual([]);
  });

  test("one merge emits REMOVE, ADD, UPDATE, DELETE, RECONCILE in that order", () => {
    const { apply } = setup();
    apply("api", [pod("gone", "u0"), pod("upd", "u1"), pod("del", "u2"), pod("rec", "u3"), pod("same", "u4")]);
    const updates = apply("api", [
      pod("rec", "u3", { phase: "Running" }),
      pod("del", "u2", { deletionTimestamp: "2026-01-01T00:01:00Z" }),
      pod("upd", "u1", { image: "nginx" }),
      pod("new", "u5"),
      pod("same", "u4"),
    ]);
    expect(summary(updates)).toEqual([
      ["REMOVE", ["gone"]],
      ["ADD", ["new"]],
      ["UPDATE", ["upd"]],
      ["DELETE", ["del"]],
      ["RECONCILE", ["rec"]],
    ]);
  });

  test("an edited static pod (new UID, same name) is REMOVE old + ADD new", () => {
    const { apply } = setup();
    apply("file", [pod("web-node1", "old")]);
    const updates = apply("file", [pod("web-node1", "new", { image: "nginx" })]);
    expect(updates.map((u) => [u.op, u.pods.map((p) => p.metadata?.uid)])).toEqual([
      ["REMOVE", ["old"]],
      ["ADD", ["new"]],
    ]);
  });

  test("config.seen is stamped once and stays through updates", async () => {
    const { apply, clock } = setup();
    const first = apply("api", [pod("a", "u1")])[0]!.pods[0]!.metadata?.annotations?.[CONFIG_SEEN_ANNOTATION];
    await clock.advance(60_000);
    const updated = apply("api", [pod("a", "u1", { image: "nginx", annotations: { [CONFIG_SEEN_ANNOTATION]: "bogus" } })]);
    expect(updated[0]!.op).toBe("UPDATE");
    expect(updated[0]!.pods[0]!.metadata?.annotations?.[CONFIG_SEEN_ANNOTATION]).toBe(first!);
    const reconciled = apply("api", [pod("a", "u1", { image: "nginx", phase: "Running" })]);
    expect(reconciled[0]!.op).toBe("RECONCILE");
    expect(reconciled[0]!.pods[0]!.metadata?.annotations?.[CONFIG_SEEN_ANNOTATION]).toBe(first!);
    // A new UID is a new pod, seen now.
    const added = apply("api", [pod("a", "u2")]).find((u) => u.op === "ADD")!;
    expect(added.pods[0]!.metadata?.annotations?.[CONFIG_SEEN_ANNOTATION]).toBe(new Date(clock.now()).toISOString());
  });

  test("a duplicate namespace/name within one source: the later pod is dropped and reported", () => {
    const { apply, config } = setup();
    const updates = apply("http", [pod("a", "u1"), pod("a", "u2"), pod("a", "u3", { namespace: "other" })]);
    expect(updates.map((u) => [u.op, u.pods.map((p) => p.metadata?.uid)])).toEqual([["ADD", ["u1", "u3"]]]);
    expect(config.errors()).toHaveLength(1);
    expect(config.errors()[0]!.message).toContain('duplicate pod name "default/a"');
    expect(config.errors()[0]!.message).toContain("u2");
    // The duplicate goes away: so does the error.
    expect(apply("http", [pod("a", "u1"), pod("a", "u3", { namespace: "other" })])).toEqual([]);
    expect(config.errors()).toEqual([]);
  });

  test("the same name in two namespaces of two sources is no conflict; sources merge independently", () => {
    const { apply, config } = setup();
    apply("file", [pod("a", "u1")]);
    apply("http", [pod("a", "u2", { namespace: "other" })]);
    expect(config.errors()).toEqual([]);
    expect(summary(apply("http", []))).toEqual([["REMOVE", ["a"]]]);
    expect(config.pods().map((p) => p.metadata?.uid)).toEqual(["u1"]);
  });
  test("seenAllSources: true once every expected source sent a complete set", () => {
    const { apply, config } = setup();
    expect(config.seenAllSources([])).toBe(true);
    expect(config.seenAllSources(["file", "http"])).toBe(false);
    apply("file", []);
    expect(config.seenAllSources(["file"])).toBe(true);
    expect(config.seenAllSources(["file", "http"])).toBe(false);
    // An unreachable URL before its first answer: its errors count, the source is not seen yet.
    config.apply({ source: "http", pods: [], errors: [{ file: "http://x", line: 1, column: 1, field: "", message: "connection refused" }], complete: false });
    expect(config.seenAllSources(["file", "http"])).toBe(false);
    expect(config.errors().map((e) => e.message)).toEqual(["connection refused"]);
    apply("http", [], true);
    expect(config.seenAllSources(["file", "http"])).toBe(true);
    expect(config.errors()).toEqual([]);
  });

  test("errors() gathers every source's manifest errors", () => {
    const { config } = setup();
    const err = (file: string) => ({ file, line: 3, column: 5, field: "spec", message: "bad" });
    config.apply({ source: "file", pods: [], errors: [err("/etc/a.yaml")] });
    config.apply({ source: "http", pods: [], errors: [err("http://h/p")] });
    expect(config.errors().map((e) => e.file)).toEqual(["/etc/a.yaml", "http://h/p"]);
    config.apply({ source: "file", pods: [], errors: [] });
    expect(config.errors().map((e) => e.file)).toEqual(["http://h/p"]);
  });

  test("neither the input pods nor the pods handed out share state with the store", () => {
    const { apply, config } = setup();
    const input = pod("a", "u1");
    const updates = apply("api", [input]);
    expect(input.metadata?.annotations?.[CONFIG_SOURCE_ANNOTATION]).toBeUndefined();
    (updates[0]!.pods[0]!.spec!.containers[0] as { image: string }).image = "mutated";
    (config.pods()[0]!.metadata as { name: string }).name = "mutated";
    expect(apply("api", [pod("a", "u1")])).toEqual([]);
    expect(config.pods()[0]!.metadata?.name).toBe("a");
  });

  test("listeners get every update in order; unsubscribe stops them", () => {
    const { apply, config } = setup();
    const seen: string[] = [];
    const off = config.onUpdate((u) => seen.push(`${u.source}:${u.op}:${u.pods.length}`));
    apply("file", [pod("a", "u1")]);
    apply("file", [pod("b", "u2")]);
    off();
    apply("file", []);
    expect(seen).toEqual(["file:ADD:1", "file:REMOVE:1", "file:ADD:1"]);
  });

  test("a listener that comes late first gets the current pods as one ADD per source", () => {
    const { apply, config } = setup();
    apply("api", [pod("a", "u1"), pod("b", "u2")]);
    apply("file", []);
    apply("http", [pod("c", "u3")]);
    const seen: string[] = [];
    config.onUpdate((u) => seen.push(`${u.source}:${u.op}:${u.pods.map((p) => p.metadata?.name).join(",")}`));
    apply("http", []);
    expect(seen).toEqual(["api:ADD:a,b", "http:ADD:c", "http:REMOVE:c"]);
  });
});

/** op → source:uid, in emitted order. */
function bySourceAndUid(updates: PodUpdate[]): [string, string[]][] {
  return updates.map((u) => [u.op, u.pods.map((p) => `${u.source}:${p.metadata?.uid}`)]);
}

describe("PodConfig: one identity, one source (issue 12)", () => {
  test("a pod with another source's UID is refused and reported; the holder is untouched", () => {
    const { apply, config } = setup();
    apply("file", [pod("web-node1", "u1")]);
    const updates = apply("push", [pod("intruder", "u1", { image: "evil" })]);
    expect(updates).toEqual([]);
    expect(config.pods().map((p) => `${p.metadata?.name}:${p.spec?.containers[0]?.image}`)).toEqual(["web-node1:busybox"]);
    const errors = config.errors();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ file: "push", field: "metadata.uid" });
    expect(errors[0]!.message).toBe(
      "pod default/intruder (UID u1) from source push is refused: UID u1 is held by pod default/web-node1 of source file; it is admitted when that pod goes",
    );
  });

  test("a pod with another source's namespace/name is refused; conflict() says so for a push to answer 409", () => {
    const { apply, config } = setup();
    apply("file", [pod("web-node1", "u1")]);
    expect(config.conflict(pod("web-node1", "u9"), "push")).toEqual({
      field: "metadata.name",
      holder: "file",
      holderUid: "u1",
      holderName: "default/web-node1",
      message: "pod default/web-node1 is held by source file (UID u1)",
    });
    expect(config.conflict(pod("web-node1", "u9"), "file")).toBeUndefined();
    expect(config.conflict(pod("web-node1", "u9", { namespace: "other" }), "push")).toBeUndefined();
    expect(config.conflict(pod("other", "u1"), "api")?.field).toBe("metadata.uid");
    expect(apply("api", [pod("web-node1", "u9"), pod("db", "u8")]).map((u) => [u.op, u.pods.map((p) => p.metadata?.uid)])).toEqual([["ADD", ["u8"]]]);
    expect(config.errors().map((e) => [e.file, e.field])).toEqual([["api", "metadata.name"]]);
  });

  test("when the holder goes, the refused pod is admitted in the same merge: REMOVE of the holder, then ADD", () => {
    const { apply, config } = setup();
    const seen: string[] = [];
    config.onUpdate((u) => seen.push(`${u.source}:${u.op}:${u.pods.map((p) => p.metadata?.uid).join(",")}`));
    apply("file", [pod("web-node1", "u1")]);
    apply("push", [pod("web-node1", "u2"), pod("other", "u3")]);
    expect(config.pods().map((p) => p.metadata?.uid)).toEqual(["u1", "u3"]);
    const updates = apply("file", []);
    expect(bySourceAndUid(updates)).toEqual([
      ["REMOVE", ["file:u1"]],
      ["ADD", ["push:u2"]],
    ]);
    expect(seen).toEqual(["file:ADD:u1", "push:ADD:u3", "file:REMOVE:u1", "push:ADD:u2"]);
    expect(config.errors()).toEqual([]);
    // Now push holds the name: the file pod coming back is the one refused.
    expect(apply("file", [pod("web-node1", "u1")])).toEqual([]);
    expect(config.errors().map((e) => e.file)).toEqual(["file"]);
  });

  test("no update of a refused pod is lost: its source's latest set is what gets admitted", () => {
    const { apply, config } = setup();
    apply("file", [pod("web-node1", "u1")]);
    apply("push", [pod("web-node1", "u2")]);
    apply("push", [pod("web-node1", "u4", { image: "nginx" })]);
    const updates = apply("file", []);
    expect(bySourceAndUid(updates)).toEqual([
      ["REMOVE", ["file:u1"]],
      ["ADD", ["push:u4"]],
    ]);
    expect(updates[1]!.pods[0]!.spec?.containers[0]?.image).toBe("nginx");
  });

  test("a holder edited to a new UID keeps its name: the refused pod keeps waiting", () => {
    const { apply, config } = setup();
    apply("file", [pod("web-node1", "u1")]);
    apply("push", [pod("web-node1", "u2")]);
    expect(bySourceAndUid(apply("file", [pod("web-node1", "u5", { image: "nginx" })]))).toEqual([
      ["REMOVE", ["file:u1"]],
      ["ADD", ["file:u5"]],
    ]);
    expect(config.errors().map((e) => e.file)).toEqual(["push"]);
    expect(config.pods().map((p) => p.metadata?.uid)).toEqual(["u5"]);
  });

  test("two sources waiting for one name: the first refused is the first admitted", () => {
    const { apply, config } = setup();
    apply("file", [pod("web", "u1")]);
    apply("http", [pod("web", "u2")]);
    apply("push", [pod("web", "u3")]);
    expect(bySourceAndUid(apply("file", []))).toEqual([
      ["REMOVE", ["file:u1"]],
      ["ADD", ["http:u2"]],
    ]);
    expect(config.errors().map((e) => `${e.file}:${e.message}`)).toEqual([
      "push:pod default/web (UID u3) from source push is refused: pod default/web is held by source http (UID u2); it is admitted when that pod goes",
    ]);
    expect(bySourceAndUid(apply("http", []))).toEqual([
      ["REMOVE", ["http:u2"]],
      ["ADD", ["push:u3"]],
    ]);
  });

  test("a UID that cannot name a folder is refused from any source, naming metadata.uid", () => {
    const { apply, config } = setup();
    const bad = ["..", ".", "../../../tmp/victim", "/abs", "a/b", "UPPER", "-lead", "trail-", "x".repeat(129), "", "nul\0"];
    const updates = apply("api", [
      ...bad.map((uid, i) => pod(`p${i}`, uid)),
      pod("ok", "0b9c5d1e-7f3a-4e2b-9c8d-1a2b3c4d5e6f"),
      pod("hash", "8c0a3f9e2b7d4c1a6e5f0b9d8c7a6e5f"),
    ]);
    expect(bySourceAndUid(updates)).toEqual([["ADD", ["api:0b9c5d1e-7f3a-4e2b-9c8d-1a2b3c4d5e6f", "api:8c0a3f9e2b7d4c1a6e5f0b9d8c7a6e5f"]]]);
    const errors = config.errors();
    expect(errors).toHaveLength(bad.length);
    expect(errors.every((e) => e.file === "api" && e.field === "metadata.uid" && e.message.includes("is refused: metadata.uid"))).toBe(true);
  });

  test("mirror pods are not pods of the API source: a static pod and its mirror never conflict", async () => {
    const { config } = setup();
    const informer = {
      hasSynced: true,
      list: () => [
        {
          metadata: { name: "web-node1", namespace: "default", uid: "0b9c5d1e-7f3a-4e2b-9c8d-1a2b3c4d5e6f", annotations: { [CONFIG_MIRROR_ANNOTATION]: "u1" } },
          spec: { nodeName: "node1", containers: [{ name: "c", image: "busybox" }] },
        },
      ],
      onChange: () => {},
      synced: () => Promise.resolve(),
    };
    const api = new ApiserverSource(informer, "node1");
    config.apply({ source: "file", pods: [pod("web-node1", "u1")], errors: [] });
    config.apply(api.snapshot());
    config.apply({ source: "file", pods: [pod("web-node1", "u1")], errors: [] });
    expect(config.errors()).toEqual([]);
    expect(config.pods().map((p) => p.metadata?.uid)).toEqual(["u1"]);
  });
});
