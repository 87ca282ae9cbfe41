// computePodActions: what one sync of a pod must do to move the runtime toward the pod's spec — the
// kubelet's kuberuntime_manager computePodActions, as a pure function of the pod, the cached runtime
// status and the crash-loop backoff, so that the whole restartPolicy × container-state × init
// container matrix is tested without a runtime.
//
// Init containers follow the kubelet of 1.29+ with native sidecars (KEP-753, computeInitContainerActions):
// they start in spec order; a regular one must exit 0 before the next starts, a sidecar (an init
// container with restartPolicy Always) counts as done for the ordering once it runs and, if it has a
// startupProbe, once that probe succeeded. The app containers start once every init container is done.
// A sidecar that exits is started again whatever the pod's restartPolicy (with the crash-loop backoff),
// for as long as an app container is to run; one that fails its liveness or startup probe is killed
// and started again. When no app container is left to run (a Job's pod whose containers exited) the
// pod is killed, its sidecars with it, and none is started again.
//
// Ephemeral containers (added through the API's ephemeralcontainers subresource, `kubectl debug`) are
// started once each, as the kubelet's computePodActions does: one the runtime has no instance of is
// started, in the running sandbox, even while the pod's initialisation goes on; one that ran is never
// started again, whatever its exit and the pod's restartPolicy, and a new sandbox does not start them.
// A running one is never killed for not being in spec.containers; it stops with the pod.
import type { Container, Pod } from "kubernetes-types/core/v1";
import type { ContainerStatus, PodSandboxStatus } from "../cri";
import type { PodStatus } from "../pleg";
import * as ann from "./labels";
import { containerKind, type ContainerKind, isInit, isSidecar, neverRan } from "../status";
import { type ActuatedLookup, computeContainerResize, noResizeActions, type ResizeActions, resizeRestartReason } from "./pod-resize";

/** Which instance is which (sidecar, init, never ran): the status module's, re-exported for the agent's callers. */
export { containerKind, isInit, isSidecar, neverRan, type ContainerKind };

export interface ContainerToKill {
  id: string;
  name: string;
  reason: string;
  /** The failed probe's own terminationGracePeriodSeconds, which replaces the pod's for this kill. */
  gracePeriodSeconds?: number;
}

/** Which probe, if any, has failed for a running container instance (the prober's cached results). */
export type ProbeFailureLookup = (containerName: string, containerId: string) => "liveness" | "startup" | undefined;

/**
 * Whether a running instance has started (its startupProbe succeeded; true without one): the
 * prober's answer, undefined when it has none yet.
 */
export type StartedLookup = (containerName: string, containerId: string) => boolean | undefined;

/** Whether the pod has any native sidecar (then its termination is ordered: termination-order.ts). */
export function hasSidecars(pod: Pod): boolean {
  return (pod.spec?.initContainers ?? []).some(isSidecar);
}

export interface PodActions {
  /** Kill the sandbox and every container (the sandbox is gone or must be replaced, or the pod is done). */
  killPod: boolean;
  createSandbox: boolean;
  /** The ready sandbox to start containers in ("" when one is to be created). */
  sandboxId: string;
  /** Attempt number of the sandbox to create. */
  attempt: number;
  /**
   * Init containers to start, in spec order (indexes into spec.initContainers): the next one of the
   * initialisation, and sidecars to start again. A regular one failing to start stops the sync there.
   */
  initContainersToStart: number[];
  /** App containers to start (indexes into spec.containers). */
  containersToStart: number[];
  /**
   * Ephemeral containers to start (indexes into spec.ephemeralContainers): those the runtime has no
   * instance of. Started before the init containers, as the kubelet's SyncPod, so that one can debug a
   * pod whose initialisation fails.
   */
  ephemeralContainersToStart: number[];
  containersToKill: ContainerToKill[];
  /** Why nothing more can happen (e.g. an init container failed with restartPolicy Never). */
  podFailed?: string;
  /** The in-place resize of running containers (pod-resize.ts; step 8 of the kubelet's SyncPod). */
  resize: ResizeActions;
}

/**
 * The newest status of the container with this name (across sandboxes), as podStatus is newest first;
 * of that kind when one is given (names are unique across the three lists of a valid pod).
 */
export function findContainerStatus(status: PodStatus | undefined, name: string, kind?: ContainerKind): ContainerStatus | undefined {
  return status?.containerStatuses.find((c) => c.metadata?.name === name && (kind === undefined || containerKind(c) === kind));
}

