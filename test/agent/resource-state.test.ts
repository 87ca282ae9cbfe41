// PodResourceState: the allocated/actuated checkpoints read back what was kept, and only what has the
// shape of container resources.
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PodResourceState } from "../../src/agent/resource-state";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

test("a restarted agent reads each pod's container resources back; a malformed entry is dropped", () => {
  const dir = mkdtempSync(join(tmpdir(), "resource-state-"));
  dirs.push(dir);
  const file = join(dir, "allocated_pods_state.json");
  const first = new PodResourceState(file);
  first.setPod("u1", { app: { requests: { cpu: "100m" }, limits: { memory: "64Mi" } } });
  first.setContainer("u1", "side", { requests: { cpu: "50m" } });
  expect(new PodResourceState(file).pod("u1")).toEqual({ app: { requests: { cpu: "100m" }, limits: { memory: "64Mi" } }, side: { requests: { cpu: "50m" } } });

  writeFileSync(
    file,
    JSON.stringify({ good: { app: { requests: { cpu: "1" } } }, numbers: { app: { requests: { cpu: 1 } } }, list: [1], nested: { app: "x" } }),
  );
  const again = new PodResourceState(file);
  expect(again.pod("good")).toEqual({ app: { requests: { cpu: "1" } } });
  for (const uid of ["numbers", "list", "nested"]) expect(again.pod(uid)).toBeUndefined();
});

test("version goes up only with a change", () => {
  const s = new PodResourceState(undefined);
  s.setContainer("u", "app", { requests: { cpu: "1" } });
  const v = s.version;
  s.setContainer("u", "app", { requests: { cpu: "1" } });
  s.remove("none");
  s.prune(new Set(["u"]));
  expect(s.version).toBe(v);
  s.remove("u");
  expect(s.version).toBe(v + 1);
});
