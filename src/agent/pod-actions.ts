// computePodActions: what one sync of a pod must do to move the runtime toward the pod's spec — the
// kubelet's kuberuntime_manager computePodActions, as a pure function of the pod, the cached runtime
// status and the crash-loop backoff, so that the whole restartPolicy × container-state × init
// container matrix is tested without a runtime.
import type { Container, Pod } from "kubernetes-types/core/v1";
import type { ContainerStatus, PodSandboxStatus } from "../cri/types";
import type { PodStatus } from "../pleg/types";
import * as ann from "./labels";

export interface ContainerToKill {
  id: string;
  name: string;
  reason: string;
  /** The failed probe's own terminationGracePeriodSeconds, which replaces the pod's for this kill. */
  gracePeriodSeconds?: number;
}

/** Which probe, if any, has failed for a running container instance (the prober's cached results). */
export type ProbeFailureLookup = (containerName: string, containerId: string) => "liveness" | "startup" | undefined;

export interface PodActions {
  /** Kill the sandbox and every container (the sandbox is gone or must be replaced, or the pod is done). */
  killPod: boolean;
  createSandbox: boolean;
  /** The ready sandbox to start containers in ("" when one is to be created). */
  sandboxId: string;
  /** Attempt number of the sandbox to create. */
  attempt: number;
  /** The init container to start next (index into spec.initContainers), if any. */
  nextInitContainer: number | undefined;
  /** App containers to start (indexes into spec.containers). */
  containersToStart: number[];
  containersToKill: ContainerToKill[];
  /** Why nothing more can happen (e.g. an init container failed with restartPolicy Never). */
  podFailed?: string;
}

/** The newest status of the container with this name (across sandboxes), as podStatus is newest first. */
export function findContainerStatus(status: PodStatus | undefined, name: string, init?: boolean): ContainerStatus | undefined {
  return status?.containerStatuses.find((c) => c.metadata?.name === name && (init === undefined || isInit(c) === init));
}

export function isInit(c: ContainerStatus): boolean {
  return c.annotations[ann.CONTAINER_TYPE] === "init";
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

/**
 * An instance the runtime holds that never ran because the agent's own start of it was cut short: the
 * agent stopped between CreateContainer and StartContainer (state CREATED), or it died during
 * StartContainer. containerd then marks the container exited with reason StartError, exit code 128
 * and no start time, and its message says the call was cancelled: "context canceled", or, when the
 * cancellation killed the shim being started (seen with containerd 1.7), "failed to start shim:
 * start failed: …: signal: killed". Such an instance is not a failure of the container: it is
 * replaced without counting a restart, and no status shows it. A StartError for any other reason
 * (an executable not found) is the container's own and counts as the kubelet counts it.
 */
export function neverRan(c: ContainerStatus): boolean {
  if (c.startedAt) return false;
  if (c.state === "CONTAINER_CREATED") return true;
  return c.state === "CONTAINER_EXITED" && c.reason === "StartError" && CUT_SHORT.some((re) => re.test(c.message));
}

/** How containerd words a StartContainer whose caller went away. */
const CUT_SHORT: readonly RegExp[] = [/context canceled/, /failed to start shim: start failed: .*signal: killed/];

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

export function computePodActions(pod: Pod, status: PodStatus | undefined, probeFailure?: ProbeFailureLookup): PodActions {
  const spec = pod.spec!;
  const restartPolicy = spec.restartPolicy ?? "Always";
  const inits = spec.initContainers ?? [];
  const actions: PodActions = { killPod: false, createSandbox: false, sandboxId: "", attempt: 0, nextInitContainer: undefined, containersToStart: [], containersToKill: [] };
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
    const appDone = spec.containers.every((c) => succeeded(findContainerStatus(status, c.name, false)));
    if (restartPolicy === "OnFailure" && sb.attempt !== 0 && appDone) {
      actions.createSandbox = false;
      return actions;
    }
    if (inits.length > 0) {
      actions.nextInitContainer = 0;
      return actions;
    }
    spec.containers.forEach((c, i) => {
      if (restartPolicy !== "Always" && succeeded(findContainerStatus(status, c.name, false))) return;
      actions.containersToStart.push(i);
    });
    return actions;
  }

  actions.sandboxId = sb.sandboxId;
  actions.attempt = sb.attempt;

  // Init containers, in order: each must succeed before the next starts (computeInitContainerActions).
  for (let i = 0; i < inits.length; i++) {
    // Exited init containers of earlier sandboxes are removed when a new sandbox is made
    // (pruneInitContainersBeforeStart), so the newest status is this sandbox's.
    const current = findContainerStatus(status, inits[i]!.name, true);
    if (succeeded(current)) continue;
    if (current?.state === "CONTAINER_RUNNING") return actions; // wait for it
    if (current?.state === "CONTAINER_EXITED" && !neverRan(current)) {
      if (restartPolicy === "Never") {
        actions.podFailed = `init container ${inits[i]!.name} failed with exit code ${current.exitCode}`;
        actions.killPod = true;
        return actions;
      }
    }
    actions.nextInitContainer = i;
    return actions;
  }

  // App containers.
  const specNames = new Set(spec.containers.map((c) => c.name));
  let keep = 0;
  spec.containers.forEach((container: Container, i) => {
    const c = findContainerStatus(status, container.name, false);
    if (c?.state !== "CONTAINER_RUNNING") {
      if (shouldRestart(pod, c)) actions.containersToStart.push(i);
      return;
    }
    if (c.annotations[ann.CONTAINER_HASH] !== ann.containerHash(container)) {
      actions.containersToKill.push({ id: c.id, name: container.name, reason: "Container spec hash changed" });
      actions.containersToStart.push(i);
      return;
    }
    // A failed liveness or startup probe kills the container; it starts again unless the policy is
    // Never (the kubelet restarts it for OnFailure too: the kill is not the container's own exit).
    const failed = probeFailure?.(container.name, c.id);
    if (failed) {
      const probe = failed === "liveness" ? container.livenessProbe : container.startupProbe;
      actions.containersToKill.push({
        id: c.id,
        name: container.name,
        reason: `Container ${container.name} failed ${failed} probe`,
        ...(probe?.terminationGracePeriodSeconds !== undefined ? { gracePeriodSeconds: probe.terminationGracePeriodSeconds } : {}),
      });
      if (restartPolicy !== "Never") actions.containersToStart.push(i);
      return;
    }
    keep++;
  });
  // Running containers the spec no longer has (or duplicates of one name) are killed.
  const seen = new Set<string>();
  for (const c of status!.containerStatuses) {
    if (c.state !== "CONTAINER_RUNNING" || isInit(c)) continue;
    const name = c.metadata?.name ?? "";
    if (!specNames.has(name) || seen.has(name)) actions.containersToKill.push({ id: c.id, name, reason: specNames.has(name) ? "duplicate container" : "not in the pod's spec" });
    seen.add(name);
  }
  // Nothing running and nothing to start: the pod is done; kill its sandbox (the kubelet does the same).
  if (keep === 0 && actions.containersToStart.length === 0) actions.killPod = true;
  return actions;
}
