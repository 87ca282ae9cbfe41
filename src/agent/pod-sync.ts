// PodSyncer: carries out one pod's sync against the runtime — the kubelet's SyncPod and
// KillPod in kuberuntime_manager: kill what must go, create the sandbox, prune old init containers,
// start the next init container or the app containers (pulling images per policy, honouring the
// crash-loop and image-pull backoffs), and stop containers with their grace period and preStop hook.
// A new pod's start (its sandbox and first containers) takes a place at the node's PodStartGate
// (pod-start-gate.ts): in a burst of new pods the first ones start nearly as fast as alone.
// Dead instances of earlier starts are container GC's (src/eviction/container-gc.ts), the one place
// with the kubelet's policy on them; a sync removes only what a start replaces, as the kubelet's.
// The steps live beside it: container-start.ts (one container's start and postStart hook),
// image-pull.ts, container-kill.ts (killContainer, killPod) and pod-cleanup.ts (removals, cgroups).
import type { Container, Pod } from "kubernetes-types/core/v1";
import { podKey, podRef } from "../api";
import type { PodStatus } from "../pleg";
import { type Clock, errorMessage, type Logger, mkdirInside } from "../util";
import { VolumeMountError, type PodVolumes } from "../volume";
import type { Backoff } from "./backoff";
import { PodStartGate, type PodStartPlace } from "./pod-start-gate";
import { HandlerRunner } from "./lifecycle-handlers";
import { NoRuntimeClasses } from "./runtime-class-manager";
import { computePodActions, type ContainerKind, isInit, isSidecar, type PodActions, type ProbeFailureLookup, type StartedLookup } from "./pod-actions";
import { podLogDir, sandboxConfig, type RuntimeConfigOptions } from "./runtime-config";
import { PodHostnameError } from "./pod-hostname";
import type { Waiting } from "../status";
import { type DockerKeyring, makeDockerKeyring, NoServiceLister, type ObjectSource, ObjectSourceError, podPullSecrets, type ServiceLister } from "../objects";
import { containerReference, type EventRecorder, NO_EVENTS, podReference } from "../events";
import { ContainerKiller, findSpec, killingMessage } from "./container-kill";
import { ContainerStarter } from "./container-start";
import { ContainerStartError } from "./container-start-error";
import { ImagePuller, type ImageLookups, type PullKeyring } from "./image-pull";
import { PodCleanup } from "./pod-cleanup";
import type { SyncRuntime } from "./sync-runtime";
import { hasResize } from "./pod-resize";
import { PodResizer } from "./pod-resizer";
import { PodResourceState } from "./resource-state";

export type { SyncRuntime } from "./sync-runtime";
export { backoffKey } from "./container-start";

export interface SyncResult {
  actions: PodActions;
  /** Why containers are waiting after this sync (for the pod status). */
  waiting: Map<string, Waiting>;
  failed?: string;
  /** When a backoff ends and the pod should be synced again (ms since the epoch). */
  retryAt?: number;
  /**
   * The pod's volumes could not all be made (FailedMount): nothing was created, the containers wait
   * (ContainerCreating) and the pod's PodReadyToStartContainers condition carries this reason and message.
   */
  volumesNotReady?: Waiting;
  /** Whether the sync changed anything in the runtime. */
  changed: boolean;
  /** An in-place resize was attempted (step 8 of the kubelet's SyncPod): its failure's message, if it failed. */
  resize?: { error?: string };
  errors: string[];
}

/**
 * Until the node passes a real ObjectSource (src/volume, issue 15): the kubelet without a kubeClient,
 * whose env refs fail with its message and whose pull secrets are only logged as unavailable.
 */
const NO_OBJECT_SOURCE: ObjectSource = {
  description: "no object source",
  registerPod: () => {},
  unregisterPod: () => {},
  getConfigMap: (namespace, name) =>
    Promise.reject(new ObjectSourceError({ kind: "ConfigMap", namespace, name }, `couldn't get configMap ${namespace}/${name}, no kubeClient defined`)),
  getSecret: (namespace, name) =>
    Promise.reject(new ObjectSourceError({ kind: "Secret", namespace, name }, `couldn't get secret ${namespace}/${name}, no kubeClient defined`)),
  getServiceAccountToken: (pod, req) =>
    Promise.reject(
      new ObjectSourceError({ kind: "ServiceAccount", namespace: pod.metadata?.namespace ?? "default", name: req.serviceAccountName }, "no object source"),
    ),
  onChange: () => () => {},
  close: () => {},
};

