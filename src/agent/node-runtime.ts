// The runtime phase: the container runtime (found, or a containerd started under the root dir, released
// on stop), the CRI client, the runtime's name, and the PLEG over them, its relists measured.
import { CriClient, resolveRuntime, type CriRuntime, type ResolvedRuntime } from "../cri";
import { Pleg } from "../pleg";
import type { AgentMetrics } from "../server";
import type { Logger } from "../util";
import type { NodeContext } from "./node-context";

/** How long the start waits for the runtime to say its name. */
const RUNTIME_NAME_DEADLINE_MS = 5_000;

/**
 * The runtime's name (CRI Version's runtimeName, "containerd"), asked once at start as the kubelet's
 * runtime manager does (NewKubeGenericRuntimeManager → getTypedVersion): container IDs in pod
 * statuses are `<runtimeName>://<id>`. The kubelet refuses to start without an answer; the agent
 * starts anyway, as it always has with a runtime that is down (its health checks and GET /node say
 * so until the runtime answers), and says "containerd" meanwhile, with a warning.
 */
async function askRuntimeName(client: CriRuntime, log: Logger): Promise<string> {
  try {
    return (await client.version(RUNTIME_NAME_DEADLINE_MS)).runtimeName || "containerd";
  } catch (err) {
    log.warn("the runtime did not say its name; container IDs are reported as containerd://<id>", { endpoint: client.endpoint, err });
    return "containerd";
  }
}

export interface NodeRuntime {
  runtime: ResolvedRuntime;
  client: CriRuntime;
  runtimeName: string;
  pleg: Pleg;
}

export async function startRuntime(ctx: NodeContext, metrics: AgentMetrics): Promise<NodeRuntime> {
  const { config, deps, clock, log } = ctx;
  const runtime = await (deps.resolveRuntime ?? resolveRuntime)({
    endpoint: config.runtime.endpoint,
    rootDir: config.rootDir,
    podInfraImage: config.runtime.podInfraImage,
    log,
  });
  ctx.started.add("the runtime", () => runtime.release());
  const client = deps.criClient ? deps.criClient(runtime.endpoint) : new CriClient(runtime.endpoint, { timeoutMs: config.runtime.requestTimeoutMs });
  ctx.started.add("the CRI client", () => client.close());
  const runtimeName = await askRuntimeName(client, log);

  const pleg = new Pleg(client, clock, {
    mode: config.plegMode,
    onModeChange: (m) => log.info("PLEG mode", { mode: m.mode, reason: m.reason }),
    onError: (what, err) => {
      log.warn("PLEG failed", { op: what, err });
      if (what.startsWith("event stream")) metrics.incEventedPlegConnectionErrors();
    },
    onRelist: (r) => {
      metrics.observePlegRelist(r.durationMs / 1000);
      if (r.intervalMs !== undefined) metrics.observePlegRelistInterval(r.intervalMs / 1000);
    },
    onStreamConnected: () => metrics.incEventedPlegConnections(),
  });
  return { runtime, client, runtimeName, pleg };
}
