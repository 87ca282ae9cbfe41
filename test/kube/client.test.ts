// The API client's transport: the "wait and try again" answers the API server gives under load (429
// from its max-in-flight filter, with Retry-After) are retried as client-go retries them, for the
// generated clients and for getJson; anything else goes back to the caller at once.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadKubeClient, type KubeClient } from "../../src/kube";
import { MAX_RETRY_AFTER_RETRIES, retryAfterSeconds } from "../../src/kube/client";
import { TestApiServer } from "../fakes/apiserver";

let api: TestApiServer;
let admin: KubeClient;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), "kube-client-test-"));
  api = await TestApiServer.start();
  api.writeKubeconfig(join(dir, "admin"), api.adminToken);
  admin = await loadKubeClient(join(dir, "admin"));
});
afterAll(() => api.stop());

test("which answers ask to wait: 429 or 5xx with Retry-After in whole seconds, as client-go's checkWait", () => {
  expect(retryAfterSeconds(429, "1")).toBe(1);
  expect(retryAfterSeconds(503, "2")).toBe(2);
  expect(retryAfterSeconds(429, "0")).toBe(0);
  expect(retryAfterSeconds(429, null)).toBeUndefined();
  expect(retryAfterSeconds(409, "1")).toBeUndefined();
  expect(retryAfterSeconds(500, "soon")).toBeUndefined();
});

test("a create answered 429 with Retry-After is sent again until it is accepted", async () => {
  const before = api.requests.length;
  api.failNext({ verb: "create", resource: "namespaces" }, 429, 3, 0);
  const ns = await admin.core.createNamespace({ body: { metadata: { name: "retried" } } });
  expect(ns.metadata?.name).toBe("retried");
  const creates = api.requests.slice(before).filter((r) => r.verb === "create" && r.resource === "namespaces");
  expect(creates.map((r) => r.code)).toEqual([429, 429, 429, 201]);
});

test("getJson retries too; past the retry limit the 429 reaches the caller", async () => {
  api.failNext({ verb: "get", resource: "namespaces" }, 429, 1, 0);
  expect((await admin.getJson<{ metadata: { name: string } }>("/api/v1/namespaces/retried")).metadata.name).toBe("retried");
  api.failNext({ verb: "get", resource: "namespaces" }, 429, MAX_RETRY_AFTER_RETRIES + 1, 0);
  await expect(admin.getJson("/api/v1/namespaces/retried")).rejects.toMatchObject({ code: 429 });
});

test("an error without Retry-After is not retried", async () => {
  const before = api.requests.length;
  api.failNext({ verb: "get", resource: "namespaces" }, 500, 1);
  await expect(admin.getJson("/api/v1/namespaces/retried")).rejects.toMatchObject({ code: 500 });
  expect(api.requests.slice(before).filter((r) => r.resource === "namespaces")).toHaveLength(1);
});
