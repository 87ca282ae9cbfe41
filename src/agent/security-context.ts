// The security options of a container's and a sandbox's CRI config that the kubelet derives from the
// pod's and the container's securityContext (k/k pkg/kubelet/kuberuntime security_context.go
// determineEffectiveSecurityContext, helpers.go getSeccompProfile/getAppArmorProfile,
// kuberuntime_sandbox.go generatePodSandboxLinuxConfig, pkg/securitycontext util.go):
//   - seccomp: the container's seccompProfile, else the pod's; unset is Unconfined (the kubelet's
//     seccompDefault is false by default, and the agent has no such setting). Localhost is the file
//     <root-dir>/seccomp/<localhostProfile>, kept inside that folder. The sandbox (pause) always runs
//     RuntimeDefault (kubernetes#84623).
//   - AppArmor: the profile src/api/apparmor.ts reads (container field, annotation, pod field), as the
//     structured field and the deprecated string for older runtimes. Admission (src/admission/apparmor.ts)
//     has already refused a pod that asks for one on a host without AppArmor.
//   - SELinux: the container's seLinuxOptions, else the pod's, passed as they are; a runtime on a host
//     without SELinux ignores them, as under the kubelet.
//   - procMount: Default is the kubelet's explicit list of masked and read-only /proc and /sys paths;
//     Unmasked is none. The list must be sent: containerd 1.6/1.7 (disable_proc_mount off) clears its
//     own defaults and applies only what the config carries, so an empty list ran every container with
//     /proc/kcore, /proc/sysrq-trigger and /proc/sys as the host's. (Validation allows Unmasked only
//     with hostUsers: false, which the agent refuses, so Unmasked never reaches here in practice.)
import type { Container, Pod, SELinuxOptions, SeccompProfile } from "kubernetes-types/core/v1";
import { appArmorProfileOf } from "../api";
import type { SecurityProfile, SELinuxOption } from "../cri";
import { confinedPath } from "../util";

/** securitycontext.defaultMaskedPaths (kept in step with moby's oci defaults). */
export const DEFAULT_MASKED_PATHS: readonly string[] = [
  "/proc/asound",
  "/proc/acpi",
  "/proc/kcore",
  "/proc/keys",
  "/proc/latency_stats",
  "/proc/timer_list",
  "/proc/timer_stats",
  "/proc/sched_debug",
  "/proc/scsi",
  "/sys/firmware",
  "/sys/devices/virtual/powercap",
];
/** securitycontext.defaultReadonlyPaths. */
export const DEFAULT_READONLY_PATHS: readonly string[] = ["/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"];

/** A seccomp or AppArmor profile the pod asks for that cannot be made (CreateContainerConfigError). */
export class SecurityProfileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SecurityProfileError";
  }
}

/**
 * fieldSeccompProfile: the field as a CRI profile. A Localhost profile names a file below
 * `profileRoot` (the kubelet's <root-dir>/seccomp); a path that would leave it, which API validation
 * refuses (absolute, '..'), throws rather than hand the runtime a file elsewhere on the host.
 */
export function seccompProfileToCri(field: SeccompProfile, profileRoot: string): SecurityProfile {
  if (field.type === "RuntimeDefault") return { profileType: "RuntimeDefault" };
  if (field.type === "Localhost") {
    const name = field.localhostProfile ?? "";
    if (name === "") throw new SecurityProfileError("localhostProfile must be set if seccompProfile type is Localhost.");
    // filepath.Join cleans "a//b" and "./a"; '..' and absolute names are refused (validateLocalDescendingPath).
    const segments = name.split("/").filter((s) => s !== "" && s !== ".");
    if (name.startsWith("/") || segments.includes("..") || segments.length === 0) {
      throw new SecurityProfileError(`seccompProfile localhostProfile ${JSON.stringify(name)} must be a relative path inside ${profileRoot} without '..'`);
    }
    return { profileType: "Localhost", localhostRef: confinedPath(profileRoot, ...segments) };
  }
  return { profileType: "Unconfined" };
}

/** getSeccompProfile for a container: its field, else the pod's, else Unconfined (seccompDefault off). */
export function containerSeccompProfile(pod: Pod, container: Container, profileRoot: string): SecurityProfile {
  const field = container.securityContext?.seccompProfile ?? pod.spec?.securityContext?.seccompProfile;
  return field ? seccompProfileToCri(field, profileRoot) : { profileType: "Unconfined" };
}

/** The sandbox's seccomp: always RuntimeDefault, as generatePodSandboxLinuxConfig. */
export const SANDBOX_SECCOMP_PROFILE: SecurityProfile = { profileType: "RuntimeDefault" };

/**
 * getAppArmorProfile: the structured profile and the deprecated string (runtime/default, unconfined,
 * localhost/<name>) still read by older runtimes; both undefined when nothing asks for a profile.
 */
export function containerAppArmorProfile(pod: Pod, container: Container): { apparmor?: SecurityProfile; apparmorProfile?: string } {
  const p = appArmorProfileOf(pod, container);
  if (!p) return {};
  if (p.type === "RuntimeDefault") return { apparmor: { profileType: "RuntimeDefault" }, apparmorProfile: "runtime/default" };
  if (p.type === "Unconfined") return { apparmor: { profileType: "Unconfined" }, apparmorProfile: "unconfined" };
  if (p.type === "Localhost") {
    if (p.localhostProfile === undefined) throw new SecurityProfileError("missing localhost apparmor profile name");
    return { apparmor: { profileType: "Localhost", localhostRef: p.localhostProfile }, apparmorProfile: `localhost/${p.localhostProfile}` };
  }
  throw new SecurityProfileError(`unknown apparmor profile type: ${JSON.stringify(p.type)}`);
}

/** convertToRuntimeSELinuxOption; null when unset. */
export function seLinuxOption(opts: SELinuxOptions | undefined): SELinuxOption | null {
  if (!opts) return null;
  return { user: opts.user ?? "", role: opts.role ?? "", type: opts.type ?? "", level: opts.level ?? "" };
}

/** The container's effective SELinux options: its own, else the pod's (DetermineEffectiveSecurityContext). */
export function containerSeLinuxOption(pod: Pod, container: Container): SELinuxOption | null {
  return seLinuxOption(container.securityContext?.seLinuxOptions ?? pod.spec?.securityContext?.seLinuxOptions);
}

/** ConvertToRuntimeMaskedPaths / ConvertToRuntimeReadonlyPaths. */
export function procMountPaths(container: Container): { maskedPaths: string[]; readonlyPaths: string[] } {
  if (container.securityContext?.procMount === "Unmasked") return { maskedPaths: [], readonlyPaths: [] };
  return { maskedPaths: [...DEFAULT_MASKED_PATHS], readonlyPaths: [...DEFAULT_READONLY_PATHS] };
}
