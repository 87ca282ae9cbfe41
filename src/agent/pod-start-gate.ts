// PodStartGate: how many new pods the node is starting at once, and which goes next. Past the
// kubelet, whose pod workers all ask for their sandboxes at once.
//
// Why: a burst of new pods (a directory of manifests written at once, a node taking over a
// deployment) used to ask containerd for every sandbox at once. containerd makes them side by side —
// process spawns for the CNI plugins, the shim and runc, its metadata store — so each one takes as
// long as all of them, and each pod's CreateContainer and StartContainer queue behind every other
// pod's sandbox: 30 pods on 2 cores, the first running after 3.4 s where alone it takes 0.28 s.
// A pod's start (RunPodSandbox, then CreateContainer and StartContainer of its first containers) is
// about one core busy for its whole length, so a few at a time keep the runtime as busy as thirty.
//
// A place is held by the sync that makes a pod's sandbox, from RunPodSandbox until that sync has
// started the pod's first containers (the next init container, or the app containers), and given
// back early when a container's image must be pulled: a pull waits for the network, not the CPU,
// and may take minutes. The state machine, per burst (a burst begins when a place is asked for while
// none is held, and ends when the last place is given back with nobody waiting):
//   - the first pod of a burst starts alone (`initial` places);
//   - each place given back doubles how many may be held, up to `max`: the burst reaches the
//     runtime's full throughput within a few pods, so the burst as a whole is not slower, while the
//     first pods start nearly as fast as alone;
//   - pods wait in arrival order (the order they were added), each with its own worker: nothing else
//     waits, and a pod started earlier goes on (probes, restarts, its next init containers) freely.
// One pod at a time never waits (no place is held), so a lone pod starts as before.
import { availableParallelism } from "node:os";

export interface PodStartGateOptions {
  /** How many places a burst begins with. */
  initial?: number;
  /** The most places at once, however long the burst. */
  max?: number;
}

/** 1 at first, doubling with each pod started, up to 4 a core (8 on this 2-core machine). */
export function podStartGateDefaults(): Required<PodStartGateOptions> {
  return { initial: 1, max: 4 * Math.max(1, availableParallelism()) };
}

/** A held place; release() gives it back (once: later calls do nothing). */
export interface PodStartPlace {
  release(): void;
}

export class PodStartGate {
  private readonly initial: number;
  private readonly max: number;
  private held = 0;
  /** Places given back since the burst began. */
  private released = 0;
  private readonly waiters: (() => void)[] = [];

  constructor(o: PodStartGateOptions = {}) {
    const d = podStartGateDefaults();
    this.initial = o.initial ?? d.initial;
    this.max = o.max ?? Math.max(d.max, this.initial);
    if (!(this.initial >= 1 && this.max >= this.initial)) throw new Error(`pod start gate: need 1 ≤ initial ≤ max, not ${this.initial} and ${this.max}`);
  }

  /** How many places may be held now. */
  get limit(): number {
    return Math.min(this.max, this.initial * 2 ** this.released);
  }
  /** Places held now. */
  get inUse(): number {
    return this.held;
  }
  /** Pods waiting for a place. */
  get waiting(): number {
    return this.waiters.length;
  }

  /** Resolves with a place when it is this caller's turn. */
  async enter(): Promise<PodStartPlace> {
    if (this.waiters.length === 0 && this.held < this.limit) this.held++;
    // The place is taken for us by admit(), so nobody can slip in between.
    else await new Promise<void>((resolve) => this.waiters.push(resolve));
    let done = false;
    return {
      release: () => {
        if (done) return;
        done = true;
        this.held--;
        this.released++;
        if (this.held === 0 && this.waiters.length === 0) this.released = 0; // the burst is over
        this.admit();
      },
    };
  }

  private admit(): void {
    while (this.waiters.length > 0 && this.held < this.limit) {
      this.held++;
      this.waiters.shift()!();
    }
  }
}