/** Without an API server no RuntimeClass can be read (runtime-class-manager.ts). */
const NO_RUNTIME_CLASSES = new NoRuntimeClasses();

/** What a PodSyncer works with: one object, built once by the Agent from its options. */
export interface PodSyncerOptions {
  runtime: SyncRuntime;
  clock: Clock;
  crashBackoff: Backoff;
  imageBackoff: Backoff;
  /** The runtime configuration of sandboxes and containers (paths, DNS, cgroups, the node's IPs). */
  config: RuntimeConfigOptions;
  log: Logger;
  /** The volume manager: every volume is made before the sandbox and containers (WaitForAttachAndMount). */
  volumes: PodVolumes;
  /** A container was started again after an earlier instance (restartPolicy, a failed probe). */
  onContainerRestart?: (pod: Pod, container: string) => void;
  /** Orders and bounds the node's pod starts; a gate of its own by default. */
  starts?: PodStartGate;
  /** Where the configMaps and secrets that env and imagePullSecrets name come from; none by default. */
  objects?: ObjectSource;
  /** The services containers get service-link variables from; none without an API server. */
  services?: ServiceLister;
  /** The pod events the kubelet's runtime manager records (Pulling, Created, Started, Killing, BackOff, …). */
  events?: EventRecorder;
  /** What each container was created or last resized with (the actuated record); in memory by default. */
  actuated?: PodResourceState;
  /** A running container's memory usage (CRI ContainerStats), checked before a memory limit is lowered. */
  memoryUsage?: (containerId: string) => Promise<number | undefined>;
}

export class PodSyncer {
  private readonly starts: PodStartGate;
  private readonly objects: ObjectSource;
  private readonly events: EventRecorder;
  private readonly images: ImagePuller;
  private readonly killer: ContainerKiller;
  private readonly cleanup: PodCleanup;
  private readonly starter: ContainerStarter;
  /** In-place resizes and the actuated record (pod-resizer.ts). */
  readonly resizer: PodResizer;

  constructor(private readonly o: PodSyncerOptions) {
    this.starts = o.starts ?? new PodStartGate();
    this.objects = o.objects ?? NO_OBJECT_SOURCE;
    this.events = o.events ?? NO_EVENTS;
    // Lifecycle hooks (postStart, preStop) through the prober's handlers.
    const hooks = new HandlerRunner(o.runtime, o.clock);
    const base = { runtime: o.runtime, clock: o.clock, log: o.log, events: this.events };
    this.images = new ImagePuller({ ...base, imageBackoff: o.imageBackoff });
    this.killer = new ContainerKiller({ ...base, opts: o.config, hooks });
    this.cleanup = new PodCleanup({ runtime: o.runtime, log: o.log, opts: o.config, volumes: o.volumes });
    this.resizer = new PodResizer({
      runtime: o.runtime,
      cgroups: () => this.cleanup.cgroups,
      actuated: o.actuated ?? new PodResourceState(undefined),
      config: o.config,
      memoryUsage: o.memoryUsage,
      log: o.log,
    });
    this.starter = new ContainerStarter({
      ...base,
      opts: o.config,
      crashBackoff: o.crashBackoff,
      volumes: o.volumes,
      objects: this.objects,
      services: o.services ?? new NoServiceLister(),
      hooks,
      images: this.images,
      killer: this.killer,
      cleanup: this.cleanup,
      onContainerRestart: o.onContainerRestart,
    });
  }

  /** Whether the container's postStart hook is running or failed (its status says not started, not ready). */
  postStartRunning(containerId: string): boolean {
    return this.starter.postStartRunning(containerId);
  }

  /** Forgets the postStart state of containers a relist since `listedAt` no longer lists (ContainerStarter). */
  prunePostStart(live: ReadonlySet<string>, listedAt: number): void {
    this.starter.prunePostStart(live, listedAt);
  }

