// What a pushed pod may ask of the host (--push-policy). The push token is root on the host by default:
// a pushed pod can be privileged, join the host's namespaces and mount any host folder, as a pod of a
// cluster with no Pod Security admission can. "restricted" refuses those fields at admission, a subset
// of the Pod Security Standards' baseline profile (k8s.io/pod-security-admission policy/check_*.go):
// privileged containers, hostNetwork/hostPID/hostIPC, hostPath volumes and added capabilities outside
// baseline's list. It is a guard for a token that leaks, not a sandbox: run untrusted pods elsewhere.
import type { Container, Pod } from "kubernetes-types/core/v1";

export type PushPolicy = "unrestricted" | "restricted";
export const PUSH_POLICIES: readonly PushPolicy[] = ["unrestricted", "restricted"];

/** A push refused before admission: the HTTP status and the reason, naming the field. */
export interface PushRefusal {
  status: number;
  message: string;
}

/** A pre-admission check of a loaded pushed pod (its UID derived, its name and namespace final). */
export type PushCheck = (pod: Pod) => PushRefusal | undefined;

/** check_capabilities_baseline.go: the capabilities a baseline pod may add. */
const BASELINE_CAPABILITIES: ReadonlySet<string> = new Set([
  "AUDIT_WRITE",
  "CHOWN",
  "DAC_OVERRIDE",
  "FOWNER",
  "FSETID",
  "KILL",
  "MKNOD",
  "NET_BIND_SERVICE",
  "SETFCAP",
  "SETGID",
  "SETPCAP",
  "SETUID",
  "SYS_CHROOT",
]);

/** The fields of `pod` that --push-policy restricted refuses, each as "field: why". */
export function restrictedViolations(pod: Pod): string[] {
  const out: string[] = [];
  const spec = pod.spec;
  if (!spec) return out;
  if (spec.hostNetwork) out.push("spec.hostNetwork: the host's network namespace is not allowed");
  if (spec.hostPID) out.push("spec.hostPID: the host's PID namespace is not allowed");
  if (spec.hostIPC) out.push("spec.hostIPC: the host's IPC namespace is not allowed");
  (spec.volumes ?? []).forEach((v, i) => {
    if (v.hostPath)
      out.push(`spec.volumes[${i}].hostPath: host folders are not allowed (volume ${JSON.stringify(v.name)}, path ${JSON.stringify(v.hostPath.path)})`);
  });
  const containers: [string, Container[] | undefined][] = [
    ["spec.initContainers", spec.initContainers],
    ["spec.containers", spec.containers],
  ];
  for (const [path, list] of containers) {
    (list ?? []).forEach((c, i) => {
      const sc = c.securityContext;
      if (sc?.privileged) out.push(`${path}[${i}].securityContext.privileged: privileged containers are not allowed (container ${JSON.stringify(c.name)})`);
      const added = (sc?.capabilities?.add ?? []).filter((cap) => !BASELINE_CAPABILITIES.has(cap.replace(/^CAP_/, "")));
      if (added.length) out.push(`${path}[${i}].securityContext.capabilities.add: ${added.join(", ")} not allowed (container ${JSON.stringify(c.name)})`);
    });
  }
  return out;
}

/** The check for a policy: undefined for "unrestricted"; 403 naming every refused field for "restricted". */
export function pushPolicyCheck(policy: PushPolicy): PushCheck | undefined {
  if (policy === "unrestricted") return undefined;
  return (pod) => {
    const violations = restrictedViolations(pod);
    if (violations.length === 0) return undefined;
    const name = `${pod.metadata?.namespace ?? "default"}/${pod.metadata?.name ?? ""}`;
    return { status: 403, message: `pod ${name} is refused by --push-policy restricted: ${violations.join("; ")}` };
  };
}
