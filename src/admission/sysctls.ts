// SysctlAdmitHandler: the kubelet's sysctl allowlist (k/k@1.24.1 pkg/kubelet/sysctl/{allowlist,
// namespace,safe_sysctls}.go). A pod may set, in spec.securityContext.sysctls, only the safe sysctls
// (namespaced, and isolated from the node and from other pods) and those the node's administrator
// allows with --allowed-unsafe-sysctls / allowedUnsafeSysctls (names, or prefixes ending in `*`). A
// sysctl set by a pod is written in the pod's own kernel namespaces, so every allowed one must be known
// to be namespaced (ipc: kernel.shm*, kernel.msg*, kernel.sem, fs.mqueue.*; net: net.*): a pattern
// that is not is refused when the agent starts, as NewAllowlist refuses it. A pod that shares the
// host's network namespace (hostNetwork) may not set net.* sysctls, and one sharing its IPC namespace
// (hostIPC) may not set ipc ones: they would change the node itself.
//
// A refused pod gets reason SysctlForbidden and the message `forbidden sysctl: "<name>" not
// allowlisted` or `forbidden sysctl: "<name>" not allowed with host net enabled`; the first sysctl in
// spec order that fails names it. Names may use `/` as the separator (kernel/shm_rmid_forced), read as
// the dotted form (ConvertSysctlVariableToDotsSeparator).
import type { PodAdmitAttributes, PodAdmitHandler, PodAdmitResult } from "./types";

/** sysctl.SafeSysctlAllowlist (1.24). */
export const SAFE_SYSCTLS: readonly string[] = [
  "kernel.shm_rmid_forced",
  "net.ipv4.ip_local_port_range",
  "net.ipv4.tcp_syncookies",
  "net.ipv4.ping_group_range",
  "net.ipv4.ip_unprivileged_port_start",
];

export const SYSCTL_FORBIDDEN_REASON = "SysctlForbidden";

type Namespace = "ipc" | "net";

/** validation.SysctlMaxLength. */
const SYSCTL_MAX_LENGTH = 253;
// policy validation's SysctlContainSlashPatternFmt: dot- or slash-separated segments, the last of which
// may end in `*` (or be `*`).
const SEGMENT = "[a-z0-9]([-_a-z0-9]*[a-z0-9])?";
const PATTERN = new RegExp(`^(${SEGMENT}[\\./])*([a-z0-9][-_a-z0-9]*)?[a-z0-9*]$`);

/** sysctl.NamespacedBy: which kernel namespace isolates the sysctl, if any is known to. */
export function namespacedBy(name: string): Namespace | undefined {
  if (name === "kernel.sem") return "ipc";
  if (name.startsWith("kernel.shm") || name.startsWith("kernel.msg") || name.startsWith("fs.mqueue.")) return "ipc";
  if (name.startsWith("net.")) return "net";
  return undefined;
}

/** utils.ConvertSysctlVariableToDotsSeparator: `a/b.c/d` (slash first) is `a.b/c.d`. */
export function toDotSeparated(name: string): string {
  const first = name.search(/[./]/);
  if (first < 0 || name[first] === ".") return name;
  return name.replace(/[./]/g, (c) => (c === "/" ? "." : "/"));
}

/**
 * The allowlist from the safe sysctls and the unsafe ones allowed (NewAllowlist). Throws with the
 * kubelet's words for a pattern that is malformed or not known to be namespaced.
 */
export class SysctlAllowlist {
  private readonly names = new Map<string, Namespace>();
  private readonly prefixes = new Map<string, Namespace>();

  constructor(patterns: readonly string[]) {
    for (const p of patterns) {
      if (p.length > SYSCTL_MAX_LENGTH || !PATTERN.test(p)) {
        throw new Error(`sysctl ${JSON.stringify(p)} must have at most ${SYSCTL_MAX_LENGTH} characters and match regex ${PATTERN.source.slice(1, -1)}`);
      }
      if (p.endsWith("*")) {
        const prefix = p.slice(0, -1);
        const ns = namespacedBy(prefix);
        if (!ns) throw new Error(`the sysctls ${JSON.stringify(p)} are not known to be namespaced`);
        this.prefixes.set(prefix, ns);
      } else {
        const ns = namespacedBy(p);
        if (!ns) throw new Error(`the sysctl ${JSON.stringify(p)} are not known to be namespaced`);
        this.names.set(p, ns);
      }
    }
  }

  /** validateSysctl: why the pod may not set it, or undefined. */
  check(sysctl: string, hostNetwork: boolean, hostIPC: boolean): string | undefined {
    const name = toDotSeparated(sysctl);
    let ns = this.names.get(name);
    if (!ns) for (const [prefix, n] of this.prefixes) if (name.startsWith(prefix)) ns = n;
    if (!ns) return `${JSON.stringify(name)} not allowlisted`;
    if ((ns === "ipc" && hostIPC) || (ns === "net" && hostNetwork)) return `${JSON.stringify(name)} not allowed with host ${ns} enabled`;
    return undefined;
  }
}

export class SysctlAdmitHandler implements PodAdmitHandler {
  private readonly allowlist: SysctlAllowlist;

  /** The safe sysctls and the unsafe ones allowed (--allowed-unsafe-sysctls); throws as SysctlAllowlist does. */
  constructor(allowedUnsafeSysctls: readonly string[] = []) {
    this.allowlist = new SysctlAllowlist([...SAFE_SYSCTLS, ...allowedUnsafeSysctls]);
  }

  admit({ pod }: PodAdmitAttributes): PodAdmitResult {
    const spec = pod.spec;
    for (const s of spec?.securityContext?.sysctls ?? []) {
      const why = this.allowlist.check(s.name, !!spec?.hostNetwork, !!spec?.hostIPC);
      if (why) return { admit: false, reason: SYSCTL_FORBIDDEN_REASON, message: `forbidden sysctl: ${why}` };
    }
    return { admit: true };
  }
}