  /**
   * One sync of a running pod (the kubelet's SyncPod): kill what must go, the pod's cgroup and
   * volumes, then the sandbox and the next init container or the app containers.
   */
  async syncPod(pod: Pod, status: PodStatus | undefined, probeFailure?: ProbeFailureLookup, started?: StartedLookup): Promise<SyncResult> {
    const actions = computePodActions(pod, status, probeFailure, started, this.resizer.actuatedOf(podRef(pod).uid));
    const result: SyncResult = { actions, waiting: new Map(), changed: false, errors: [] };
    if (actions.podFailed) result.failed = actions.podFailed;

    // The kubelet's syncPod: while the runtime's network is not ready only host-network pods go on
    // (runtimeState.networkErrors); a sync that only stops the pod still does.
    const networkError = pod.spec?.hostNetwork ? undefined : this.o.config.networkErrors?.();
    if (networkError && !(actions.killPod && !actions.createSandbox)) return this.networkNotReady(pod, result, networkError);

    if (actions.killPod) {
      // SyncPod: a pod whose sandbox must be replaced says so before it is killed.
      if (actions.createSandbox) this.events.event(podReference(pod), "Normal", "SandboxChanged", "Pod sandbox changed, it will be killed and re-created.");
      await this.killer.killPod(pod, status, undefined);
      result.changed = true;
      if (!actions.createSandbox) return result;
    }
    for (const k of actions.containersToKill) {
      this.o.log.info("killing container", { pod: podKey(pod), container: k.name, id: k.id.slice(0, 12), reason: k.reason });
      await this.killer.killContainer(
        pod,
        k.id,
        findSpec(pod, k.name),
        k.gracePeriodSeconds,
        undefined,
        killingMessage(pod, k.name, k.reason),
        undefined,
        status?.ips[0] ?? "",
      );
      result.changed = true;
    }

    // The pod's cgroup before anything of the pod runs (the kubelet's syncPod: UpdateQOSCgroups and
    // EnsureExists before the volumes and the runtime's SyncPod); a pod that only stops needs none.
    if (!actions.podFailed && !(actions.killPod && !actions.createSandbox)) {
      try {
        this.cleanup.cgroups.ensure(pod);
      } catch (err) {
        const message = errorMessage(err);
        for (const c of [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])])
          result.waiting.set(c.name, { reason: "ContainerCreating", message });
        result.errors.push(message);
        return result;
      }
    }

    // The kubelet's syncPod waits for the pod's volumes before the runtime's SyncPod creates anything,
    // on every sync of a pod that is to run (which also refreshes configMap, secret, downwardAPI and
    // projected content); a pod that only has to stop does not wait for them.
    if (!actions.podFailed && !(actions.killPod && !actions.createSandbox)) {
      try {
        await this.o.volumes.waitForAttachAndMount(pod);
      } catch (err) {
        if (!(err instanceof VolumeMountError)) throw err;
        // What the kubelet shows for a pod stuck on a mount: Pending, every container waiting with
        // reason ContainerCreating (PodInitializing with init containers), and a Warning FailedMount
        // event with the message. The message also rides on the waiting state and on the
        // PodReadyToStartContainers condition (reason FailedMount), where `nodeagent pleg watch --agent` reads it.
        const reason = pod.spec?.initContainers?.length ? "PodInitializing" : "ContainerCreating";
        this.events.event(podReference(pod), "Warning", "FailedMount", err.message);
        for (const c of [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])]) result.waiting.set(c.name, { reason, message: err.message });
        result.volumesNotReady = { reason: "FailedMount", message: err.message };
        result.retryAt = err.retryAt ?? this.o.clock.now() + 10_000;
        return result;
      }
    }

    // A new sandbox is made with a place at the PodStartGate, held until this sync is done.
    const start: { place?: PodStartPlace } = {};
    try {
      return await this.startPod(pod, status, actions, result, start);
    } finally {
      start.place?.release();
    }
  }

  /** The sandbox when the pod needs one, then the next init container or the app containers. */
  private async startPod(
    pod: Pod,
    status: PodStatus | undefined,
    actions: PodActions,
    result: SyncResult,
    start: { place?: PodStartPlace },
  ): Promise<SyncResult> {
    let sandboxId = actions.sandboxId;
    let imageLookups: ImageLookups | undefined;
    let podIPs: readonly string[] = status?.ips ?? [];
    let sbConfig: ReturnType<typeof sandboxConfig>;
    try {
      sbConfig = sandboxConfig(pod, actions.attempt, this.o.config);
    } catch (err) {
      // The kubelet's generatePodSandboxConfig failing (a hostname that cannot be made, an FQDN too
      // long for setHostnameAsFQDN): no sandbox, the pod waits and says why.
      if (!(err instanceof PodHostnameError)) throw err;
      return this.sandboxFailed(pod, result, `Failed to create pod sandbox: ${errorMessage(err)}`);
    }
    if (actions.createSandbox) {
      // Old init containers would make the new sandbox's init look done (pruneInitContainersBeforeStart).
      for (const c of status?.containerStatuses ?? []) {
        if (isInit(c) && c.state !== "CONTAINER_RUNNING") await this.cleanup.removeContainer(c);
      }
      mkdirInside(this.o.config.podLogsRoot, podLogDir(pod, this.o.config));
      // The images are looked up while the sandbox starts: neither depends on the other, and the
      // lookup is a round trip off every new pod's start.
      imageLookups = this.images.lookUpImages(pod, actions);
      start.place = await this.starts.enter();
      try {
        // createPodSandbox: the RuntimeClass's handler first; a lookup that fails fails the sandbox.
        const handler = await (this.o.config.runtimeClasses ?? NO_RUNTIME_CLASSES).lookupRuntimeHandler(pod.spec?.runtimeClassName);
        sandboxId = await this.o.runtime.runPodSandbox(sbConfig, handler);
      } catch (err) {
        return this.sandboxFailed(pod, result, `Failed to create pod sandbox: ${errorMessage(err)}`);
      }
      result.changed = true;
      // The IPs are read here when the pod's /etc/hosts names them (every pod on the pod network) or a
      // container's env or postStart hook needs them; the relist after this sync reads the sandbox's
      // status for the pod status anyway.
      podIPs = [];
      if (!pod.spec?.hostNetwork || needsPodIP(pod)) {
        const network = (await this.o.runtime.podSandboxStatus(sandboxId).catch(() => undefined))?.status.network;
        if (network) podIPs = [network.ip, ...network.additionalIps.map((a) => a.ip)].filter((ip) => ip !== "");
      }
      this.o.log.info("created sandbox", { pod: podKey(pod), sandbox: sandboxId.slice(0, 12), attempt: actions.attempt, ip: podIPs[0] });
    }
    // getPullSecretsForPod: read at most once per sync, and only when an image is actually pulled.
    let keyring: Promise<DockerKeyring> | undefined;
    const pullKeyring: PullKeyring = () => (keyring ??= podPullSecrets(pod, this.objects, this.o.log).then(makeDockerKeyring));

    const startOne = async (container: Container, kind: ContainerKind) => {
      try {
        // When creating a container, its allocated resources are what it runs with (actuated).
        this.resizer.created(pod, container);
        await this.starter.startContainer(pod, container, kind, status, sandboxId, sbConfig, podIPs, pullKeyring, imageLookups, start.place);
        result.changed = true;
      } catch (err) {
        if (err instanceof ContainerStartError) {
          // startContainer's "Error: …" event (the crash-loop backoff has its own BackOff event, a failed
          // postStart hook its FailedPostStartHook).
          if (err.reason !== "CrashLoopBackOff" && err.reason !== "PostStartHookError")
            this.events.event(containerReference(pod, container.name), "Warning", "Failed", `Error: ${err.eventMessage ?? err.message}`);
          result.waiting.set(container.name, { reason: err.reason, message: err.message });
          if (err.retryAt) result.retryAt = Math.min(result.retryAt ?? Infinity, err.retryAt);
          else result.errors.push(`${container.name}: ${err.reason}: ${err.message}`);
        } else {
          this.events.event(containerReference(pod, container.name), "Warning", "Failed", `Error: ${errorMessage(err)}`);
          result.waiting.set(container.name, { reason: "RunContainerError", message: errorMessage(err) });
          result.errors.push(`${container.name}: ${errorMessage(err)}`);
        }
        return false;
      }
      return true;
    };
    // The kubelet's SyncPod: the ephemeral containers first (one that fails holds nothing back, so a pod
    // whose init fails can still be debugged), then the init containers; a regular one that fails to
    // start ends the sync there, a sidecar that fails does not hold the others back.
    for (const i of actions.ephemeralContainersToStart) await startOne(pod.spec!.ephemeralContainers![i]! as Container, "ephemeral");
    for (const i of actions.initContainersToStart) {
      const c = pod.spec!.initContainers![i]!;
      if (!(await startOne(c, "init")) && !isSidecar(c)) return result;
    }
    // Step 8 of the kubelet's SyncPod: the running containers resized in place, before the app
    // containers start (a container restarted for its resize starts with the pod's cgroup resized).
    if (hasResize(actions.resize)) {
      const error = await this.resizer.resize(pod, actions.resize);
      result.resize = error ? { error } : {};
      result.changed = true;
      if (error) result.errors.push(`resize: ${error}`);
      // The kubelet's RequestPodReinspect: the next sync, soon, sees the resize done (or not).
      else result.retryAt = Math.min(result.retryAt ?? Infinity, this.o.clock.now() + 1000);
    }
    for (const i of actions.containersToStart) await startOne(pod.spec!.containers[i]!, "app");
    return result;
  }

  /** The sandbox could not be made: the FailedCreatePodSandBox event, and every container waits with the message. */
  private sandboxFailed(pod: Pod, result: SyncResult, msg: string): SyncResult {
    this.events.event(podReference(pod), "Warning", "FailedCreatePodSandBox", msg);
    result.errors.push(msg);
    for (const c of pod.spec!.containers) result.waiting.set(c.name, { reason: "ContainerCreating", message: msg });
    return result;
  }

  /**
   * The pod waits for the runtime's network: the kubelet's NetworkNotReady event, its containers wait
   * with its message, and the worker tries again after its error backoff.
   */
  private networkNotReady(pod: Pod, result: SyncResult, networkError: string): SyncResult {
    const message = `network is not ready: ${networkError}`;
    this.events.event(podReference(pod), "Warning", "NetworkNotReady", message);
    for (const c of pod.spec?.initContainers ?? []) result.waiting.set(c.name, { reason: "PodInitializing", message });
    for (const c of pod.spec?.containers ?? []) result.waiting.set(c.name, { reason: "ContainerCreating", message });
    result.errors.push(message);
    return result;
  }

  /** The kubelet's killContainer (container-kill.ts). */
  killContainer(...args: Parameters<ContainerKiller["killContainer"]>): Promise<void> {
    return this.killer.killContainer(...args);
  }

  /** Stops every running container and then every sandbox of the pod (container-kill.ts). */
  killPod(pod: Pod | undefined, status: PodStatus | undefined, graceOverride: number | undefined): Promise<void> {
    return this.killer.killPod(pod, status, graceOverride);
  }

  /** After a pod is gone for good: remove its containers, sandboxes, volumes and pod cgroup (pod-cleanup.ts). */
  async removePod(uid: string, status: PodStatus | undefined): Promise<void> {
    await this.cleanup.removePod(uid, status);
    this.resizer.removePod(uid);
  }

  /** Housekeeping of the pods' cgroups: those of pods none of `known` is are removed (pod-cleanup.ts). */
  cgroupHousekeeping(known: ReadonlySet<string>): void {
    this.cleanup.cgroupHousekeeping(known);
  }
}

/** Whether any container's env reads the pod IP through the downward API, or its httpGet postStart hook dials it. */
function needsPodIP(pod: Pod): boolean {
  return [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])].some(
    (c) =>
      (c.env ?? []).some((e) => e.valueFrom?.fieldRef?.fieldPath === "status.podIP" || e.valueFrom?.fieldRef?.fieldPath === "status.podIPs") ||
      (c.lifecycle?.postStart?.httpGet !== undefined && !c.lifecycle.postStart.httpGet.host),
  );
}
