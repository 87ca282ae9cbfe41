// HollowFleet: N hollow nodes in one process (hollow-node.ts), started and stopped gradually. Nodes start
// `startParallelism` at a time in index order, and a node holds its slot until its Node is registered,
// so that a thousand registrations, Lease creations and pod watches reach the API server as a rolling
// wave it keeps up with rather than one burst (a start returns before the registration, and a thousand
// registrations sent within seconds ran into their 10 s timeouts on a 2-core API server). A node that fails to start is retried with a
// capped backoff while the rest go on — an API server that is briefly overloaded by the wave must not
// leave holes in the fleet — until the fleet is stopped. Stopping goes the same way, newest first;
// the nodes' pods are forgotten with the process, as a hollow node's runtime holds nothing real.
import { mkdirSync } from "node:fs";
import { MemorySchedule } from "../cri";
import { readHostFacts } from "../nodestatus";
import { type Clock, errorMessage, type Logger } from "../util";
import { hollowNodeName, startHollowNode, type FleetShared, type StartedHollowNode } from "./hollow-node";
import type { HollowOptions } from "./hollow-options";

export interface FleetStatus {
  wanted: number;
  started: number;
  /** Nodes whose Node exists in the API server. */
  registered: number;
  /** Start attempts that failed so far (each retried). */
  startFailures: number;
}

const RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 30_000;

export class HollowFleet {
  private readonly shared: FleetShared;
  private readonly nodes: Array<StartedHollowNode | undefined> = [];
  private readonly stopping = new AbortController();
  private readonly stopped = new Promise<void>((resolve) => this.stopping.signal.addEventListener("abort", () => resolve(), { once: true }));
  private startFailures = 0;
  private registeredCount = 0;

  constructor(
    private readonly o: HollowOptions,
    clock: Clock,
    log: Logger,
  ) {
    // The nodes' roots are below it, and each runtime's image filesystem is it (statfs'ed by image GC and stats).
    mkdirSync(o.rootDir, { recursive: true, mode: 0o700 });
    this.shared = { clock, log, schedule: new MemorySchedule(clock), baseFacts: readHostFacts(o.rootDir) };
  }

  status(): FleetStatus {
    return { wanted: this.o.nodes, started: this.nodes.filter(Boolean).length, registered: this.registeredCount, startFailures: this.startFailures };
  }

  /** Starts every node; resolves when all are started (or the fleet is stopped meanwhile). */
  async start(onStarted?: (s: FleetStatus) => void): Promise<void> {
    let next = 0;
    const worker = async () => {
      while (!this.stopping.signal.aborted && next < this.o.nodes) {
        const i = next++;
        const node = (this.nodes[i] = await this.startOne(this.o.firstIndex + i));
        if (node) await Promise.race([node.registered.then(() => void this.registeredCount++), this.stopped]);
        onStarted?.(this.status());
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.o.startParallelism, this.o.nodes) }, worker));
  }

  private async startOne(i: number): Promise<StartedHollowNode | undefined> {
    let delay = RETRY_FIRST_MS;
    while (!this.stopping.signal.aborted) {
      try {
        return await startHollowNode(this.o, i, this.shared);
      } catch (err) {
        this.startFailures++;
        this.shared.log.warn("hollow node did not start; retrying", { node: hollowNodeName(this.o, i), retryInMs: delay, err: errorMessage(err) });
        await this.shared.clock.sleep(delay, this.stopping.signal).catch(() => {});
        delay = Math.min(delay * 2, RETRY_MAX_MS);
      }
    }
    return undefined;
  }

  /** Stops every started node, `startParallelism` at a time, newest first. */
  async stop(): Promise<void> {
    this.stopping.abort();
    const started = this.nodes
      .splice(0)
      .filter((n): n is StartedHollowNode => !!n)
      .reverse();
    const worker = async () => {
      for (let n = started.shift(); n; n = started.shift()) {
        await n.stop().catch((err) => this.shared.log.warn("hollow node did not stop cleanly", { node: n.name, err: errorMessage(err) }));
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, this.o.startParallelism) }, worker));
  }
}
