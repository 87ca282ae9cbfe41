// computeApiPodStatus: the v1 PodStatus the kubelet reports (generateAPIPodStatus): phase, conditions,
// and every container's state, last state, restart count and readiness, from the runtime status the
// PLEG cached plus what the last sync learned (why a container is waiting).
import { qosClass } from "../cm";
import type { Container, ContainerState, ContainerStatus as ApiContainerStatus, Pod, PodCondition, PodStatus as ApiPodStatus } from "kubernetes-types/core/v1";
import { isTerminalPhase } from "../api";
import type { ContainerStatus } from "../cri";
import type { PodStatus } from "../pleg";
import { apiTime } from "../util";
import * as ann from "./container-annotations";
import { containerKind, type ContainerKind, isSidecar, neverRan } from "./container-kinds";
import { containerUser, volumeMountStatuses } from "./container-status-fields";
import { observedGeneration, type ConditionWithGeneration, type PodStatusWithGeneration } from "./observed-generation";
import { KUBELET_CONDITIONS } from "./kubelet-conditions";

export interface Waiting {
  reason: string;
  message: string;
}

/** Why a pod can never run: the status's reason and message (OutOfpods from admission, a failed init…). */
export interface PodFailure {
  reason: string;
  message: string;
}

export interface StatusInputs {
  pod: Pod;
  /**
   * The CRI runtime's name (VersionResponse.runtimeName, "containerd"): a container's ID in the status
   * is `<runtimeName>://<id>`, as the kubelet's kubecontainer.ContainerID{Type: runtimeName} prints it.
   */
  runtimeName: string;
  runtime: PodStatus | undefined;
  /** Why containers are waiting, by name, from the last sync (CrashLoopBackOff, ErrImagePull, …). */
  waiting: ReadonlyMap<string, Waiting>;
  /** Readiness of a running container (the prober's result); containers without a readiness probe are ready. */
  ready?: (containerName: string, containerId: string) => boolean;
  /** containerStatuses[].started of a running container: its startup probe passed (true without one). */
  started?: (containerName: string, containerId: string) => boolean;
  /** Why the agent killed a container instance (a failed probe), when the runtime gives no message. */
  killMessage?: (containerId: string) => string | undefined;
  /**
   * An exited instance's message: the runtime's with its termination message file (or, for
   * FallbackToLogsOnError, its log's end) appended (termination-message.ts); the runtime's alone without it.
   */
  terminationMessage?: (c: ContainerStatus) => string;
  /** The Node's InternalIP: status.hostIP. */
  hostIP: string;
  /** The Node's InternalIPs, hostIP first (status.hostIPs, a host-network pod's IPs); [hostIP] when not given. */
  hostIPs?: readonly string[];
  /** When the agent first saw the pod (RFC 3339). */
  startTime: string;
  /** The pod's volumes could not all be made (FailedMount): PodReadyToStartContainers is False with this reason and message. */
  volumesNotReady?: Waiting;
  /** Set when the pod can never run (admission rejected it, an init container failed with restartPolicy Never). */
  failed?: PodFailure;
  /** Last time each condition type changed, kept by the caller so transitions keep their time. */
  now: string;
  previous?: ApiPodStatus;
}

/** A container's ID as the API shows it: `containerd://<id>` on containerd. */
const containerID = (i: StatusInputs, id: string) => `${i.runtimeName}://${id}`;

/** CRI nanoseconds → API time. */
const rfc3339 = (ns: number) => apiTime(ns / 1e6);

function terminatedState(c: ContainerStatus, i: StatusInputs): ContainerState {
  const message = (i.terminationMessage ? i.terminationMessage(c) : c.message) || i.killMessage?.(c.id);
  return {
    terminated: {
      exitCode: c.exitCode,
      reason: c.reason || (c.exitCode === 0 ? "Completed" : "Error"),
      ...(message ? { message } : {}),
      startedAt: c.startedAt ? rfc3339(c.startedAt) : undefined,
      finishedAt: c.finishedAt ? rfc3339(c.finishedAt) : undefined,
      containerID: containerID(i, c.id),
    },
  };
}

