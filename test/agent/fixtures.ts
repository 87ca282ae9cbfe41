// Pods and runtime statuses for unit tests of the agent's pure logic, and how a test waits for an
// agent to have nothing left to do.
import type { Container, Pod } from "kubernetes-types/core/v1";
import type { Agent } from "../../src/agent/agent";
import type { ContainerStatus, PodSandboxStatus } from "../../src/cri/types";
import * as ann from "../../src/agent/labels";
import type { PodStatus } from "../../src/pleg/types";
import { flushMicrotasks, type FakeClock } from "../../src/util/clock";
import type { FakeRuntime } from "../fakes/runtime";

/** A pod of busybox containers that sleep; init containers named in `sidecars` are native sidecars (restartPolicy Always). */
export function pod(
  opts: { restartPolicy?: "Always" | "OnFailure" | "Never"; containers?: string[]; inits?: string[]; sidecars?: string[]; hostNetwork?: boolean } = {},
): Pod {
  const c = (name: string): Container => ({
    name,
    image: "localhost/nodeagent/busybox:1.35",
    command: ["sh", "-c", "sleep 1000"],
    ...(opts.sidecars?.includes(name) ? { restartPolicy: "Always" } : {}),
  });
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web", namespace: "default", uid: "uid-1" },
    spec: {
      restartPolicy: opts.restartPolicy ?? "Always",
      hostNetwork: opts.hostNetwork,
      initContainers: opts.inits?.map(c),
      containers: (opts.containers ?? ["app"]).map(c),
    },
  };
}

export type CState = "running" | "exited" | "created";
export interface CSpec {
  name: string;
  state: CState;
  exitCode?: number;
  init?: boolean;
  /** Give the hash of a different spec, as if the pod was edited. */
  staleHash?: boolean;
  id?: string;
  finishedAt?: number;
  restartCount?: number;
}

let seq = 0;
export function podStatus(
  p: Pod,
  s: { sandbox?: "ready" | "notready" | "none"; attempt?: number; extraReadySandbox?: boolean; containers?: CSpec[] },
): PodStatus {
  const sbs: PodSandboxStatus[] = [];
  const mk = (state: "SANDBOX_READY" | "SANDBOX_NOTREADY", attempt: number): PodSandboxStatus =>
    ({
      id: `sb-${++seq}`,
      metadata: { name: "web", namespace: "default", uid: "uid-1", attempt },
      state,
      createdAt: seq,
      network: { ip: "10.88.0.5", additionalIps: [] },
      linux: { namespaces: { options: { network: p.spec?.hostNetwork ? "NODE" : "POD", pid: "CONTAINER", ipc: "POD", targetId: "", userNsOptions: null } } },
      labels: {},
      annotations: {},
      runtimeHandler: "",
      containersStatuses: [],
      timestamp: 0,
    }) as unknown as PodSandboxStatus;
  if ((s.sandbox ?? "ready") !== "none") sbs.push(mk(s.sandbox === "notready" ? "SANDBOX_NOTREADY" : "SANDBOX_READY", s.attempt ?? 0));
  if (s.extraReadySandbox) sbs.push(mk("SANDBOX_READY", 0));
  const all = [...(p.spec?.initContainers ?? []), ...(p.spec?.containers ?? [])];
  const containerStatuses = (s.containers ?? []).map((c): ContainerStatus => {
    const spec = all.find((x) => x.name === c.name) ?? { name: c.name };
    return {
      id: c.id ?? `c-${c.name}-${++seq}`,
      metadata: { name: c.name, attempt: c.restartCount ?? 0 },
      state: c.state === "running" ? "CONTAINER_RUNNING" : c.state === "exited" ? "CONTAINER_EXITED" : "CONTAINER_CREATED",
      exitCode: c.exitCode ?? 0,
      createdAt: 1,
      startedAt: 1,
      finishedAt: c.state === "exited" ? (c.finishedAt ?? 2) : 0,
      reason: c.state === "exited" ? ((c.exitCode ?? 0) === 0 ? "Completed" : "Error") : "",
      message: "",
      labels: {},
      annotations: {
        [ann.CONTAINER_HASH]: c.staleHash ? "stale" : ann.containerHash(spec),
        [ann.CONTAINER_TYPE]: c.init ? "init" : "app",
        [ann.CONTAINER_RESTART_COUNT]: String(c.restartCount ?? 0),
      },
    } as unknown as ContainerStatus;
  });
  return { uid: "uid-1", name: "web", namespace: "default", ips: ["10.88.0.5"], sandboxStatuses: sbs, containerStatuses };
}

/**
 * Resolves when the agent's sync loop has handled every queued event and no pod worker is busy: a
 * worker's step can queue more events (its relist), so the two are awaited until both are quiet.
 */
export async function agentIdle(agent: Agent): Promise<void> {
  do {
    await agent.loop.drained();
    await agent.workers.idle();
  } while (agent.loop.pending > 0);
}

/**
 * Runs an agent on a fake clock: `settle` fires due timers and lets every event, sync and relist that
 * follows finish; `stop` ends the run (pods stay, as on a node).
 */
export function runAgent(agent: Agent, clock: FakeClock): { settle(): Promise<void>; stop(): Promise<void> } {
  const ac = new AbortController();
  const done = agent.run(ac.signal);
  return {
    settle: async () => {
      await clock.advance(0);
      await agentIdle(agent);
      await flushMicrotasks();
    },
    stop: async () => {
      ac.abort();
      await clock.advance(0);
      await done;
    },
  };
}

/** The pod's status as the PLEG would cache it after a relist of the fake runtime (newest first). */
export async function relistFake(rt: FakeRuntime, pod: Pod): Promise<PodStatus> {
  const uid = pod.metadata!.uid!;
  const sandboxes = [...rt.sandboxes.values()].filter((s) => s.uid === uid).reverse();
  const containers = [...rt.containers.values()].filter((c) => sandboxes.some((s) => s.id === c.sandboxId)).reverse();
  return {
    uid,
    name: pod.metadata!.name!,
    namespace: pod.metadata!.namespace!,
    ips: sandboxes.map((s) => s.ip),
    sandboxStatuses: await Promise.all(sandboxes.map(async (s) => (await rt.podSandboxStatus(s.id)).status)),
    containerStatuses: await Promise.all(containers.map((c) => rt.containerStatus(c.id))),
  };
}
