// CriRuntime: the whole CRI as the agent calls it — the public face of CriClient. Everything above
// src/cri that needs the runtime takes this type (or a Pick of it), so that a runtime which is not a
// socket (the in-memory runtime of `nodeagent hollow`, a test's fake) stands where containerd does.
import type { CriClient } from "./client";

export type CriRuntime = Pick<CriClient, keyof CriClient>;
