// The harness of the Agent's end-to-end unit tests (agent-*.test.ts): an Agent on the FakeRuntime with
// the generic PLEG, a FakeClock and fake sources, and the helpers that read what it reports.
import { afterAll } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod, PodStatus as ApiPodStatus } from "kubernetes-types/core/v1";
import { Agent, type AgentHooks, type AgentOptions } from "../../src/agent/agent";
import { PodConfig, type SourceReport } from "../../src/config";
import type { ContainerConfigInput } from "../../src/cri/types";
import type { PodSourceName } from "../../src/manifest/types";
import { Pleg } from "../../src/pleg/pleg";
import type { FakeClock } from "../../src/util/clock";
import { createLogger } from "../../src/util/log";
import type { FakeRuntime } from "../fakes/runtime";
import { FakeSource, type FakeStatusManager } from "../fakes/seams";
import { runAgent, pod } from "./fixtures";

/** A folder of the test file's own for the agents' pods, logs and state, removed after its tests. */
export function agentRoot(): string {
  const root = mkdtempSync(join(tmpdir(), "nodeagent-agent-test-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  return root;
}

export interface RunningAgent {
  agent: Agent;
  config: PodConfig;
  pleg: Pleg;
  /** Runs due timers and lets every sync, relist and event that follows finish. */
  settle(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts an agent on the runtime. `before` feeds PodConfig before the sync loop starts, as a source
 * that has its pods the moment it starts does (pushed pods kept across a restart). Its folders are
 * under `root` (each test file has its own: agentRoot()).
 */
export async function startAgentIn(
  root: string,
  rt: FakeRuntime,
  clock: FakeClock,
  opts: {
    sources?: PodSourceName[];
    before?: SourceReport;
    hooks?: AgentHooks;
    stateDir?: string;
    statusManager?: FakeStatusManager;
    runtimeName?: string;
    prober?: AgentOptions["prober"];
    diskUsage?: AgentOptions["diskUsage"];
    containerGC?: boolean;
    evictionManager?: AgentOptions["evictionManager"];
    events?: AgentOptions["events"];
    admitHandlers?: AgentOptions["admitHandlers"];
  } = {},
): Promise<RunningAgent> {
  const log = createLogger("text", -1);
  const pleg = new Pleg(rt, clock, { mode: "generic" });
  const config = new PodConfig({ clock, log });
  if (opts.before) config.apply(opts.before);
  const agent = new Agent({
    runtime: rt,
    pleg,
    config,
    sources: (opts.sources ?? ["file"]).map((n) => new FakeSource(n)),
    statusManager: opts.statusManager,
    random: () => 0,
    clock,
    log,
    runtimeConfig: {
      podLogsRoot: join(root, "logs"),
      podsDir: join(root, "pods"),
      cgroupRoot: "nodeagent-unit-test",
      nodeName: "node-a",
      hostIP: "192.0.2.10",
    },
    node: async () => ({}),
    hooks: opts.hooks,
    stateDir: opts.stateDir,
    runtimeName: opts.runtimeName,
    prober: opts.prober,
    diskUsage: opts.diskUsage,
    ...(opts.containerGC ? { containerGC: { runtime: rt } } : {}),
    ...(opts.evictionManager ? { evictionManager: opts.evictionManager } : {}),
    ...(opts.events ? { events: opts.events } : {}),
    ...(opts.admitHandlers ? { admitHandlers: opts.admitHandlers } : {}),
  });
  const { settle, stop } = runAgent(agent, clock);
  await settle();
  return { agent, config, pleg, settle, stop };
}

export const fromFile = (...pods: Pod[]): SourceReport => ({ source: "file", pods, errors: [] });

/** The names of the containers the agent asked the runtime to create, in order. */
export function created(rt: FakeRuntime): string[] {
  return (rt.callsOf("createContainer") as { config: ContainerConfigInput }[]).map((a) => a.config.metadata?.name ?? "");
}

export function statusOf(agent: Agent, name = "web"): ApiPodStatus {
  const p = agent.pods().find((x) => x.metadata?.name === name);
  if (!p?.status) throw new Error(`the agent has no pod ${name}`);
  return p.status;
}

export function containerStatus(agent: Agent, name: string) {
  const s = statusOf(agent);
  return [...(s.initContainerStatuses ?? []), ...(s.containerStatuses ?? [])].find((c) => c.name === name);
}

export function withCommand(p: Pod, command: string): Pod {
  const copy = structuredClone(p);
  copy.spec!.containers[0]!.command = ["sh", "-c", command];
  return copy;
}

export const named = (name: string, opts: Parameters<typeof pod>[0] = {}): Pod => {
  const p = pod(opts);
  p.metadata = { ...p.metadata, name, uid: `uid-${name}` };
  return p;
};

export function probed(type: "livenessProbe" | "readinessProbe", extra: { failureThreshold?: number; restartPolicy?: "Always" | "Never" } = {}): Pod {
  const p = pod({ restartPolicy: extra.restartPolicy });
  p.spec!.containers[0]![type] = { exec: { command: ["check"] }, periodSeconds: 1, failureThreshold: extra.failureThreshold ?? 3 };
  return p;
}

export const readyCondition = (a: RunningAgent) => statusOf(a.agent).conditions?.find((c) => c.type === "Ready")?.status;
