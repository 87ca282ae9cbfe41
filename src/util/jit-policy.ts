// The process's JavaScriptCore JIT policy (Bun.unsafe.setJITPolicy: the tier-up thresholds scaled).
//
// The binary starts with the agent's policy (`make build` passes --compile-jit-policy with
// AGENT_JIT_POLICY; test/cmd/startup-graph.test.ts checks the two agree), so that even Bun's own
// start-up and the loading of the agent's modules run under it; every other command sets the normal
// policy back as soon as it is chosen (cmd/nodeagent.ts), and so does a lint worker thread.
//
// Why the agent runs with thresholds × 1000: it is idle almost all the time — a relist a second, a
// sync now and then — and what the optimizing tiers (DFG, FTL) compile for it pays back nothing,
// while their compiled code and the compilers' own code pages and allocations stay resident. With
// 100 idle pods on containerd 1.6 (bench/footprint.ts) the agent's RSS was 94 MiB with the normal
// policy and 76 MiB with this one, for ~0.25 % of a core more CPU. Set from the first instruction
// instead of when the node starts, the agent's RSS at 0 pods was another ~3 MiB lower (47.5 → 44.3
// MiB in one bench-footprint run; the same −3 MiB in side-by-side runs with the binaries' pages
// cached or not): start-up code — Bun's bootstrap, module loading, flag parsing — no longer tiers up
// into the optimizing JIT, whose code pages then stayed resident for the life of the process. (Most
// of the idle agent is such pages: of ~44 MiB, ~36 MiB is the binary's file pages, ~25 MiB of them
// Bun's machine code, and ~8.5 MiB anonymous memory, of which the JavaScript heap is ~3.3 MB.)

/** The agent's tier-up threshold scale. */
export const AGENT_JIT_POLICY = 1000;

/** JavaScriptCore's own thresholds: commands that do real work (lint, schedule) want the JIT. */
export const NORMAL_JIT_POLICY = 1;

/** Gives this thread's VM the normal JIT policy (the binary starts with the agent's). */
export function useNormalJitPolicy(): void {
  Bun.unsafe.setJITPolicy(NORMAL_JIT_POLICY);
}
