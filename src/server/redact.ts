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
import type { Container, EphemeralContainer, HTTPGetAction, Lifecycle, LifecycleHandler, Pod, Probe, Volume } from "kubernetes-types/core/v1";

import { LAST_APPLIED_ANNOTATION, REDACTED } from "../api";

/** The placeholder that replaces a redacted value, and the annotation of kubectl's manifest copy. */
export { REDACTED, LAST_APPLIED_ANNOTATION };

/** For the Warning header of a redacted answer: what was hidden and how to see it. */
export const REDACTION_WARNING =
  "secret-bearing fields (env values, probe and hook HTTP header values, the last-applied-configuration annotation, " +
  "csi/flexVolume options, gitRepo URLs) are redacted for unauthenticated callers; send the agent's push token as " +
  "Authorization: Bearer <token> to read them";

// The copy is made only along the paths that change (copy on write): the rest is shared with the
// agent's own object, which nothing here writes to. A deep copy of every pod (structuredClone) was
// most of the agent's CPU under a monitor that polls GET /pods.

function redactedHeaders(action: HTTPGetAction | undefined): HTTPGetAction | undefined {
  if (!action?.httpHeaders?.some((h) => h.value)) return action;
  return { ...action, httpHeaders: action.httpHeaders.map((h) => (h.value ? { ...h, value: REDACTED } : h)) };
}

function redactedProbe(p: Probe | undefined): Probe | undefined {
  const httpGet = redactedHeaders(p?.httpGet);
  return httpGet === p?.httpGet ? p : { ...p, httpGet };
}

function redactedHandler(h: LifecycleHandler | undefined): LifecycleHandler | undefined {
  const httpGet = redactedHeaders(h?.httpGet);
  return httpGet === h?.httpGet ? h : { ...h, httpGet };
}

function redactedLifecycle(l: Lifecycle | undefined): Lifecycle | undefined {
  const postStart = redactedHandler(l?.postStart);
  const preStop = redactedHandler(l?.preStop);
  if (postStart === l?.postStart && preStop === l?.preStop) return l;
  return { ...l, ...(postStart ? { postStart } : {}), ...(preStop ? { preStop } : {}) };
}

/** Sets `key` on a copy of `obj` when `value` is not what obj has (absent fields stay absent). */
function withField<T extends object, K extends keyof T>(obj: T, key: K, value: T[K]): T {
  return value === obj[key] ? obj : { ...obj, [key]: value };
}

function redactedContainer<C extends Container | EphemeralContainer>(c: C): C {
  let out = c;
  if (c.env?.some((e) => e.value))
    out = withField(
      out,
      "env",
      c.env.map((e) => (e.value ? { ...e, value: REDACTED } : e)),
    );
  out = withField(out, "livenessProbe", redactedProbe(c.livenessProbe));
  out = withField(out, "readinessProbe", redactedProbe(c.readinessProbe));
  out = withField(out, "startupProbe", redactedProbe(c.startupProbe));
  return withField(out, "lifecycle", redactedLifecycle(c.lifecycle));
}

function redactedValues(m: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!m || !Object.values(m).some((v) => v)) return m;
  return Object.fromEntries(Object.entries(m).map(([k, v]) => [k, v ? REDACTED : v]));
}

function redactedVolume(v: Volume): Volume {
  let out = v;
  if (v.csi) out = withField(out, "csi", withField(v.csi, "volumeAttributes", redactedValues(v.csi.volumeAttributes)));
  if (v.flexVolume) out = withField(out, "flexVolume", withField(v.flexVolume, "options", redactedValues(v.flexVolume.options)));
  if (v.gitRepo?.repository) out = withField(out, "gitRepo", { ...v.gitRepo, repository: REDACTED });
  return out;
}

/** Maps a list, keeping the list itself when no item changed. */
function mapped<T>(xs: T[] | undefined, f: (x: T) => T): T[] | undefined {
  if (!xs) return xs;
  const ys = xs.map(f);
  return ys.some((y, i) => y !== xs[i]) ? ys : xs;
}

/** A copy of the pod with the secret-bearing fields above redacted; the agent's own object is untouched. */
export function redactPod(pod: Pod): Pod {
  let out: Pod = { ...pod };
  const annotations = pod.metadata?.annotations;
  if (annotations?.[LAST_APPLIED_ANNOTATION]) out.metadata = { ...pod.metadata, annotations: { ...annotations, [LAST_APPLIED_ANNOTATION]: REDACTED } };
  const spec = pod.spec;
  if (!spec) return out;
  let s = spec;
  s = withField(s, "containers", mapped(spec.containers, redactedContainer)!);
  s = withField(s, "initContainers", mapped(spec.initContainers, redactedContainer));
  s = withField(s, "ephemeralContainers", mapped(spec.ephemeralContainers, redactedContainer));
  s = withField(s, "volumes", mapped(spec.volumes, redactedVolume));
  if (s !== spec) out = { ...out, spec: s };
  return out;
}
