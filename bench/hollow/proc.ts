// What bench/hollow reads of its processes in /proc: CPU ticks and resident memory of a process AND its
// descendants. `nodeagent hollow` may run itself again as a child (to raise Bun's limit of open fetches,
// BUN_CONFIG_MAX_HTTP_REQUESTS, which Bun reads once at start-up): the nodes then live in the child, and a
// figure of the PID the bench spawned alone would be the idle parent's. Every figure here is of the tree.
import { readdirSync, readFileSync } from "node:fs";

function statFields(pid: number): string[] | undefined {
  try {
    // Fields after the command name, which may hold spaces: ppid is the 2nd, utime and stime the 12th and 13th.
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  } catch {
    return undefined;
  }
}

/** The PIDs given and all their living descendants. */
export function processTree(roots: readonly number[]): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const ppid = Number(statFields(Number(entry))?.[1] ?? 0);
    if (ppid) children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
  }
  const out: number[] = [];
  const todo = [...roots];
  while (todo.length) {
    const pid = todo.pop()!;
    out.push(pid);
    todo.push(...(children.get(pid) ?? []));
  }
  return out;
}

/** utime + stime of one process, in USER_HZ ticks (0 once it is gone). */
export function ticks(pid: number): number {
  const f = statFields(pid);
  return f ? Number(f[11]) + Number(f[12]) : 0;
}

/** VmRSS of one process in MiB (0 once it is gone). */
export function rssMiB(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

/** CPU ticks of the trees of `roots`, summed. */
export const treeTicks = (roots: readonly number[]) => processTree(roots).reduce((s, p) => s + ticks(p), 0);
/** Resident memory of the trees of `roots`, summed, MiB. */
export const treeRssMiB = (roots: readonly number[]) => processTree(roots).reduce((s, p) => s + rssMiB(p), 0);
