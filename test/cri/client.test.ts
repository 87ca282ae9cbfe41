import { afterAll, expect, test } from "bun:test";
import { createServer, type Server } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CriClient, socketPath } from "../../src/cri/client";
import { DeadlineExceededError, NotFoundError, UnavailableError, UnimplementedError, toCriError } from "../../src/cri/errors";

const dir = mkdtempSync(join(tmpdir(), "na-cri-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("socketPath accepts unix:// URLs and bare paths, and refuses TCP", () => {
  expect(socketPath("unix:///run/containerd/containerd.sock")).toBe("/run/containerd/containerd.sock");
  expect(socketPath("/run/x.sock")).toBe("/run/x.sock");
  expect(socketPath("unix:/run/x.sock")).toBe("/run/x.sock");
  expect(() => socketPath("tcp://127.0.0.1:1234")).toThrow("only unix sockets");
});

test("gRPC codes map to CriError types that keep the method and the runtime's words", () => {
  const e = toCriError("ContainerStatus", { code: 5, details: "container abc: not found" });
  expect(e).toBeInstanceOf(NotFoundError);
  expect(e.method).toBe("ContainerStatus");
  expect(e.message).toBe("CRI ContainerStatus: NOT_FOUND: container abc: not found");
  expect(toCriError("GetContainerEvents", { code: 12, details: "x" })).toBeInstanceOf(UnimplementedError);
  expect(toCriError("Version", { code: 14, details: "x" })).toBeInstanceOf(UnavailableError);
});

test("a missing socket is Unavailable, quickly", async () => {
  const c = new CriClient(`unix://${join(dir, "nothing.sock")}`, { timeoutMs: 5000 });
  const t0 = Date.now();
  await expect(c.version()).rejects.toBeInstanceOf(UnavailableError);
  expect(Date.now() - t0).toBeLessThan(4000);
  c.close();
});

test("a runtime that accepts but never answers hits the call's deadline", async () => {
  const path = join(dir, "silent.sock");
  const held: import("node:net").Socket[] = [];
  const server: Server = createServer((s) => held.push(s));
  await new Promise<void>((r) => server.listen(path, r));
  const c = new CriClient(`unix://${path}`, { timeoutMs: 300 });
  await expect(c.version()).rejects.toBeInstanceOf(DeadlineExceededError);
  c.close();
  for (const s of held) s.destroy();
  server.close();
});
