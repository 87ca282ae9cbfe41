// Shared set-up of the node heartbeat tests: a test API server, a client with the node's own token
// (the Node authorizer and NodeRestriction decide, as for a real kubelet), a FakeClock and a quiet logger
// whose warnings the tests read.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Node } from "kubernetes-types/core/v1";
import { loadKubeClient, type KubeClient } from "../../src/kube";
import { FakeClock } from "../../src/util/clock";
import { createLogger, type LogFields, type Logger, textFields } from "../../src/util/log";
import { TestApiServer } from "../fakes/apiserver";

export interface HeartbeatEnv {
  api: TestApiServer;
  client: KubeClient;
  clock: FakeClock;
  log: Logger;
  /** Every warn/error line logged, in order. */
  warnings: string[];
  close(): Promise<void>;
}

export async function heartbeatEnv(nodeName = "n1"): Promise<HeartbeatEnv> {
  const api = await TestApiServer.start();
  const dir = mkdtempSync(join(tmpdir(), "node-heartbeat-"));
  const kubeconfig = join(dir, "kubeconfig");
  api.writeKubeconfig(kubeconfig, api.nodeToken(nodeName));
  const client = await loadKubeClient(kubeconfig);
  const warnings: string[] = [];
  const keep = (msg: string, fields?: LogFields) => void warnings.push(msg + textFields(fields));
  const log = { ...createLogger("text", -999), error: keep, warn: keep };
  return {
    api,
    client,
    clock: new FakeClock(Date.UTC(2026, 0, 1)),
    log,
    warnings,
    close: async () => {
      await api.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function storedNode(api: TestApiServer, name = "n1"): Node | undefined {
  return api.store.get("nodes", undefined, name) as Node | undefined;
}

export function readyCondition(node: Node | undefined) {
  return node?.status?.conditions?.find((c) => c.type === "Ready");
}

/** Requests of one kind answered so far, e.g. ("patch", "nodes", "status"). */
export function count(api: TestApiServer, verb: string, resource: string, subresource?: string): number {
  return api.requests.filter((r) => r.verb === verb && r.resource === resource && (r.subresource ?? undefined) === subresource).length;
}
