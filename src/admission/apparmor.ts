// AppArmorAdmitHandler: the kubelet's AppArmor admit handler (k/k pkg/kubelet/lifecycle handlers.go
// NewAppArmorAdmitHandler, with pkg/security/apparmor validate.go). A pending pod that asks for an
// AppArmor profile other than Unconfined (src/api/apparmor.ts appArmorRequired: the pod's or a
// container's appArmorProfile, or the deprecated container.apparmor.security.beta.kubernetes.io/<name>
// annotation) is refused with reason "AppArmor" and `Cannot enforce AppArmor: <why>` when the host
// cannot enforce it: AppArmor not enabled in the kernel (runc's apparmor.IsEnabled:
// /sys/module/apparmor/parameters/enabled starts with "Y"), or a Localhost profile with an empty name.
// Running such a pod unconfined would silently drop what it asked for. The host is checked once, at
// start, as the kubelet's validator does (enabling AppArmor needs a reboot anyway).
import { readFileSync } from "node:fs";
import type { Pod } from "kubernetes-types/core/v1";
import { appArmorProfileOf, appArmorRequired } from "../api";
import type { PodAdmitAttributes, PodAdmitHandler, PodAdmitResult } from "./types";

/** lifecycle.AppArmorNotAdmittedReason. */
export const APPARMOR_NOT_ADMITTED_REASON = "AppArmor";

export const APPARMOR_ENABLED_FILE = "/sys/module/apparmor/parameters/enabled";

/** Why this host cannot enforce AppArmor profiles (validateHost), undefined when it can. */
export function appArmorHostProblem(enabledFile: string = APPARMOR_ENABLED_FILE): string | undefined {
  let text: string;
  try {
    text = readFileSync(enabledFile, "utf8");
  } catch {
    return "AppArmor is not enabled on the host";
  }
  return text.startsWith("Y") ? undefined : "AppArmor is not enabled on the host";
}

/** The validator's answer for the pod: undefined when it may run, else the error after "Cannot enforce AppArmor: ". */
export function appArmorProblem(pod: Pod, hostProblem: string | undefined): string | undefined {
  if (!appArmorRequired(pod)) return undefined;
  if (hostProblem !== undefined) return hostProblem;
  const spec = pod.spec;
  for (const c of [...(spec?.initContainers ?? []), ...(spec?.containers ?? []), ...(spec?.ephemeralContainers ?? [])]) {
    const p = appArmorProfileOf(pod, c);
    if (p?.type === "Localhost" && (p.localhostProfile ?? "").trim() === "") {
      return `invalid empty AppArmor profile name: ${JSON.stringify(p)}`;
    }
  }
  return undefined;
}

export class AppArmorAdmitHandler implements PodAdmitHandler {
  /** `hostProblem`: appArmorHostProblem() read once at start, null when the host can enforce profiles; a test passes its own. */
  constructor(private readonly hostProblem: string | null = appArmorHostProblem() ?? null) {}

  admit(attrs: PodAdmitAttributes): PodAdmitResult {
    // A pod already running or finished is not checked again (its status phase is past Pending).
    const phase = attrs.pod.status?.phase;
    if (phase !== undefined && phase !== "Pending") return { admit: true };
    const problem = appArmorProblem(attrs.pod, this.hostProblem ?? undefined);
    return problem === undefined ? { admit: true } : { admit: false, reason: APPARMOR_NOT_ADMITTED_REASON, message: `Cannot enforce AppArmor: ${problem}` };
  }
}
