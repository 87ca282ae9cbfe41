// What an unauthenticated caller of GET /pods and /pods/<ns>/<name> does not see. The kubelet's
// read-only port showed everything, and that is how a test password in an env value was read by
// uid 65534 here; so the anonymous view replaces the values of the fields that exist to carry
// secrets, and keeps what explains the pod (phase, conditions, container states, reasons).
//
// Redacted (the value becomes REDACTED; absent or empty fields stay as they are):
//   - env[].value of containers, initContainers and ephemeralContainers: a literal in the manifest is
//     the usual way a password reaches a container without a Secret, and unlike the command line it
//     is not readable by other users on the host (/proc/<pid>/environ is the owner's only).
//   - httpGet.httpHeaders[].value of every probe and lifecycle hook: an Authorization or API-key
//     header is sent by the agent, never shown in a process list.
//   - the annotation kubectl.kubernetes.io/last-applied-configuration: a copy of the whole manifest,
//     env values included.
//   - volumes[].csi.volumeAttributes and volumes[].flexVolume.options (values): driver options, which
//     drivers use for credentials; volumes[].gitRepo.repository: a URL that may carry user:password.
// Not redacted, on purpose:
//   - command and args (and exec probes and hooks): every local user reads them in
//     /proc/<pid>/cmdline (`ps`) while the container runs, so hiding them here protects nothing, and
//     `nodeagent probe run` reads exec probes from this view.
//   - references to Secrets and ConfigMaps (valueFrom, envFrom, volumes): names, not values.
//   - labels, other annotations, and the status, whose messages are the agent's and the runtime's
//     explanations (a container's own termination message is shown as it wrote it).
import type { Container, EphemeralContainer, HTTPGetAction, Lifecycle, Pod, Probe } from "kubernetes-types/core/v1";

import { LAST_APPLIED_ANNOTATION } from "../api/annotations";
import { REDACTED } from "../api/pod";

/** The placeholder that replaces a redacted value, and the annotation of kubectl's manifest copy. */
export { REDACTED, LAST_APPLIED_ANNOTATION };

/** For the Warning header of a redacted answer: what was hidden and how to see it. */
export const REDACTION_WARNING =
  "secret-bearing fields (env values, probe and hook HTTP header values, the last-applied-configuration annotation, " +
  "csi/flexVolume options, gitRepo URLs) are redacted for unauthenticated callers; send the agent's push token as " +
  "Authorization: Bearer <token> to read them";

function redactHeaders(action: HTTPGetAction | undefined): void {
  for (const h of action?.httpHeaders ?? []) if (h.value) h.value = REDACTED;
}

function redactProbe(p: Probe | undefined): void {
  redactHeaders(p?.httpGet);
}

function redactLifecycle(l: Lifecycle | undefined): void {
  redactHeaders(l?.postStart?.httpGet);
  redactHeaders(l?.preStop?.httpGet);
}

function redactContainer(c: Container | EphemeralContainer): void {
  for (const e of c.env ?? []) if (e.value) e.value = REDACTED;
  redactProbe(c.livenessProbe);
  redactProbe(c.readinessProbe);
  redactProbe(c.startupProbe);
  redactLifecycle(c.lifecycle);
}

function redactValues(m: Record<string, string> | undefined): void {
  if (!m) return;
  for (const k of Object.keys(m)) if (m[k]) m[k] = REDACTED;
}

/** A copy of the pod with the secret-bearing fields above redacted; the agent's own object is untouched. */
export function redactPod(pod: Pod): Pod {
  const out = structuredClone(pod);
  const annotations = out.metadata?.annotations;
  if (annotations?.[LAST_APPLIED_ANNOTATION]) annotations[LAST_APPLIED_ANNOTATION] = REDACTED;
  const spec = out.spec;
  if (!spec) return out;
  for (const c of spec.containers ?? []) redactContainer(c);
  for (const c of spec.initContainers ?? []) redactContainer(c);
  for (const c of spec.ephemeralContainers ?? []) redactContainer(c);
  for (const v of spec.volumes ?? []) {
    redactValues(v.csi?.volumeAttributes);
    redactValues(v.flexVolume?.options);
    if (v.gitRepo?.repository) v.gitRepo.repository = REDACTED;
  }
  return out;
}
