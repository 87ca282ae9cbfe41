// Which AppArmor profile a container asks for, as the kubelet reads it (k/k pkg/security/apparmor
// helpers.go GetProfile and validate.go isRequired): the container's securityContext.appArmorProfile,
// else the deprecated pod annotation container.apparmor.security.beta.kubernetes.io/<container> (static
// pods may not have had it synced to the field), else the pod's securityContext.appArmorProfile.
// Shared by admission (src/admission/apparmor.ts: refuse what the host cannot enforce) and the
// container config (src/agent/security-context.ts: pass it to the runtime).
import type { AppArmorProfile, Container, Pod } from "kubernetes-types/core/v1";

/** v1.DeprecatedAppArmorBetaContainerAnnotationKeyPrefix. */
export const APPARMOR_ANNOTATION_PREFIX = "container.apparmor.security.beta.kubernetes.io/";
/** The annotation's values: runtime/default, unconfined, localhost/<profile>. */
export const APPARMOR_ANNOTATION_RUNTIME_DEFAULT = "runtime/default";
export const APPARMOR_ANNOTATION_UNCONFINED = "unconfined";
export const APPARMOR_ANNOTATION_LOCALHOST_PREFIX = "localhost/";

/** The annotation's value as a profile; undefined when absent or not one of the three forms (as getProfileFromPodAnnotations). */
export function appArmorAnnotationProfile(annotations: Record<string, string> | undefined, container: string): AppArmorProfile | undefined {
  const value = annotations?.[APPARMOR_ANNOTATION_PREFIX + container];
  if (value === undefined) return undefined;
  if (value === APPARMOR_ANNOTATION_RUNTIME_DEFAULT) return { type: "RuntimeDefault" };
  if (value === APPARMOR_ANNOTATION_UNCONFINED) return { type: "Unconfined" };
  if (value.startsWith(APPARMOR_ANNOTATION_LOCALHOST_PREFIX))
    return { type: "Localhost", localhostProfile: value.slice(APPARMOR_ANNOTATION_LOCALHOST_PREFIX.length) };
  return undefined;
}

/** The container's effective profile (GetProfile), undefined when nothing asks for one. */
export function appArmorProfileOf(pod: Pod, container: Container): AppArmorProfile | undefined {
  return (
    container.securityContext?.appArmorProfile ??
    appArmorAnnotationProfile(pod.metadata?.annotations, container.name) ??
    pod.spec?.securityContext?.appArmorProfile ??
    undefined
  );
}

/**
 * Whether the pod needs AppArmor to run (isRequired): a profile other than Unconfined in the pod's or
 * any container's field, or an AppArmor annotation whose value is not "unconfined". (The kubelet
 * looks at the first such annotation its map iteration meets; here any one counts, so that the answer
 * does not depend on an order.)
 */
export function appArmorRequired(pod: Pod): boolean {
  const spec = pod.spec;
  const confined = (p: AppArmorProfile | undefined) => p !== undefined && p !== null && p.type !== "Unconfined";
  if (confined(spec?.securityContext?.appArmorProfile)) return true;
  for (const c of [...(spec?.initContainers ?? []), ...(spec?.containers ?? []), ...(spec?.ephemeralContainers ?? [])]) {
    if (confined(c.securityContext?.appArmorProfile)) return true;
  }
  return Object.entries(pod.metadata?.annotations ?? {}).some(([k, v]) => k.startsWith(APPARMOR_ANNOTATION_PREFIX) && v !== APPARMOR_ANNOTATION_UNCONFINED);
}