/** All runtime statuses of one container name, newest first. */
function instances(rt: PodStatus | undefined, name: string, kind: ContainerKind): ContainerStatus[] {
  // An instance whose start the agent itself cut short never ran: the next sync replaces it, and until
  // then no status shows it (a StartError would make a restartPolicy Never pod look Failed for good).
  return (rt?.containerStatuses ?? []).filter((c) => c.metadata?.name === name && containerKind(c) === kind && !neverRan(c));
}

/**
 * An ephemeral container's status, as the kubelet's convertToAPIContainerStatuses makes it for
 * spec.ephemeralContainers: like an app container's, but the prober never sees it, so it is never
 * ready and has no `started` (the kubelet's prober manager sets both only for the other two lists).
 */
function ephemeralApiStatus(i: StatusInputs, spec: Container): ApiContainerStatus {
  const { started: _started, ...status } = containerApiStatus(i, spec, "ephemeral");
  return { ...status, ready: false };
}

function containerApiStatus(i: StatusInputs, spec: Container, kind: ContainerKind): ApiContainerStatus {
  const name = spec.name;
  const image = spec.image ?? "";
  // A sidecar (an init container with restartPolicy Always) is ready as an app container is, by its
  // readiness probe; a regular init container is ready once it succeeded.
  const probed = kind !== "init" || isSidecar(spec);
  const all = instances(i.runtime, name, kind);
  const latest = all[0];
  const waiting = i.waiting.get(name);
  const restartCount = latest ? Number(latest.annotations[ann.CONTAINER_RESTART_COUNT] ?? 0) : 0;
  const volumeMounts = volumeMountStatuses(spec);
  const user = latest ? containerUser(latest) : undefined;
  const base = {
    name,
    image,
    imageID: latest?.imageRef ?? "",
    restartCount,
    ...(latest ? { containerID: containerID(i, latest.id) } : {}),
    ...(volumeMounts ? { volumeMounts } : {}),
    ...(user ? { user } : {}),
  };
  if (!latest) {
    // The default waiting state of every container of a pod with init containers — its app containers
    // too, even while an init container fails — is PodInitializing, else ContainerCreating (the
    // kubelet's convertToAPIContainerStatuses, defaultWaitingState).
    const reason = waiting?.reason ?? ((i.pod.spec?.initContainers?.length ?? 0) > 0 ? "PodInitializing" : "ContainerCreating");
    return { ...base, ready: false, started: false, state: { waiting: { reason, ...(waiting?.message ? { message: waiting.message } : {}) } } };
  }
  if (latest.state === "CONTAINER_RUNNING") {
    const prev = all.find((c, idx) => idx > 0 && c.state === "CONTAINER_EXITED");
    const ready = probed ? (i.ready?.(name, latest.id) ?? true) : false;
    return {
      ...base,
      ready,
      started: i.started?.(name, latest.id) ?? true,
      state: { running: { startedAt: rfc3339(latest.startedAt) } },
      ...(prev ? { lastState: terminatedState(prev, i) } : {}),
    };
  }
  if (latest.state === "CONTAINER_EXITED" && waiting) {
    // Waiting to run again (CrashLoopBackOff): the exit it is recovering from is the last state.
    return {
      ...base,
      ready: false,
      started: false,
      state: { waiting: { reason: waiting.reason, message: waiting.message } },
      lastState: terminatedState(latest, i),
    };
  }
  if (latest.state === "CONTAINER_EXITED") {
    const prev = all.find((c, idx) => idx > 0 && c.state === "CONTAINER_EXITED");
    return {
      ...base,
      ready: !probed && latest.exitCode === 0,
      started: false,
      state: terminatedState(latest, i),
      ...(prev ? { lastState: terminatedState(prev, i) } : {}),
    };
  }
  return {
    ...base,
    ready: false,
    started: false,
    state: { waiting: { reason: waiting?.reason ?? "ContainerCreating", ...(waiting?.message ? { message: waiting.message } : {}) } },
  };
}

