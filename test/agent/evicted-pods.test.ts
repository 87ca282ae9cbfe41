import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EvictedPods } from "../../src/agent/evicted-pods";
import { ALL_LEVELS, linesLog } from "../fakes/recording-log";

const root = mkdtempSync(join(tmpdir(), "evicted-pods-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const evicted = { reason: "Evicted", message: 'Usage of EmptyDir volume "scratch" exceeds the limit "1Mi". ' };

test("evictions are kept in a 0600 file across instances; delete and prune forget them", () => {
  const file = join(root, "a", "evicted-pods.json");
  const pods = new EvictedPods(file);
  pods.add("u1", evicted);
  pods.add("u2", evicted);
  pods.add("u3", evicted);
  expect(statSync(file).mode & 0o777).toBe(0o600);
  const again = new EvictedPods(file);
  expect(again.get("u1")).toEqual(evicted);
  again.delete("u1");
  again.prune(new Set(["u2"]));
  expect(new EvictedPods(file).get("u1")).toBeUndefined();
  expect(new EvictedPods(file).get("u2")).toEqual(evicted);
  expect(new EvictedPods(file).get("u3")).toBeUndefined();
});

test("an unreadable file is said and ignored; malformed entries are skipped", () => {
  const { log, lines } = linesLog(ALL_LEVELS);
  const bad = join(root, "bad.json");
  writeFileSync(bad, "{not json");
  expect(new EvictedPods(bad, log).get("u1")).toBeUndefined();
  expect(lines).toHaveLength(1);
  expect(lines[0]).toStartWith(`warn record of evicted pods unreadable, starting without it path=${bad} err=`);
  const mixed = join(root, "mixed.json");
  writeFileSync(mixed, JSON.stringify({ u1: evicted, u2: { reason: 7 }, u3: null }));
  const pods = new EvictedPods(mixed, log);
  expect(pods.get("u1")).toEqual(evicted);
  expect(pods.get("u2")).toBeUndefined();
  expect(pods.get("u3")).toBeUndefined();
  expect(JSON.parse(readFileSync(mixed, "utf8")).u2).toEqual({ reason: 7 });
});

test("the pressure condition of an eviction is kept; an unknown one is dropped, the eviction kept", () => {
  const file = join(root, "conditions.json");
  const pods = new EvictedPods(file);
  pods.add("u1", { reason: "Evicted", message: "The node was low on resource: memory. ", condition: "MemoryPressure" });
  expect(new EvictedPods(file).get("u1")).toEqual({ reason: "Evicted", message: "The node was low on resource: memory. ", condition: "MemoryPressure" });
  writeFileSync(file, JSON.stringify({ u2: { reason: "Evicted", message: "m", condition: "CpuPressure" } }));
  expect(new EvictedPods(file).get("u2")).toEqual({ reason: "Evicted", message: "m" });
});
