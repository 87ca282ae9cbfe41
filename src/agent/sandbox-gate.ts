// SandboxGate: how many RunPodSandbox calls the node has in flight, and who goes next. Past the
// kubelet, which asks for every new pod's sandbox at once.
//
// Why: a burst of new pods (a directory of manifests written at once, a node taking over a
// deployment) used to ask containerd for every sandbox at once. containerd makes them side by side —
// process spawns for the CNI plugins, the shim and runc, its metadata store — so each one takes as
// long as all of them, and each pod's CreateContainer queues behind every other pod's sandbox: with
// 30 pods on 2 cores the first pod ran after 3.4 s, where alone it takes 0.28 s.
//
// The state machine, per burst (a burst starts when a sandbox is asked for while none is in flight,
// and ends when the last one in flight finishes with nobody waiting):
//   - the first sandbox of a burst is made alone (`initial` at once);
//   - each sandbox that finishes (made or failed) doubles how many may be in flight, up to `max`:
//     a burst ramps up to the runtime's full throughput within a few sandboxes, so the burst as a
//     whole is not slower, while the first pods are made nearly as fast as alone;
//   - callers wait in arrival order (the order their pods were added), and nothing else waits: a pod
//     whose sandbox is ready goes on to its containers at once, ahead of the sandboxes still queued.
// One pod at a time never waits (nothing else is in flight), so a lone pod starts as before.
export interface SandboxGateOptions {
  /** How many a burst starts with. */
  initial?: number;
  /** The most in flight at once, however long the burst. */
  max?: number;
}

/** See the file's comment: 1 at first, doubling with each finished sandbox, up to 8. */
export const SANDBOX_GATE_DEFAULTS: Required<SandboxGateOptions> = { initial: 1, max: 8 };

export class SandboxGate {
  private readonly initial: number;
  private readonly max: number;
  private active = 0;
  /** Sandboxes finished since the burst began. */
  private finished = 0;
  private readonly waiters: (() => void)[] = [];

  constructor(o: SandboxGateOptions = {}) {
    this.initial = o.initial ?? SANDBOX_GATE_DEFAULTS.initial;
    this.max = o.max ?? SANDBOX_GATE_DEFAULTS.max;
    if (!(this.initial >= 1 && this.max >= this.initial)) throw new Error(`sandbox gate: need 1 ≤ initial ≤ max, not ${this.initial} and ${this.max}`);
  }

  /** How many may be in flight now. */
  get limit(): number {
    return Math.min(this.max, this.initial * 2 ** this.finished);
  }
  /** In flight now. */
  get inFlight(): number {
    return this.active;
  }
  /** Waiting for their turn. */
  get waiting(): number {
    return this.waiters.length;
  }

  /** Runs `create` (one RunPodSandbox) when it is its turn. */
  async run<T>(create: () => Promise<T>): Promise<T> {
    if (this.waiters.length === 0 && this.active < this.limit) this.active++;
    // The place is taken for us by admit(), so nobody can slip in between.
    else await new Promise<void>((resolve) => this.waiters.push(resolve));
    try {
      return await create();
    } finally {
      this.active--;
      this.finished++;
      if (this.active === 0 && this.waiters.length === 0) this.finished = 0; // the burst is over
      this.admit();
    }
  }

  private admit(): void {
    while (this.waiters.length > 0 && this.active < this.limit) {
      this.active++;
      this.waiters.shift()!();
    }
  }
}