/**
 * The kubelet's getPhase over the API container statuses (1.29+, with native sidecars): regular init
 * containers must have succeeded and sidecars started (unless an app container already ran) before
 * the pod leaves Pending; then the app containers and the running sidecars decide. A sidecar that has
 * stopped counts for nothing, so a Job's pod whose app containers are done is Succeeded or Failed
 * once its sidecars are stopped (computePodActions stops them).
 */
export function podPhase(pod: Pod, init: ApiContainerStatus[], app: ApiContainerStatus[], failed: PodFailure | undefined): NonNullable<ApiPodStatus["phase"]> {
  if (failed) return "Failed";
  const restartPolicy = pod.spec?.restartPolicy ?? "Always";
  let pendingInit = 0;
  let pendingSidecars = 0;
  let failedInit = 0;
  let running = 0;
  let waiting = 0;
  let stopped = 0;
  let succeeded = 0;
  (pod.spec?.initContainers ?? []).forEach((c, idx) => {
    const s = init[idx];
    if (!isSidecar(c)) {
      const exit = s?.state?.terminated ?? s?.lastState?.terminated;
      if (s?.state?.running || !exit) pendingInit++;
      else if (exit.exitCode !== 0) failedInit++;
    } else if (s?.state?.running) {
      if (!s.started) pendingSidecars++;
      running++;
    } else if (!s?.state?.terminated && !s?.lastState?.terminated) {
      // Never ran yet; a sidecar that ran and stopped (or waits to restart) counts for nothing.
      pendingSidecars++;
      waiting++;
    }
  });
  for (const s of app) {
    if (s.state?.running) running++;
    else if (s.state?.terminated) {
      stopped++;
      if (s.state.terminated.exitCode === 0) succeeded++;
    } else if (s.lastState?.terminated)
      stopped++; // waiting to restart after an exit
    else waiting++;
  }
  if (failedInit > 0 && restartPolicy === "Never") return "Failed";
  // Once an app container ran, a sidecar starting again does not take the pod back to Pending.
  if (pendingInit > 0 || (pendingSidecars > 0 && !anyAppContainerRan(app)) || waiting > 0) return "Pending";
  if (running > 0) return "Running";
  if (stopped > 0) {
    if (restartPolicy === "Always") return "Running";
    if (stopped === succeeded) return "Succeeded";
    return restartPolicy === "Never" ? "Failed" : "Running";
  }
  return "Pending";
}

/** Whether any app container has run (the kubelet's HasAnyRegularContainerStarted). */
function anyAppContainerRan(app: ApiContainerStatus[]): boolean {
  return app.some((s) => s.state?.running || s.state?.terminated || s.lastState?.terminated);
}

function condition(type: string, ok: boolean, i: Pick<StatusInputs, "now" | "previous" | "pod">, reason?: string, message?: string): ConditionWithGeneration {
  const old = i.previous?.conditions?.find((c) => c.type === type);
  const status = ok ? "True" : "False";
  const generation = observedGeneration(i.pod);
  return {
    type,
    ...(generation ? { observedGeneration: generation } : {}),
    status,
    lastProbeTime: null as unknown as undefined,
    lastTransitionTime: old && old.status === status ? old.lastTransitionTime : i.now,
    ...(reason && !ok ? { reason } : {}),
    ...(message && !ok ? { message } : {}),
  };
}

