// runAsNonRoot as the kubelet enforces it before a container is created
// (pkg/kubelet/kuberuntime/security_context_others.go verifyRunAsNonRoot, fed by
// kuberuntime_container.go generateContainerConfig → getImageUser). A refusal is the container's
// CreateContainerConfigError: it is not created, and the sync is retried with the pod worker's backoff.
import type { Container, Pod } from "kubernetes-types/core/v1";
import type { Image } from "../cri";
import { formatPod } from "./lifecycle-handlers";

/** Who an image runs as when nothing overrides it: a uid, or a user name that is not one. */
export interface ImageUser {
  uid?: number;
  username?: string;
}

/**
 * The kubelet's getImageUser over a CRI ImageStatus answer: the uid when the runtime reports one,
 * else the user name, else (no image, or no user configured) root.
 */
export function imageUser(image: Image | null | undefined): ImageUser {
  if (image?.uid) return { uid: Number(image.uid.value) };
  if (image?.username) return { username: image.username };
  return { uid: 0 };
}

/** runAsNonRoot and runAsUser as they apply to `c`: its own securityContext over the pod's (DetermineEffectiveSecurityContext). */
export function effectiveRunAs(pod: Pod, c: Container): { runAsNonRoot: boolean; runAsUser?: number } {
  const sc = c.securityContext ?? {};
  const psc = pod.spec?.securityContext ?? {};
  return { runAsNonRoot: (sc.runAsNonRoot ?? psc.runAsNonRoot) === true, runAsUser: sc.runAsUser ?? psc.runAsUser };
}

/** Whether the check needs the image's user (runAsNonRoot without a runAsUser): only then is ImageStatus asked. */
export function needsImageUser(pod: Pod, c: Container): boolean {
  const e = effectiveRunAs(pod, c);
  return e.runAsNonRoot && e.runAsUser === undefined;
}

const MAX_INT32 = 2147483647;

/**
 * Why `c` may not run under its runAsNonRoot policy (the kubelet's messages), or undefined when it
 * may. An explicit runAsUser decides alone; without one, the image's user must be a numeric non-zero
 * uid: a user name cannot be verified, and no configured user means root.
 */
export function runAsNonRootProblem(pod: Pod, c: Container, image: ImageUser | undefined): string | undefined {
  const e = effectiveRunAs(pod, c);
  if (!e.runAsNonRoot) return undefined;
  const who = `(pod: ${JSON.stringify(formatPod(pod))}, container: ${c.name})`;
  if (e.runAsUser !== undefined) return e.runAsUser === 0 ? `container's runAsUser breaks non-root policy ${who}` : undefined;
  const u = image ?? { uid: 0 };
  if (u.uid === undefined)
    return u.username ? `container has runAsNonRoot and image has non-numeric user (${u.username}), cannot verify user is non-root ${who}` : undefined;
  if (u.uid === 0) return `container has runAsNonRoot and image will run as root ${who}`;
  // validation.IsValidUserID.
  if (u.uid < 0 || u.uid > MAX_INT32 || !Number.isInteger(u.uid)) {
    return `container has runAsNonRoot and image has an invalid user id (${u.uid}). (Must be 1-(${MAX_INT32})): must be between 0 and ${MAX_INT32}, inclusive ${who}`;
  }
  return undefined;
}
