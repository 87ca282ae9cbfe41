// The test API server for test/kube's wire tests (apiserver*.test.ts): one per test file, an admin
// client, and the helpers they share. The bindings are ES module live bindings: set in beforeAll.
import { afterAll, beforeAll } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PatchStrategy, setHeaderOptions, type V1Pod } from "@kubernetes/client-node";
import { loadKubeClient, type KubeClient } from "../../src/kube";
import { TestApiServer } from "../fakes/apiserver";

export let api: TestApiServer;
export let admin: KubeClient;
export let dir: string;

export const pod = (name: string, extra: Partial<V1Pod["spec"]> = {}, meta: V1Pod["metadata"] = {}): V1Pod => ({
  metadata: { name, namespace: "default", ...meta },
  spec: { containers: [{ name: "c", image: "busybox" }], ...extra },
});

export async function clientFor(token: string, name: string): Promise<KubeClient> {
  const path = join(dir, name);
  api.writeKubeconfig(path, token);
  return loadKubeClient(path);
}

/** The HTTP status and Status body of a failed generated-client call. */
export async function failure(p: Promise<unknown>): Promise<{ code: number; body: { reason?: string; message?: string; kind?: string } }> {
  try {
    await p;
  } catch (e) {
    const err = e as { code: number; body: string };
    return { code: err.code, body: JSON.parse(err.body) };
  }
  throw new Error("call succeeded, expected a failure");
}

export const call = (path: string, init: RequestInit & { token?: string } = {}) =>
  fetch(api.url + path, {
    ...init,
    headers: { Authorization: `Bearer ${init.token ?? api.adminToken}`, ...(init.headers ?? {}) },
    tls: { ca: api.caPem },
  } as RequestInit);

/** Reads newline-delimited watch events until `until` says stop or the stream ends. */
export async function readEvents(
  resp: Response,
  until: (events: Array<{ type: string; object: any }>) => boolean,
): Promise<Array<{ type: string; object: any }>> {
  const events: Array<{ type: string; object: any }> = [];
  const decoder = new TextDecoder();
  let buf = "";
  for await (const chunk of resp.body!) {
    buf += decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, nl).trim();
      if (line) events.push(JSON.parse(line));
      buf = buf.slice(nl + 1);
    }
    if (until(events)) break;
  }
  return events;
}

export const SMP = setHeaderOptions("Content-Type", PatchStrategy.StrategicMergePatch);
export const MERGE = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);

/** A server for the calling test file: started before its tests, stopped after. */
export function useApiServer(): void {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "apiserver-test-"));
    api = await TestApiServer.start({ bookmarkIntervalMs: 50 });
    admin = await clientFor(api.adminToken, "admin");
  });
  afterAll(() => api.stop());
}
