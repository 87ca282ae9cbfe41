// The projected volume plugin's content (k/k@1.24.1 pkg/volume/projected/projected.go collectData):
// configMap, secret, downwardAPI and serviceAccountToken sources merged into one directory, written
// by one atomic writer. Every source is tried; a failing one does not hide the others' errors, which
// are joined as the kubelet's aggregate error, and the volume is not written at all.
//
// serviceAccountToken asks the ObjectSource (the kubelet's token manager) for a token of the pod's
// service account bound to the pod, with the source's audience (none → the API server's own) and
// expirationSeconds (API default 3600; validation refuses less than 10 minutes and more than 2^32 s).
// Its file takes defaultMode, or 0600 when the pod has an fsGroup or an fsUser (then SetVolumeOwnership
// makes it 0640), so a token is never world-readable through group ownership. The fsUser is the
// kubelet's FsUserFrom: the one runAsUser every container (init, app, ephemeral) runs as, the
// container's own over the pod's; any container without one, or two different ones, and there is none.
// The token file and its top-level link are then owned by that user (1.36: a non-root container
// reads its 0600 token without an fsGroup).
import type { Pod, ProjectedVolumeSource, ServiceAccountTokenProjection } from "kubernetes-types/core/v1";
import { podServiceAccountName } from "../api";
import { configMapPayload } from "./configmap";
import type { ObjectSource, ResourceList, TokenRequest } from "../objects";
import { aggregateMessage, downwardAPIPayload } from "./downward-api";
import { DEFAULT_MODE } from "./payload";
import { secretPayload } from "./secret";
import type { Payload } from "./types";

/** expirationSeconds when the source leaves it out (pkg/apis/core/v1/defaults.go). */
export const DEFAULT_TOKEN_EXPIRATION_SECONDS = 3600;
/** The bounds validation puts on expirationSeconds (ValidateProjectedVolumeSource, TokenRequest validation). */
export const MIN_TOKEN_EXPIRATION_SECONDS = 600;
export const MAX_TOKEN_EXPIRATION_SECONDS = 2 ** 32;

/** A projected volume that cannot be made: its message is the kubelet's aggregate of the sources' errors. */
export class ProjectedVolumeError extends Error {
  override name = "ProjectedVolumeError";
  constructor(readonly causes: readonly Error[]) {
    super(aggregateMessage(causes.map((e) => e.message)));
  }
}

/** The TokenRequest a serviceAccountToken source makes, its expiration defaulted and checked as the API does. */
export function tokenRequest(pod: Pod, source: ServiceAccountTokenProjection): TokenRequest {
  const expirationSeconds = source.expirationSeconds ?? DEFAULT_TOKEN_EXPIRATION_SECONDS;
  if (expirationSeconds < MIN_TOKEN_EXPIRATION_SECONDS) throw new Error("expirationSeconds: may not specify a duration less than 10 minutes");
  if (expirationSeconds > MAX_TOKEN_EXPIRATION_SECONDS) throw new Error("expirationSeconds: may not specify a duration larger than 2^32 seconds");
  return { serviceAccountName: podServiceAccountName(pod), audience: source.audience ?? "", expirationSeconds };
}

/** FsUserFrom: the runAsUser shared by every container of the pod, or undefined. */
export function fsUserFrom(pod: Pod): number | undefined {
  const spec = pod.spec;
  if (!spec) return undefined;
  let user: number | undefined;
  for (const c of [...(spec.initContainers ?? []), ...spec.containers, ...(spec.ephemeralContainers ?? [])]) {
    const runAsUser = c.securityContext?.runAsUser ?? spec.securityContext?.runAsUser;
    if (runAsUser === undefined || (user !== undefined && user !== runAsUser)) return undefined;
    user = runAsUser;
  }
  return user;
}

/**
 * The files of a projected volume.
 * @throws ProjectedVolumeError naming every failing source's error
 */
export async function projectedPayload(pod: Pod, source: ProjectedVolumeSource, objects: ObjectSource, allocatable?: ResourceList): Promise<Payload> {
  const defaultMode = source.defaultMode ?? DEFAULT_MODE;
  const payload: Payload = new Map();
  const errors: Error[] = [];
  for (const s of source.sources ?? []) {
    try {
      let part: Payload;
      if (s.secret) part = await secretPayload(pod, s.secret, objects, defaultMode);
      else if (s.configMap) part = await configMapPayload(pod, s.configMap, objects, defaultMode);
      else if (s.downwardAPI) part = downwardAPIPayload(pod, s.downwardAPI.items ?? [], defaultMode, allocatable);
      else if (s.serviceAccountToken) {
        const tp = s.serviceAccountToken;
        const token = await objects.getServiceAccountToken(pod, tokenRequest(pod, tp));
        const fsUser = fsUserFrom(pod);
        const mode = fsUser !== undefined || pod.spec?.securityContext?.fsGroup !== undefined ? 0o600 : defaultMode;
        const data = new TextEncoder().encode(token.token);
        part = new Map([[tp.path, fsUser === undefined ? { data, mode } : { data, mode, fsUser }]]);
      } else if (s.clusterTrustBundle) {
        // Not silently skipped (the field ledger): the volume cannot be made, and FailedMount says why.
        throw new Error(`clusterTrustBundle projections are not supported by nodeagent (path ${JSON.stringify(s.clusterTrustBundle.path)})`);
      } else continue;
      for (const [path, file] of part) payload.set(path, file);
    } catch (e) {
      errors.push(e instanceof Error ? e : new Error(String(e)));
    }
  }
  if (errors.length) throw new ProjectedVolumeError(errors);
  return payload;
}
