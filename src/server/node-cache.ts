// GET /node under a deadline. Building the Node asks the runtime (Version, ListImages, Status), and a
// frozen runtime answers none of them until the CRI deadline (minutes): the request then hung until
// Bun's idle timeout dropped the connection with no reply. The kubelet never serves node status
// straight from the runtime: its status setters read state that a loop refreshes, and a runtime that
// stops answering shows up as Ready=False "container runtime is down" (kubelet.go runtimeState)
// while everything else is as last known. This does the same on demand:
//
//   no build running   → start one; builds are shared, so a frozen runtime holds one build, not one
//                        per request.
//   done in time       → the new node ("fresh"), remembered.
//   deadline passed    → the last node built, with Ready=False "container runtime is down: no answer
//                        within 5s" and the time its other fields date from ("stale"); the server
//                        adds a Warning header. The deadline runs from the start of the build, so a
//                        request joining a build already late is answered at once.
//   ... and no node yet → "none": the server answers 503 with Retry-After.
//   the build throws   → the error (the server answers 500): that is a bug, not a slow runtime,
//                        since buildNode turns runtime errors into conditions itself.
import type { Node, NodeCondition } from "kubernetes-types/core/v1";
import { apiTime, type Clock, formatDuration } from "../util";

/** How long GET /node waits for a node to be built: a few seconds, under Bun's 10 s idle timeout. */
export const NODE_DEADLINE_MS = 5_000;

export type NodeAnswer =
  | { kind: "fresh"; node: Node }
  | { kind: "stale"; node: Node; warning: string }
  | { kind: "none"; message: string; retryAfterSeconds: number };

export interface NodeCacheOptions {
  /** Builds the node (the agent's view.node()). */
  build: () => Promise<Node>;
  clock: Clock;
  deadlineMs?: number;
}

interface Build {
  promise: Promise<Node>;
  started: number;
}

export class NodeCache {
  private last: { node: Node; at: number } | undefined;
  private running: Build | undefined;
  /** When the node was first answered stale after a fresh one: the Ready=False transition time. */
  private staleSince: number | undefined;
  private readonly deadlineMs: number;

  constructor(private readonly o: NodeCacheOptions) {
    this.deadlineMs = o.deadlineMs ?? NODE_DEADLINE_MS;
  }

  private startBuild(): Build {
    const started = this.o.clock.now();
    const build: Build = {
      started,
      promise: this.o.build().then((node) => {
        this.last = { node, at: this.o.clock.now() };
        this.staleSince = undefined;
        return node;
      }),
    };
    // Whoever waits gets the outcome; once nobody does (a build finishing after its deadline), the
    // result is only remembered and an error is dropped here rather than left unhandled.
    const done = () => {
      if (this.running === build) this.running = undefined;
    };
    build.promise.then(done, done);
    return build;
  }

  async get(): Promise<NodeAnswer> {
    const build = (this.running ??= this.startBuild());
    const left = build.started + this.deadlineMs - this.o.clock.now();
    let timer: { cancel(): void } | undefined;
    const late = new Promise<"late">((resolve) => {
      timer = this.o.clock.setTimer(Math.max(0, left), () => resolve("late"));
    });
    let got: Node | "late";
    try {
      got = await Promise.race([build.promise, late]);
    } finally {
      timer?.cancel();
    }
    if (got !== "late") return { kind: "fresh", node: got };
    const waited = formatDuration(this.deadlineMs);
    if (!this.last) {
      return {
        kind: "none",
        message: `the node status could not be computed within ${waited}: the container runtime is not answering, and no earlier node status is known`,
        retryAfterSeconds: Math.max(1, Math.ceil(this.deadlineMs / 1000)),
      };
    }
    const now = this.o.clock.now();
    this.staleSince ??= now;
    const since = apiTime(this.last.at);
    return {
      kind: "stale",
      node: staleNode(
        this.last.node,
        now,
        this.staleSince,
        `container runtime is down: no answer within ${waited}; the rest of this node is as computed at ${since}`,
      ),
      warning: `the container runtime did not answer within ${waited}: this node status is the one computed at ${since}, marked not ready`,
    };
  }
}

/**
 * The last node with its Ready condition turned False for `message`, heartbeat now. The transition
 * time is when it first went stale (or the earlier one, when it was already not ready), so that
 * repeated answers during one freeze agree.
 */
function staleNode(last: Node, now: number, staleSince: number, message: string): Node {
  const node = structuredClone(last);
  const conditions: readonly NodeCondition[] = node.status?.conditions ?? [];
  const prev = conditions.find((c) => c.type === "Ready");
  const ready: NodeCondition = {
    type: "Ready",
    status: "False",
    reason: "KubeletNotReady",
    message,
    lastHeartbeatTime: apiTime(now),
    lastTransitionTime: prev?.status === "False" && prev.lastTransitionTime ? prev.lastTransitionTime : apiTime(staleSince),
  };
  return { ...node, status: { ...node.status, conditions: prev ? conditions.map((c) => (c === prev ? ready : c)) : [...conditions, ready] } };
}
