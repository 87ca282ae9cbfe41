// From kernel log lines to OOM kills, as cadvisor's utils/oomparser does for the kubelet's OOM watcher
// (pkg/kubelet/oom/oom_watcher_linux.go). One kill is logged as several records:
//   "<task> invoked oom-killer: gfp_mask=…, order=…, oom_score_adj=…"     (begins a kill)
//   "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=…,cpuset=…,mems_allowed=…,oom_memcg=/a,task_memcg=/a/b,task=sh,pid=42,uid=0"
//   "Memory cgroup out of memory: Killed process 42 (sh) total-vm:…"      (ends it; "Out of memory: …" for the node)
// For the node's own kill the oom-kill line has ",global_oom" where the cgroup would be.
// The oom-kill line names the cgroup whose limit was hit (oom_memcg: "/" when the whole node ran out) and
// the victim's own cgroup (task_memcg). Kernels before 4.19 log "Task in /a/b killed as a result of
// limit of /a" instead, read the same way; with neither line both cgroups stay "/", as in cadvisor.
import type { KmsgRecord } from "./kmsg";

export interface OomInstance {
  pid: number;
  processName: string;
  /** When the kernel logged the kill, microseconds since boot. */
  usecSinceBoot: number;
  /**
   * The cgroup whose memory ran out (oom_memcg): "/" when the whole node did. cadvisor calls it
   * VictimContainerName, and the kubelet records a SystemOOM event when it is "/".
   */
  oomCgroup: string;
  /** The killed process's own cgroup (task_memcg; cadvisor's ContainerName). */
  taskCgroup: string;
  /** CONSTRAINT_NONE (the node), CONSTRAINT_MEMCG (a cgroup's limit), CONSTRAINT_CPUSET, CONSTRAINT_MEMORY_POLICY. */
  constraint: string;
}

const BEGIN = / invoked oom-killer: /;
// mm/oom_kill.c writes ",oom_memcg=<path>" for a cgroup's kill and ",global_oom" for the node's.
const CONTAINER = /^oom-kill:constraint=([^,]*),.*?(?:oom_memcg=([^,]*)|global_oom),task_memcg=([^,]*),task=(.*),pid=(\d+),uid=\d+/;
const LEGACY_CONTAINER = /^Task in (\S+) killed as a result of limit of (\S+)/;
const KILLED = /Killed process (\d+) \((.+?)\)/;

/** Feeds records in order; returns each kill once its last line has been read. */
export class OomParser {
  private current: OomInstance | undefined;

  feed(r: KmsgRecord): OomInstance | undefined {
    if (BEGIN.test(r.message)) {
      this.current = { pid: 0, processName: "", usecSinceBoot: r.usecSinceBoot, oomCgroup: "/", taskCgroup: "/", constraint: "" };
      return undefined;
    }
    const cur = this.current;
    if (!cur) return undefined;
    const c = CONTAINER.exec(r.message);
    if (c) {
      cur.constraint = c[1]!;
      cur.oomCgroup = c[2] || "/";
      cur.taskCgroup = c[3] || "/";
      return undefined;
    }
    const l = LEGACY_CONTAINER.exec(r.message);
    if (l) {
      cur.taskCgroup = l[1]!;
      cur.oomCgroup = l[2]!;
      return undefined;
    }
    const k = KILLED.exec(r.message);
    if (!k) return undefined;
    cur.pid = Number(k[1]);
    cur.processName = k[2]!;
    cur.usecSinceBoot = r.usecSinceBoot;
    this.current = undefined;
    return cur;
  }
}