/** The kubelet's podSandboxChanged: does the pod need a new sandbox, and with which attempt number? */
export function sandboxChanged(pod: Pod, status: PodStatus | undefined): { changed: boolean; attempt: number; sandboxId: string } {
  const sandboxes = status?.sandboxStatuses ?? [];
  const latest: PodSandboxStatus | undefined = sandboxes[0];
  if (!latest) return { changed: true, attempt: 0, sandboxId: "" };
  const next = (latest.metadata?.attempt ?? 0) + 1;
  const ready = sandboxes.filter((s) => s.state === "SANDBOX_READY");
  // More than one ready sandbox: reconcile by starting over with a single new one.
  if (ready.length > 1) return { changed: true, attempt: next, sandboxId: latest.id };
  if (latest.state !== "SANDBOX_READY") return { changed: true, attempt: next, sandboxId: latest.id };
  const hostNetwork = pod.spec?.hostNetwork === true;
  const sandboxHostNetwork = latest.linux?.namespaces?.options?.network === "NODE";
  if (latest.linux?.namespaces?.options && hostNetwork !== sandboxHostNetwork) return { changed: true, attempt: next, sandboxId: latest.id };
  return { changed: false, attempt: latest.metadata?.attempt ?? 0, sandboxId: latest.id };
}

function succeeded(c: ContainerStatus | undefined): boolean {
  return c?.state === "CONTAINER_EXITED" && c.exitCode === 0;
}

/** The kubelet's ShouldContainerBeRestarted for a container that is not running. */
export function shouldRestart(pod: Pod, c: ContainerStatus | undefined): boolean {
  if (!c) return true; // never started
  if (c.state === "CONTAINER_RUNNING") return false;
  if (neverRan(c)) return true;
  if (c.state === "CONTAINER_CREATED" || c.state === "CONTAINER_UNKNOWN") return true;
  switch (pod.spec?.restartPolicy ?? "Always") {
    case "Never":
      return false;
    case "OnFailure":
      return c.exitCode !== 0;
    default:
      return true;
  }
}

/** Actions that do nothing: the start of computePodActions, and a sync that must not act. */
export function noPodActions(): PodActions {
  return {
    killPod: false,
    createSandbox: false,
    sandboxId: "",
    attempt: 0,
    initContainersToStart: [],
    containersToStart: [],
    ephemeralContainersToStart: [],
    containersToKill: [],
    resize: noResizeActions(),
  };
}

/**
 * `actuated`, when given, is what was last applied to each container (resource-state.ts): a running
 * container whose allocated resources differ from it is resized (pod-resize.ts); without it, nothing is.
 */
