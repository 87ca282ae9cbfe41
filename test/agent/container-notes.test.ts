import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ContainerNotes } from "../../src/agent/container-notes";

const root = mkdtempSync(join(tmpdir(), "nodeagent-notes-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const read = (file: string) => JSON.parse(readFileSync(file, "utf8"));

test("notes changed in one turn of the event loop are written once, after it; a new instance reads them back", async () => {
  const file = join(root, "a", "container-notes.json");
  const notes = new ContainerNotes(file);
  notes.update("c1", { ready: true, started: true });
  notes.update("c2", { ready: false });
  // Nothing is written inside the turn that changed them (a sync making a pod's status visible).
  expect(existsSync(file)).toBe(false);
  await new Promise((r) => setTimeout(r, 5));
  expect(read(file)).toEqual({ c1: { ready: true, started: true }, c2: { ready: false } });
  expect(new ContainerNotes(file).get("c1")).toEqual({ ready: true, started: true });
});

test("flush writes what is pending at once (the agent stopping), and nothing when nothing is", () => {
  const file = join(root, "b", "container-notes.json");
  const notes = new ContainerNotes(file);
  notes.flush();
  expect(existsSync(file)).toBe(false);
  notes.update("c1", { killMessage: "liveness probe failed" });
  notes.flush();
  expect(read(file)).toEqual({ c1: { killMessage: "liveness probe failed" } });
  notes.prune(new Set());
  notes.flush();
  expect(read(file)).toEqual({});
});
