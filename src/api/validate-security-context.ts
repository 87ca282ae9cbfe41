// The securityContext rules that decide what a container runs with: seccomp and AppArmor profiles
// (fields and the deprecated annotations), procMount, and the values of fsGroupChangePolicy and
// supplementalGroupsPolicy.
import type { AppArmorProfile, Pod, PodSpec, SeccompProfile } from "kubernetes-types/core/v1";
import {
  APPARMOR_ANNOTATION_LOCALHOST_PREFIX,
  APPARMOR_ANNOTATION_PREFIX,
  APPARMOR_ANNOTATION_RUNTIME_DEFAULT,
  APPARMOR_ANNOTATION_UNCONFINED,
} from "./apparmor";
import { child, type FieldError, goQuote, index, invalid, key, notSupported, required } from "./field-error";
import { FS_GROUP_CHANGE_POLICIES, podSupplementalGroupsPolicy, SUPPLEMENTAL_GROUPS_POLICIES } from "./supplemental-groups";
import { validateLocalDescendingPath } from "./validate-volumes";

const PROFILE_TYPES = ["Localhost", "RuntimeDefault", "Unconfined"];

/** validateSeccompProfileField (the offending value is printed as the profile name, not Go's struct). */
function validateSeccompProfile(sp: SeccompProfile | undefined, path: string, errs: FieldError[]): void {
  if (!sp) return;
  if (!sp.type) errs.push(required(child(path, "type"), "type is required when seccompProfile is set"));
  else if (!PROFILE_TYPES.includes(sp.type)) errs.push(notSupported(child(path, "type"), sp.type, PROFILE_TYPES));
  const lp = sp.localhostProfile;
  if (sp.type === "Localhost") {
    if (lp === undefined || lp === null) errs.push(required(child(path, "localhostProfile"), "must be set when seccomp type is Localhost"));
    else errs.push(...validateLocalDescendingPath(lp, child(path, "localhostProfile")));
  } else if (lp !== undefined && lp !== null) {
    errs.push(invalid(child(path, "localhostProfile"), lp, "can only be set when seccomp type is Localhost"));
  }
}

/** validateAppArmorProfileField. */
function validateAppArmorProfile(p: AppArmorProfile | undefined, path: string, errs: FieldError[]): void {
  if (!p) return;
  const lp = p.localhostProfile;
  if (p.type === "Localhost") {
    if (lp === undefined || lp === null) errs.push(required(child(path, "localhostProfile"), "must be set when AppArmor type is Localhost"));
    else if (lp.trim() !== lp) errs.push(invalid(child(path, "localhostProfile"), lp, "must not be padded with whitespace"));
    else if (lp === "") errs.push(required(child(path, "localhostProfile"), "must be set when AppArmor type is Localhost"));
  } else if (p.type === "RuntimeDefault" || p.type === "Unconfined") {
    if (lp !== undefined && lp !== null) errs.push(invalid(child(path, "localhostProfile"), lp, "can only be set when AppArmor type is Localhost"));
  } else if (!p.type) {
    errs.push(required(child(path, "type"), "type is required when appArmorProfile is set"));
  } else {
    errs.push(notSupported(child(path, "type"), p.type, PROFILE_TYPES));
  }
}

/**
 * The securityContext rules that decide what a container runs with: the pod's and each container's
 * seccompProfile and appArmorProfile, procMount (Default or Unmasked; Unmasked only with hostUsers:
 * false, which ValidateSecurityContext words "`hostUsers` must be false to use `Unmasked`"), and the
 * deprecated AppArmor annotations (ValidateAppArmorPodAnnotations: a known container, a valid profile).
 */
export function validateSecurityContexts(pod: Pod, errs: FieldError[]): void {
  const spec: PodSpec = pod.spec ?? { containers: [] };
  const fsGroupChangePolicy = spec.securityContext?.fsGroupChangePolicy;
  if (fsGroupChangePolicy !== undefined && fsGroupChangePolicy !== null && !(FS_GROUP_CHANGE_POLICIES as readonly string[]).includes(fsGroupChangePolicy))
    errs.push(notSupported("spec.securityContext.fsGroupChangePolicy", fsGroupChangePolicy, FS_GROUP_CHANGE_POLICIES));
  validateSeccompProfile(spec.securityContext?.seccompProfile, "spec.securityContext.seccompProfile", errs);
  validateAppArmorProfile(spec.securityContext?.appArmorProfile, "spec.securityContext.appArmorProfile", errs);
  const sgp = podSupplementalGroupsPolicy(pod);
  if (sgp !== undefined && !(SUPPLEMENTAL_GROUPS_POLICIES as readonly string[]).includes(sgp))
    errs.push(notSupported("spec.securityContext.supplementalGroupsPolicy", sgp, SUPPLEMENTAL_GROUPS_POLICIES));
  const hostUsers = spec.hostUsers !== false;
  for (const [list, path] of [
    [spec.initContainers ?? [], "spec.initContainers"],
    [spec.containers ?? [], "spec.containers"],
  ] as const) {
    list.forEach((c, i) => {
      const sc = c.securityContext;
      if (!sc) return;
      const scPath = child(index(path, i), "securityContext");
      validateSeccompProfile(sc.seccompProfile, child(scPath, "seccompProfile"), errs);
      validateAppArmorProfile(sc.appArmorProfile, child(scPath, "appArmorProfile"), errs);
      if (sc.procMount !== undefined && sc.procMount !== null) {
        if (sc.procMount !== "Default" && sc.procMount !== "Unmasked")
          errs.push(notSupported(child(scPath, "procMount"), sc.procMount, ["Default", "Unmasked"]));
        else if (sc.procMount === "Unmasked" && hostUsers)
          errs.push(invalid(child(scPath, "procMount"), sc.procMount, "`hostUsers` must be false to use `Unmasked`"));
      }
    });
  }
  const names = new Set([...(spec.initContainers ?? []), ...(spec.containers ?? []), ...(spec.ephemeralContainers ?? [])].map((c) => c.name));
  for (const [k, v] of Object.entries(pod.metadata?.annotations ?? {})) {
    if (!k.startsWith(APPARMOR_ANNOTATION_PREFIX)) continue;
    const container = k.slice(APPARMOR_ANNOTATION_PREFIX.length);
    if (!names.has(container)) errs.push(invalid(key("metadata.annotations", k), container, "container not found"));
    const known =
      v === "" || v === APPARMOR_ANNOTATION_RUNTIME_DEFAULT || v === APPARMOR_ANNOTATION_UNCONFINED || v.startsWith(APPARMOR_ANNOTATION_LOCALHOST_PREFIX);
    if (!known) errs.push(invalid(key("metadata.annotations", k), v, `invalid AppArmor profile name: ${goQuote(v)}`));
  }
}