export function computePodActions(
  pod: Pod,
  status: PodStatus | undefined,
  probeFailure?: ProbeFailureLookup,
  started?: StartedLookup,
  actuated?: ActuatedLookup,
): PodActions {
  const spec = pod.spec!;
  const restartPolicy = spec.restartPolicy ?? "Always";
  const inits = spec.initContainers ?? [];
  const actions = noPodActions();
  const sb = sandboxChanged(pod, status);

  if (sb.changed) {
    actions.killPod = status !== undefined && status.sandboxStatuses.length > 0;
    actions.createSandbox = true;
    actions.attempt = sb.attempt;
    // A Never pod whose containers already ran does not get a new sandbox (the kubelet: "should not
    // restart a pod with restartPolicy Never after its sandbox died").
    const ranBefore = (status?.containerStatuses.length ?? 0) > 0;
    if (restartPolicy === "Never" && sb.attempt !== 0 && ranBefore) {
      actions.createSandbox = false;
      return actions;
    }
    // OnFailure: when every app container already succeeded, there is nothing to run again.
    const appDone = spec.containers.every((c) => succeeded(findContainerStatus(status, c.name, "app")));
    if (restartPolicy === "OnFailure" && sb.attempt !== 0 && appDone) {
      actions.createSandbox = false;
      return actions;
    }
    if (inits.length > 0) {
      actions.initContainersToStart = [0];
      return actions;
    }
    spec.containers.forEach((c, i) => {
      if (restartPolicy !== "Always" && succeeded(findContainerStatus(status, c.name, "app"))) return;
      actions.containersToStart.push(i);
    });
    return actions;
  }

  actions.sandboxId = sb.sandboxId;
  actions.attempt = sb.attempt;
  actions.ephemeralContainersToStart = ephemeralContainersToStart(pod, status);

  const initialized = computeInitContainerActions(pod, status, actions, probeFailure, started, actuated);
  // Initialisation failed (restartPolicy Never) or goes on: the app containers wait.
  if (actions.killPod || !initialized) return actions;

  // App containers.
  const specNames = new Set(spec.containers.map((c) => c.name));
  let keep = 0;
  spec.containers.forEach((container: Container, i) => {
    const c = findContainerStatus(status, container.name, "app");
    if (c?.state !== "CONTAINER_RUNNING") {
      if (shouldRestart(pod, c)) actions.containersToStart.push(i);
      return;
    }
    const kill = killReason(container, c, probeFailure);
    if (!kill) {
      // A resize whose resizePolicy is RestartContainer: killed and started again with the new values.
      if (actuated && !computeContainerResize(container, c, actuated, actions.resize)) {
        actions.containersToKill.push({ id: c.id, name: container.name, reason: resizeRestartReason(container.name) });
        actions.containersToStart.push(i);
        return;
      }
      keep++;
      return;
    }
    actions.containersToKill.push(kill);
    // A changed spec starts again whatever the policy; a failed liveness or startup probe unless the
    // policy is Never (the kubelet restarts it for OnFailure too: the kill is not the container's own exit).
    if (kill.reason === "Container spec hash changed" || restartPolicy !== "Never") actions.containersToStart.push(i);
  });
  // Running containers the spec no longer has (or duplicates of one name) are killed; a running
  // ephemeral container of the spec stays (it is neither kept nor restarted: it runs until it exits).
  const seen = new Set<string>();
  const ephemeralNames = new Set((spec.ephemeralContainers ?? []).map((c) => c.name));
  for (const c of status!.containerStatuses) {
    if (c.state !== "CONTAINER_RUNNING" || isInit(c)) continue;
    if (containerKind(c) === "ephemeral" && ephemeralNames.has(c.metadata?.name ?? "")) continue;
    const name = c.metadata?.name ?? "";
    if (!specNames.has(name) || seen.has(name))
      actions.containersToKill.push({ id: c.id, name, reason: specNames.has(name) ? "duplicate container" : "not in the pod's spec" });
    seen.add(name);
  }
  // Nothing running and nothing to start: the pod is done; kill its sandbox (the kubelet does the same),
  // and its sidecars with it: none is started again, or it would keep the pod alive.
  if (keep === 0 && actions.containersToStart.length === 0) {
    actions.killPod = true;
    actions.initContainersToStart = [];
  }
  return actions;
}

/**
 * The kubelet's EphemeralContainersToStart: every ephemeral container of the spec the runtime has no
 * instance of, of any kind, by name (FindContainerStatusByName); one that ran is never started again.
 * An instance the agent's own start cut short never ran (neverRan): it is replaced as any other.
 */
function ephemeralContainersToStart(pod: Pod, status: PodStatus | undefined): number[] {
  const start: number[] = [];
  (pod.spec?.ephemeralContainers ?? []).forEach((c, i) => {
    const s = findContainerStatus(status, c.name);
    if (!s || neverRan(s)) start.push(i);
  });
  return start;
}

/**
 * Why a running instance must be killed, if it must: its spec changed, or a liveness or startup probe
 * failed (then the probe's own terminationGracePeriodSeconds replaces the pod's).
 */
function killReason(container: Container, c: ContainerStatus, probeFailure: ProbeFailureLookup | undefined): ContainerToKill | undefined {
  if (c.annotations[ann.CONTAINER_HASH] !== ann.containerHash(container)) return { id: c.id, name: container.name, reason: "Container spec hash changed" };
  const failed = probeFailure?.(container.name, c.id);
  if (!failed) return undefined;
  const probe = failed === "liveness" ? container.livenessProbe : container.startupProbe;
  return {
    id: c.id,
    name: container.name,
    reason: `Container ${container.name} failed ${failed} probe`,
    ...(probe?.terminationGracePeriodSeconds !== undefined ? { gracePeriodSeconds: probe.terminationGracePeriodSeconds } : {}),
  };
}

/**
 * The kubelet's computeInitContainerActions (1.29+, SidecarContainers): fills initContainersToStart
 * and containersToKill, and says whether the pod is initialised (the app containers may run).
 *
 * The init containers are read last to first, as the kubelet does: a container that has run (any
 * status) proves that every one before it finished its part, even if their instances have since
 * been removed. Before that point a container's own state decides: a regular one that exited 0, or a
 * sidecar that runs and has started, lets the next one start. From that point on (and once an app
 * container exists) only sidecars matter: each is kept running.
 */