export function computeApiPodStatus(i: StatusInputs): PodStatusWithGeneration {
  const spec = i.pod.spec!;
  const initSpecs = spec.initContainers ?? [];
  const init = initSpecs.map((c) => containerApiStatus(i, c, "init"));
  const app = spec.containers.map((c) => containerApiStatus(i, c, "app"));
  // The kubelet's ephemeralContainerStatuses: one per spec.ephemeralContainers entry, left out when
  // the pod has none; they count for neither the phase nor a condition.
  const ephemeral = (spec.ephemeralContainers ?? []).map((c) => ephemeralApiStatus(i, c as Container));
  const phase = podPhase(i.pod, init, app, i.failed);
  // Initialized (GeneratePodInitializedCondition): regular init containers succeeded and sidecars
  // started, or an app container has run already. Ready also counts the sidecars' readiness.
  const notInitialized = initSpecs.filter((c, idx) => (isSidecar(c) ? !init[idx]!.started : init[idx]!.state?.terminated?.exitCode !== 0)).map((c) => c.name);
  const initialized = notInitialized.length === 0 || anyAppContainerRan(app);
  const sidecars = init.filter((_, idx) => isSidecar(initSpecs[idx]!));
  const unready = [...sidecars, ...app].filter((s) => !s.ready).map((s) => s.name);
  const sandboxReady = i.runtime?.sandboxStatuses[0]?.state === "SANDBOX_READY";
  const containersReady = unready.length === 0 && !isTerminalPhase(phase);
  const notReadyMessage = `containers with unready status: [${unready.join(" ")}]`;
  const notReadyReason = isTerminalPhase(phase) ? "PodCompleted" : "ContainersNotReady";
  // Conditions others own (a controller's readiness gate conditions, set on the API pod) are the
  // pod's as its source has them; the kubelet copies them into the status it generates.
  const others = (i.pod.status?.conditions ?? []).filter((c) => !KUBELET_CONDITIONS.has(c.type));
  const gates = containersReady ? readinessGateMessage(i.pod, others) : undefined;
  const conditions: ConditionWithGeneration[] = [
    condition("PodReadyToStartContainers", sandboxReady, i, i.volumesNotReady?.reason, i.volumesNotReady?.message),
    condition("Initialized", initialized, i, "ContainersNotInitialized", `containers with incomplete status: [${notInitialized.join(" ")}]`),
    gates ? condition("Ready", false, i, "ReadinessGatesNotReady", gates) : condition("Ready", containersReady, i, notReadyReason, notReadyMessage),
    condition("ContainersReady", containersReady, i, notReadyReason, notReadyMessage),
    condition("PodScheduled", true, i),
    ...others,
  ];
  const generation = observedGeneration(i.pod);
  const hostIPs = i.hostIPs?.length ? i.hostIPs : [i.hostIP];
  const podIPs = i.pod.spec?.hostNetwork ? hostIPs : (i.runtime?.ips ?? []);
  return {
    // The generation of the pod this status was computed from (the status manager's SetPodStatus).
    ...(generation ? { observedGeneration: generation } : {}),
    phase,
    conditions,
    ...(i.failed ? { reason: i.failed.reason, message: i.failed.message } : {}),
    hostIP: i.hostIP,
    hostIPs: hostIPs.map((ip) => ({ ip })),
    ...(podIPs[0] ? { podIP: podIPs[0], podIPs: podIPs.map((ip) => ({ ip })) } : {}),
    startTime: i.startTime,
    ...(init.length ? { initContainerStatuses: init } : {}),
    containerStatuses: app,
    ...(ephemeral.length ? { ephemeralContainerStatuses: ephemeral } : {}),
    qosClass: qosClass(i.pod),
  };
}

/**
 * GeneratePodReadyCondition's readiness gates (k/k@1.24.1 pkg/kubelet/status/generate.go): with every
 * container ready, the pod is Ready only if each gate's condition is there and True; otherwise the
 * kubelet's message for every gate that is not, joined with ", ". Undefined when every gate passes.
 */
export function readinessGateMessage(pod: Pod, conditions: readonly PodCondition[]): string | undefined {
  const unready: string[] = [];
  for (const g of pod.spec?.readinessGates ?? []) {
    const c = conditions.find((x) => x.type === g.conditionType);
    if (!c) unready.push(`corresponding condition of pod readiness gate ${JSON.stringify(g.conditionType)} does not exist.`);
    else if (c.status !== "True") unready.push(`the status of pod readiness gate ${JSON.stringify(g.conditionType)} is not "True", but ${c.status}`);
  }
  return unready.length ? unready.join(", ") : undefined;
}

/** The pod's QoS class, as Kubernetes computes it (src/cm/qos.ts). */
export { qosClass };
