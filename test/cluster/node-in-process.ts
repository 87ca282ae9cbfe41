// A whole node in this process, as `nodeagent agent --kubeconfig` wires one: the Agent (pod workers,
// PLEG, status computation) on the FakeRuntime, and a ClusterNode as its "api" pod source and its
// status manager, joined with the node's own token to the test API server — everything on a FakeClock
// but the network. The API traffic tests count what such a node asks of the API server.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod } from "kubernetes-types/core/v1";
import { Agent } from "../../src/agent/agent";
import { ClusterNode } from "../../src/cluster/cluster-node";
import { PodConfig } from "../../src/config";
import { Pleg } from "../../src/pleg/pleg";
import { FakeClock } from "../../src/util/clock";
import { createLogger } from "../../src/util/log";
import { TestApiServer, type KubernetesObject, type RequestRecord } from "../fakes/apiserver";
import { FakeRuntime } from "../fakes/runtime";
import { agentIdle, runAgent } from "../agent/fixtures";
import { builtNode } from "./node-fixtures";

export interface InProcessNode {
  api: TestApiServer;
  cluster: ClusterNode;
  agent: Agent;
  rt: FakeRuntime;
  clock: FakeClock;
  /** Moves the clock on a second at a time, letting the agent and the network answer after each. */
  run(seconds: number): Promise<void>;
  /** An API pod bound to this node running busybox, `restartPolicy` as given. */
  createPod(name: string, restartPolicy?: "Always" | "Never"): Pod;
  storedPod(name: string): Pod | undefined;
  stop(): Promise<void>;
}

export async function inProcessNode(nodeName: string): Promise<InProcessNode> {
  const api = await TestApiServer.start();
  const dir = mkdtempSync(join(tmpdir(), "node-in-process-"));
  const kubeconfig = join(dir, "kubeconfig");
  api.writeKubeconfig(kubeconfig, api.nodeToken(nodeName));
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const log = createLogger("text", -1);
  const rt = new FakeRuntime(clock);
  const cluster = await ClusterNode.connect({
    kubeconfig,
    nodeName,
    buildNode: async () => builtNode({ name: nodeName }),
    health: () => ({ ready: true, message: "" }),
    clock,
    log,
  });
  const config = new PodConfig({ clock, log });
  const agent = new Agent({
    runtime: rt,
    pleg: new Pleg(rt, clock, { mode: "generic" }),
    config,
    sources: [cluster],
    statusManager: cluster,
    random: () => 0,
    clock,
    log,
    runtimeConfig: { podLogsRoot: join(dir, "logs"), podsDir: join(dir, "pods"), cgroupRoot: "nodeagent-unit-test", nodeName, hostIP: "192.0.2.10" },
    node: async () => ({}),
  });
  const running = runAgent(agent, clock);
  return {
    api,
    cluster,
    agent,
    rt,
    clock,
    async run(seconds) {
      for (let s = 0; s < seconds; s++) {
        await clock.advance(1000);
        await agentIdle(agent);
        // The API's answers and watch events arrive over real sockets.
        await Bun.sleep(4);
      }
    },
    createPod: (name, restartPolicy = "Always") =>
      api.store.create("pods", {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name, namespace: "default" },
        spec: {
          nodeName,
          restartPolicy,
          terminationGracePeriodSeconds: 30,
          containers: [{ name: restartPolicy === "Never" ? "job" : "app", image: "busybox", command: ["sleep", "3600"] }],
        },
      } as KubernetesObject) as Pod,
    storedPod: (name) => api.store.get("pods", "default", name) as Pod | undefined,
    async stop() {
      await running.stop();
      await api.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Requests by "verb resource[/subresource]" (and " <code>" unless it is 2xx), counted. */
export function tally(requests: readonly RequestRecord[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of requests) {
    const key = `${r.verb} ${r.resource}${r.subresource ? `/${r.subresource}` : ""}${r.code >= 200 && r.code < 300 ? "" : ` ${r.code}`}`;
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
}