function computeInitContainerActions(
  pod: Pod,
  status: PodStatus | undefined,
  actions: PodActions,
  probeFailure: ProbeFailureLookup | undefined,
  started: StartedLookup | undefined,
  actuated: ActuatedLookup | undefined,
): boolean {
  const spec = pod.spec!;
  const inits = spec.initContainers ?? [];
  if (inits.length === 0) return true;
  const restartPolicy = spec.restartPolicy ?? "Always";
  // An app container that was created or runs means initialisation was done (its init containers
  // may have been removed since). An exited one proves nothing: after a reboot every container is
  // exited, and the new sandbox must be initialised again.
  let initialized = spec.containers.some((c) => {
    const s = findContainerStatus(status, c.name, "app");
    return s?.state === "CONTAINER_RUNNING" || s?.state === "CONTAINER_CREATED";
  });
  let laterRan = initialized;
  const start: number[] = [];
  for (let i = inits.length - 1; i >= 0; i--) {
    const c = inits[i]!;
    const sidecar = isSidecar(c);
    const s = findContainerStatus(status, c.name, "init");
    if (!s) {
      // Initialised past it, but no instance: a sidecar is started (again); a regular one is done.
      if (laterRan && sidecar) start.push(i);
      continue;
    }
    if (laterRan && !sidecar) continue;
    if (s.state === "CONTAINER_CREATED" || neverRan(s)) {
      // Created but never started (the agent's start was cut short): start it.
      start.push(i);
    } else if (s.state === "CONTAINER_RUNNING") {
      // A regular init container runs: wait for it to exit.
      if (sidecar && keepSidecar(c, s, i, start, actions, probeFailure, started, actuated)) {
        // Started: it counts as done for the ordering.
        if (i === inits.length - 1) initialized = true;
        else if (!laterRan) start.push(i + 1);
      }
    } else if (s.state === "CONTAINER_EXITED") {
      if (sidecar) {
        // Restarted whatever the pod's restartPolicy (the crash-loop backoff applies).
        start.push(i);
      } else if (s.exitCode !== 0) {
        if (restartPolicy === "Never") {
          actions.podFailed = `init container ${c.name} failed with exit code ${s.exitCode}`;
          actions.killPod = true;
          actions.initContainersToStart = [];
          return false;
        }
        start.push(i);
      } else if (i === inits.length - 1) {
        initialized = true;
      } else {
        start.push(i + 1);
      }
    } else {
      // CONTAINER_UNKNOWN: stop it first, so that two instances never run; then as a failure.
      if (!sidecar && restartPolicy === "Never") {
        actions.podFailed = `init container ${c.name} is in an unknown state`;
        actions.killPod = true;
        actions.initContainersToStart = [];
        return false;
      }
      actions.containersToKill.push({ id: s.id, name: c.name, reason: `Init container is in "${s.state}" state, try killing it before restart` });
      start.push(i);
    }
    laterRan = true;
  }
  // Nothing has run yet: the first one starts.
  if (!laterRan) start.push(0);
  actions.initContainersToStart = start.reverse();
  return initialized;
}

/**
 * A running sidecar: killed and started again when its spec changed or a liveness or startup probe
 * failed. True when it has started (its startupProbe succeeded, or it has none): it then counts as
 * done for the ordering of the init containers.
 */
function keepSidecar(
  c: Container,
  s: ContainerStatus,
  i: number,
  start: number[],
  actions: PodActions,
  probeFailure: ProbeFailureLookup | undefined,
  started: StartedLookup | undefined,
  actuated: ActuatedLookup | undefined,
): boolean {
  const kill = killReason(c, s, probeFailure);
  if (kill) {
    actions.containersToKill.push({ ...kill, reason: kill.reason.replace(/^Container /, "Init container ") });
    start.push(i);
  } else if (actuated && !computeContainerResize(c, s, actuated, actions.resize)) {
    actions.containersToKill.push({ id: s.id, name: c.name, reason: resizeRestartReason(c.name) });
    start.push(i);
  }
  // A failed startup probe leaves it not started: the next init container keeps waiting.
  return !c.startupProbe || started?.(c.name, s.id) === true;
}
