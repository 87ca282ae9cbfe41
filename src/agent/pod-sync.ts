// PodSyncer: carries out one pod's sync against the runtime — the kubelet's SyncPod and
// KillPod in kuberuntime_manager: kill what must go, create the sandbox, prune old init containers,
// start the next init container or the app containers (pulling images per policy, honouring the
// crash-loop and image-pull backoffs), and stop containers with their grace period and preStop hook.
// A new pod's start (its sandbox and first containers) takes a place at the node's PodStartGate
// (pod-start-gate.ts): in a burst of new pods the first ones start nearly as fast as alone.
// Dead instances of earlier starts are container GC's (src/eviction/container-gc.ts), the one place
// with the kubelet's policy on them; a sync removes only what a start replaces, as the kubelet's.
import { readdirSync, writeFileSync } from "node:fs";
import type { Container, Pod } from "kubernetes-types/core/v1";
import { podKey, podRef } from "../api/pod";
import type { CriClient } from "../cri/client";
import { NotFoundError, runtimeErrorMessage, runtimeErrorText } from "../cri/errors";
import type { ContainerStatus, Image } from "../cri/types";
import { POD_NAME as POD_NAME_LABEL, POD_NAMESPACE as POD_NAMESPACE_LABEL, POD_UID as POD_UID_LABEL } from "../cri/labels";
import type { PodStatus } from "../pleg/types";
import { flatPodCgroups, type PodCgroups } from "../cm";
import type { Clock } from "../util/clock";
import { formatDuration } from "../util/duration";
import type { Logger } from "../util/log";
import { confinedPath, mkdirInside, PathEscapeError, removeInside } from "../util/confined-path";
import { podUIDFromLogsDirectory } from "../eviction/container-gc";
import { cleanContainerLogs } from "../eviction/container-log-manager";
import { errorMessage } from "../util/errors";
import { VolumeMountError, type PodVolumes } from "../volume/types";
import type { Backoff } from "./backoff";
import { PodStartGate, type PodStartPlace } from "./pod-start-gate";
import { HandlerRunner } from "./lifecycle-handlers";
import { NoRuntimeClasses } from "./runtime-class-manager";
import { imageUser, needsImageUser, runAsNonRootProblem, type ImageUser } from "./run-as-non-root";
import * as ann from "./labels";
import { computePodActions, findContainerStatus, hasSidecars, isInit, isSidecar, neverRan, type PodActions, type ProbeFailureLookup, type StartedLookup } from "./pod-actions";
import { TerminationOrder } from "./termination-order";
import { containerConfig, containerLogDir, downwardEnvValue, podDir, podLogDir, sandboxConfig, terminationLogDir, type RuntimeConfigOptions } from "./runtime-config";
import type { Waiting } from "../status";
import { ContainerConfigError, makeEnvironmentVariables } from "../volume/container-env";
import type { DockerKeyring } from "../volume/docker-keyring";
import { makeDockerKeyring, podPullSecrets, pullWithCredentials } from "../volume/pull-secrets";
import { NoServiceLister } from "../volume/no-service-lister";
import { ObjectSourceError, type ObjectSource, type ServiceLister } from "../volume/types";
import { containerReference, podReference } from "../events/object-ref";
import { NO_EVENTS, type EventRecorder } from "../events/types";

export type SyncRuntime = Pick<
  CriClient,
  | "runPodSandbox" | "stopPodSandbox" | "removePodSandbox" | "podSandboxStatus" | "createContainer" | "startContainer"
  | "stopContainer" | "removeContainer" | "execSync" | "pullImage" | "imageStatus"
>;

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
  errors: string[];
}

/** Image lookups started ahead of the containers that need them: image → the image, or undefined when absent. */
type ImageLookups = Map<string, Promise<Image | undefined>>;

/** The pod's image-pull keyring, read from its imagePullSecrets once per sync and only if a pull happens. */
type PullKeyring = () => Promise<DockerKeyring>;

/**
 * Until the node passes a real ObjectSource (src/volume, issue 15): the kubelet without a kubeClient,
 * whose env refs fail with its message and whose pull secrets are only logged as unavailable.
 */
const NO_OBJECT_SOURCE: ObjectSource = {
  description: "no object source",
  registerPod: () => {},
  unregisterPod: () => {},
  getConfigMap: (namespace, name) => Promise.reject(new ObjectSourceError({ kind: "ConfigMap", namespace, name }, `couldn't get configMap ${namespace}/${name}, no kubeClient defined`)),
  getSecret: (namespace, name) => Promise.reject(new ObjectSourceError({ kind: "Secret", namespace, name }, `couldn't get secret ${namespace}/${name}, no kubeClient defined`)),
  getServiceAccountToken: (pod, req) => Promise.reject(new ObjectSourceError({ kind: "ServiceAccount", namespace: pod.metadata?.namespace ?? "default", name: req.serviceAccountName }, "no object source")),
  onChange: () => () => {},
  close: () => {},
};

/** Without an API server no RuntimeClass can be read (runtime-class-manager.ts). */
const NO_RUNTIME_CLASSES = new NoRuntimeClasses();

/** The kubelet's minimum grace period when stopping a container (minimumGracePeriodInSeconds). */
const MIN_GRACE_SECONDS = 2;

class ContainerStartError extends Error {
  constructor(
    readonly reason: string,
    message: string,
    readonly retryAt?: number,
    /**
     * What startContainer's "Error: …" event says, when not the message: the image manager's errors
     * are the bare reason there (`Error: ErrImagePull`), as the kubelet's gRPC status message is.
     */
    readonly eventMessage?: string,
  ) {
    super(message);
  }
}

export class PodSyncer {
  constructor(
    private readonly runtime: SyncRuntime,
    private readonly clock: Clock,
    private readonly crashBackoff: Backoff,
    private readonly imageBackoff: Backoff,
    private readonly opts: RuntimeConfigOptions,
    private readonly log: Logger,
    /** The volume manager: every volume is made before the sandbox and containers (WaitForAttachAndMount). */
    private readonly volumes: PodVolumes,
    /** A container was started again after an earlier instance (restartPolicy, a failed probe). */
    private readonly onContainerRestart?: (pod: Pod, container: string) => void,
    /** Orders and bounds the node's pod starts. */
    private readonly starts = new PodStartGate(),
    /** Where the configMaps and secrets that env and imagePullSecrets name come from. */
    private readonly objects: ObjectSource = NO_OBJECT_SOURCE,
    /** The services containers get service-link variables from; none without an API server. */
    private readonly services: ServiceLister = new NoServiceLister(),
    /** The pod events the kubelet's runtime manager records (Pulling, Created, Started, Killing, BackOff, …). */
    private readonly events: EventRecorder = NO_EVENTS,
  ) {
    this.hooks = new HandlerRunner(runtime, clock);
  }

  /** Lifecycle hooks (postStart, preStop) through the prober's handlers. */
  private readonly hooks: HandlerRunner;
  /**
   * Containers whose postStart hook is running or has failed: not started, as the kubelet counts them
   * (its pod worker reports a container only once startContainer, hook and kill included, returned).
   */
  private readonly inPostStart = new Map<string, number>();

  /** Whether the container's postStart hook is running or failed (its status says not started, not ready). */
  postStartRunning(containerId: string): boolean {
    return this.inPostStart.has(containerId);
  }

  /**
   * Forgets the hook state of every container not in `live` (removed from the runtime), as a relist
   * that started at `listedAt` saw it: a container marked after that start may just not be listed yet.
   */
  prunePostStart(live: ReadonlySet<string>, listedAt: number): void {
    for (const [id, since] of [...this.inPostStart]) if (!live.has(id) && since < listedAt) this.inPostStart.delete(id);
  }

  /** The pods' cgroups: the node's container manager (src/cm), else the flat layout under --cgroup-root. */
  private get cgroups(): PodCgroups {
    return this.opts.podCgroups ?? (this.flatCgroups ??= flatPodCgroups(this.opts.cgroupRoot));
  }

  private flatCgroups: PodCgroups | undefined;

  async syncPod(pod: Pod, status: PodStatus | undefined, probeFailure?: ProbeFailureLookup, started?: StartedLookup): Promise<SyncResult> {
    const actions = computePodActions(pod, status, probeFailure, started);
    const result: SyncResult = { actions, waiting: new Map(), changed: false, errors: [] };
    if (actions.podFailed) result.failed = actions.podFailed;

    // The kubelet's syncPod: while the runtime's network is not ready only host-network pods go on
    // (runtimeState.networkErrors); a sync that only stops the pod still does.
    const networkError = pod.spec?.hostNetwork ? undefined : this.opts.networkErrors?.();
    if (networkError && !(actions.killPod && !actions.createSandbox)) return this.networkNotReady(pod, result, networkError);

    if (actions.killPod) {
      // SyncPod: a pod whose sandbox must be replaced says so before it is killed.
      if (actions.createSandbox) this.events.event(podReference(pod), "Normal", "SandboxChanged", "Pod sandbox changed, it will be killed and re-created.");
      await this.killPod(pod, status, undefined);
      result.changed = true;
      if (!actions.createSandbox) return result;
    }
    for (const k of actions.containersToKill) {
      this.log.info(`killing container ${k.name} (${k.id.slice(0, 12)}) of pod ${podKey(pod)}: ${k.reason}`);
      await this.killContainer(pod, k.id, findSpec(pod, k.name), k.gracePeriodSeconds, undefined, killingMessage(pod, k.name, k.reason), undefined, status?.ips[0] ?? "");
      result.changed = true;
    }

    // The pod's cgroup before anything of the pod runs (the kubelet's syncPod: UpdateQOSCgroups and
    // EnsureExists before the volumes and the runtime's SyncPod); a pod that only stops needs none.
    if (!actions.podFailed && !(actions.killPod && !actions.createSandbox)) {
      try {
        this.cgroups.ensure(pod);
      } catch (err) {
        const message = errorMessage(err);
        for (const c of [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])]) result.waiting.set(c.name, { reason: "ContainerCreating", message });
        result.errors.push(message);
        return result;
      }
    }

    // The kubelet's syncPod waits for the pod's volumes before the runtime's SyncPod creates anything,
    // on every sync of a pod that is to run (which also refreshes configMap, secret, downwardAPI and
    // projected content); a pod that only has to stop does not wait for them.
    if (!actions.podFailed && !(actions.killPod && !actions.createSandbox)) {
      try {
        await this.volumes.waitForAttachAndMount(pod);
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
        result.retryAt = err.retryAt ?? this.clock.now() + 10_000;
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
  private async startPod(pod: Pod, status: PodStatus | undefined, actions: PodActions, result: SyncResult, start: { place?: PodStartPlace }): Promise<SyncResult> {
    let sandboxId = actions.sandboxId;
    let imageLookups: ImageLookups | undefined;
    let podIP = status?.ips[0] ?? "";
    const sbConfig = sandboxConfig(pod, actions.attempt, this.opts);
    if (actions.createSandbox) {
      // Old init containers would make the new sandbox's init look done (pruneInitContainersBeforeStart).
      for (const c of status?.containerStatuses ?? []) {
        if (isInit(c) && c.state !== "CONTAINER_RUNNING") await this.removeContainer(c);
      }
      mkdirInside(this.opts.podLogsRoot, podLogDir(pod, this.opts));
      // The images are looked up while the sandbox starts: neither depends on the other, and the
      // lookup is a round trip off every new pod's start.
      imageLookups = this.lookUpImages(pod, actions);
      start.place = await this.starts.enter();
      try {
        // createPodSandbox: the RuntimeClass's handler first; a lookup that fails fails the sandbox.
        const handler = await (this.opts.runtimeClasses ?? NO_RUNTIME_CLASSES).lookupRuntimeHandler(pod.spec?.runtimeClassName);
        sandboxId = await this.runtime.runPodSandbox(sbConfig, handler);
      } catch (err) {
        const msg = `Failed to create pod sandbox: ${errorMessage(err)}`;
        this.events.event(podReference(pod), "Warning", "FailedCreatePodSandBox", msg);
        result.errors.push(msg);
        for (const c of pod.spec!.containers) result.waiting.set(c.name, { reason: "ContainerCreating", message: msg });
        return result;
      }
      result.changed = true;
      // The IP is read here only when a container's env needs it; the relist after this sync reads
      // the sandbox's status for the pod status anyway.
      if (needsPodIP(pod)) podIP = (await this.runtime.podSandboxStatus(sandboxId).catch(() => undefined))?.status.network?.ip ?? "";
      else podIP = "";
      this.log.info(`created sandbox ${sandboxId.slice(0, 12)} (attempt ${actions.attempt}) for pod ${podKey(pod)}${podIP ? `, IP ${podIP}` : ""}`);
    }
    // getPullSecretsForPod: read at most once per sync, and only when an image is actually pulled.
    let keyring: Promise<DockerKeyring> | undefined;
    const pullKeyring: PullKeyring = () => (keyring ??= podPullSecrets(pod, this.objects, this.log).then(makeDockerKeyring));

    const startOne = async (container: Container, init: boolean) => {
      try {
        await this.startContainer(pod, container, init, status, sandboxId, sbConfig, podIP, pullKeyring, imageLookups, start.place);
        result.changed = true;
      } catch (err) {
        if (err instanceof ContainerStartError) {
          // startContainer's "Error: …" event (the crash-loop backoff has its own BackOff event, a failed
          // postStart hook its FailedPostStartHook).
          if (err.reason !== "CrashLoopBackOff" && err.reason !== "PostStartHookError") this.events.event(containerReference(pod, container.name), "Warning", "Failed", `Error: ${err.eventMessage ?? err.message}`);
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
    // The kubelet's SyncPod: the init containers first; a regular one that fails to start ends the
    // sync there, a sidecar that fails does not hold the others back.
    for (const i of actions.initContainersToStart) {
      const c = pod.spec!.initContainers![i]!;
      if (!(await startOne(c, true)) && !isSidecar(c)) return result;
    }
    for (const i of actions.containersToStart) await startOne(pod.spec!.containers[i]!, false);
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

  private async startContainer(pod: Pod, c: Container, init: boolean, status: PodStatus | undefined, sandboxId: string, sb: ReturnType<typeof sandboxConfig>, podIP: string, keyring: PullKeyring, images?: ImageLookups, place?: PodStartPlace): Promise<void> {
    let last = findContainerStatus(status, c.name, init);
    let restartCount = last ? Number(last.annotations[ann.CONTAINER_RESTART_COUNT] ?? 0) + 1 : 0;
    if (last && neverRan(last)) {
      // The agent's own start of this instance was cut short (it stopped or died mid-start): the
      // container never ran, so it is replaced under the same restart count and counts no restart.
      this.log.info(`container ${c.name} (${last.id.slice(0, 12)}) of pod ${podKey(pod)} never ran (${last.state === "CONTAINER_CREATED" ? "created, not started" : `${last.reason}: ${last.message}`}): replacing it`);
      await this.removeContainer(last);
      restartCount = Number(last.annotations[ann.CONTAINER_RESTART_COUNT] ?? 0);
      last = undefined;
    }
    // Crash-loop backoff, measured from the newest exit (doBackOff): that of an older instance when
    // this sync replaces a running one (a failed liveness probe), else every probe kill would
    // restart it at once.
    const exited = status?.containerStatuses.find((x) => x.metadata?.name === c.name && isInit(x) === init && x.state === "CONTAINER_EXITED" && !neverRan(x));
    if (last && exited) {
      const key = backoffKey(pod, c);
      const finished = exited.finishedAt / 1e6;
      if (this.crashBackoff.isInBackOffSince(key, finished)) {
        const delay = this.crashBackoff.get(key);
        const r = podRef(pod);
        this.events.event(containerReference(pod, c.name), "Warning", "BackOff", "Back-off restarting failed container");
        throw new ContainerStartError("CrashLoopBackOff", `back-off ${formatDuration(delay)} restarting failed container=${c.name} pod=${r.name}_${r.namespace}(${r.uid})`, this.crashBackoff.backOffEnds(key, finished));
      }
      this.crashBackoff.next(key, finished);
    }
    const imageRef = await this.ensureImage(pod, c, sb, keyring, images, place);
    // As the kubelet: the image first, then the config (generateContainerConfig → makeEnvironmentVariables);
    // a missing configMap or secret leaves the container uncreated and waiting, and the pod worker
    // retries the sync (SYNC_ERROR_BACKOFF_MS, or sooner when the object source reports a change).
    const env = await this.containerEnv(pod, c, podIP);
    mkdirInside(this.opts.podLogsRoot, containerLogDir(pod, c.name, this.opts));
    if (c.terminationMessagePath) {
      // The file the container's terminationMessagePath is bind-mounted from, made empty before the
      // container is created, as the kubelet's makeMounts creates it: containerd would make a missing
      // mount source a directory, and the container could not write its message there.
      const dir = terminationLogDir(pod, c.name, this.opts);
      mkdirInside(this.opts.podsDir, dir);
      writeFileSync(confinedPath(dir, `${restartCount}-termination-log`), "");
    }
    let config: ReturnType<typeof containerConfig>;
    try {
      config = containerConfig({ pod, container: c, init, restartCount, podIP, imageRef, options: this.opts, env, volumePath: (name, subPath) => this.volumes.mountSource(pod, name, subPath) });
    } catch (err) {
      // A subPath leading out of its volume, a subPathExpr whose expansion is unset, absolute or has
      // '..', a mount of no volume: the kubelet's CreateContainerConfigError (makeMounts).
      throw new ContainerStartError("CreateContainerConfigError", errorMessage(err));
    }
    await this.verifyRunAsNonRoot(pod, c);
    let id: string;
    try {
      id = await this.runtime.createContainer(sandboxId, config, sb);
      this.events.event(containerReference(pod, c.name), "Normal", "Created", `Created container ${c.name}`);
    } catch (err) {
      // The kubelet's startContainer: the status message is the runtime's message alone.
      throw new ContainerStartError("CreateContainerError", runtimeErrorMessage(err));
    }
    // Not started until its postStart hook has run: marked before StartContainer, since a relist may
    // see the container running before the call has returned here.
    if (c.lifecycle?.postStart) this.inPostStart.set(id, this.clock.now());
    try {
      await this.runtime.startContainer(id);
      this.events.event(containerReference(pod, c.name), "Normal", "Started", `Started container ${c.name}`);
    } catch (err) {
      this.inPostStart.delete(id);
      throw new ContainerStartError("RunContainerError", runtimeErrorMessage(err));
    }
    this.log.info(`started container ${c.name} (${id.slice(0, 12)}) of pod ${podKey(pod)}${restartCount ? `, restart ${restartCount}` : ""}`);
    if (restartCount > 0) this.onContainerRestart?.(pod, c.name);
    if (c.lifecycle?.postStart) await this.runPostStart(pod, c, id, podIP);
  }

  /**
   * The kubelet's startContainer step 4 (kuberuntime_container.go): the postStart hook runs right after
   * StartContainer, with no timeout of its own, and the container counts as started only once it
   * succeeded. A failing hook: the FailedPostStartHook event (and a warning in the log), the container killed (with its preStop hook and grace period, as the kubelet's
   * killContainer), and the start fails with ErrPostStartHook ("PostStartHookError") and the hook's
   * message, which the container's waiting state shows until it is restarted per restartPolicy.
   */
  private async runPostStart(pod: Pod, c: Container, id: string, podIP: string): Promise<void> {
    let failure: Awaited<ReturnType<HandlerRunner["run"]>>;
    try {
      failure = await this.hooks.run({ pod, container: c, containerId: id, podIP: this.hookHost(pod, podIP) }, c.lifecycle!.postStart!, Infinity);
    } catch (err) {
      this.inPostStart.delete(id);
      throw err;
    }
    // A failed instance stays "not started" while it is killed and after (a relist may still see it running).
    if (!failure) this.inPostStart.delete(id);
    if (!failure) return;
    this.log.warn(`FailedPostStartHook: ${failure.message}`);
    this.events.event(containerReference(pod, c.name), "Warning", "FailedPostStartHook", failure.message);
    try {
      // The kubelet's kill message for this reason (reasonFailedPostStartHook).
      await this.killContainer(pod, id, c, undefined, undefined, "FailedPostStartHook", undefined, podIP);
    } catch (err) {
      this.log.warn(`pod ${podKey(pod)}: killing container ${c.name} after its failed postStart hook: ${errorMessage(err)}`);
    }
    throw new ContainerStartError("PostStartHookError", failure.message);
  }

  /** Where an httpGet hook without a host goes: the pod IP, or the node's for a host-network pod. */
  private hookHost(pod: Pod, podIP: string): string {
    return pod.spec?.hostNetwork ? this.opts.hostIP : podIP;
  }

  /**
   * The kubelet's verifyRunAsNonRoot, after the config is made and before the container is created
   * (generateContainerConfig): a container under runAsNonRoot that would run as root is not created and
   * waits with CreateContainerConfigError; the pod worker retries the sync with its backoff. The image's
   * user is asked of the runtime (ImageStatus of the container's image, as getImageUser) only when no
   * runAsUser decides.
   */
  private async verifyRunAsNonRoot(pod: Pod, c: Container): Promise<void> {
    let user: ImageUser | undefined;
    if (needsImageUser(pod, c)) {
      try {
        user = imageUser((await this.runtime.imageStatus({ image: c.image ?? "" })).image);
      } catch (err) {
        throw new ContainerStartError("CreateContainerConfigError", runtimeErrorMessage(err));
      }
    }
    const problem = runAsNonRootProblem(pod, c, user);
    if (problem) throw new ContainerStartError("CreateContainerConfigError", problem);
  }

  /** The container's environment from its pod and objects; CreateContainerConfigError when it cannot be made. */
  private async containerEnv(pod: Pod, c: Container, podIP: string): Promise<{ key: string; value: string }[]> {
    try {
      // A resourceFieldRef of a limit the container leaves unset reads the node's allocatable.
      const needsAllocatable = (c.env ?? []).some((e) => e.valueFrom?.resourceFieldRef);
      const allocatable = needsAllocatable ? await this.opts.nodeAllocatable?.() : undefined;
      const r = await makeEnvironmentVariables(pod, c, this.objects, downwardEnvValue(pod, c, this.opts, podIP, allocatable), this.services);
      for (const w of r.warnings) this.log.warn(`pod ${podKey(pod)}: ${w.reason}: ${w.message}`);
      return r.env;
    } catch (err) {
      if (err instanceof ContainerConfigError) throw new ContainerStartError(err.reason, err.message);
      throw err;
    }
  }

  /**
   * The kubelet's EnsureImageExists: pull per imagePullPolicy, with the image-pull backoff and the
   * pod's pull secrets. A pull gives the pod's place at the PodStartGate back first: it waits for the
   * network, not the CPU.
   */
  private async ensureImage(pod: Pod, c: Container, sb: ReturnType<typeof sandboxConfig>, keyring: PullKeyring, images?: ImageLookups, place?: PodStartPlace): Promise<string> {
    const image = c.image ?? "";
    const policy = c.imagePullPolicy ?? "IfNotPresent";
    const present = policy === "Always" ? undefined : ((await images?.get(image)) ?? (await this.runtime.imageStatus({ image })).image);
    // The image manager's events (k/k@1.24.1 pkg/kubelet/images/image_manager.go), on the container.
    const ref = containerReference(pod, c.name);
    if (present) {
      this.events.event(ref, "Normal", "Pulled", `Container image "${image}" already present on machine`);
      return present.id;
    }
    if (policy === "Never") {
      const message = `Container image "${image}" is not present with pull policy of Never`;
      this.events.event(ref, "Warning", "ErrImageNeverPull", message);
      throw new ContainerStartError("ErrImageNeverPull", message, undefined, "ErrImageNeverPull");
    }
    const key = `${podRef(pod).uid}_${image}`;
    if (this.imageBackoff.inBackOff(key)) {
      this.events.event(ref, "Normal", "BackOff", `Back-off pulling image "${image}"`);
      throw new ContainerStartError("ImagePullBackOff", `Back-off pulling image "${image}"`, this.clock.now() + 1000, "ImagePullBackOff");
    }
    place?.release();
    this.events.event(ref, "Normal", "Pulling", `Pulling image "${image}"`);
    const pullStart = this.clock.now();
    try {
      const imageRef = await pullWithCredentials(image, await keyring(), (auth) => this.runtime.pullImage({ image }, auth, sb));
      this.imageBackoff.reset(key);
      this.events.event(ref, "Normal", "Pulled", `Successfully pulled image "${image}" in ${formatDuration(this.clock.now() - pullStart)}`);
      return imageRef;
    } catch (err) {
      this.imageBackoff.next(key);
      // The kubelet's image manager: the event and log say `Failed to pull image "x": <err>`,
      // the status message is the runtime's error alone, as its gRPC client prints it.
      const message = runtimeErrorText(err);
      this.log.warn(`pod ${podKey(pod)}: Failed to pull image ${JSON.stringify(image)}: ${message}`);
      this.events.event(ref, "Warning", "Failed", `Failed to pull image ${JSON.stringify(image)}: ${message}`);
      throw new ContainerStartError("ErrImagePull", message, this.clock.now() + 1000, "ErrImagePull");
    }
  }

  /**
   * Starts the image lookups of the containers this sync will start (the next init container, or the
   * app containers), one per image; a failed lookup resolves to undefined and is asked again later.
   */
  private lookUpImages(pod: Pod, actions: PodActions): ImageLookups {
    const containers = [...actions.initContainersToStart.map((i) => pod.spec!.initContainers![i]!), ...actions.containersToStart.map((i) => pod.spec!.containers[i]!)];
    const lookups: ImageLookups = new Map();
    for (const c of containers) {
      const image = c.image ?? "";
      if ((c.imagePullPolicy ?? "IfNotPresent") === "Always" || lookups.has(image)) continue;
      lookups.set(image, this.runtime.imageStatus({ image }).then((r) => r.image ?? undefined, () => undefined));
    }
    return lookups;
  }

  /**
   * The kubelet's killContainer: the Killing event ("Stopping container <name>" unless the caller says
   * why: a failed probe, a changed spec, a failed postStart hook), then the preStop hook (exec, httpGet
   * or sleep) within the grace period (executePreStopHook waits for it at most that long); the whole
   * seconds it took come off the grace the stop gets, and the stop gets at least MIN_GRACE_SECONDS. A
   * failed hook is the FailedPreStopHook event and does not keep the container from stopping. With
   * `turn`, the container then waits for its turn to stop (a sidecar: termination-order.ts), and the
   * wait counts against the grace too.
   */
  async killContainer(pod: Pod | undefined, id: string, spec: Container | undefined, graceOverride: number | undefined, status?: ContainerStatus, message?: string, turn?: (graceSeconds: number) => Promise<number>, podIP = ""): Promise<void> {
    const name = spec?.name ?? status?.metadata?.name;
    if (pod && name) this.events.event(containerReference(pod, name), "Normal", "Killing", message ?? `Stopping container ${name}`);
    let grace = graceOverride ?? pod?.spec?.terminationGracePeriodSeconds ?? Number(status?.annotations[ann.POD_TERMINATION_GRACE_PERIOD] ?? 30);
    const start = this.clock.now();
    const preStop = spec?.lifecycle?.preStop ?? (status?.annotations[ann.CONTAINER_PRESTOP_HANDLER] ? JSON.parse(status.annotations[ann.CONTAINER_PRESTOP_HANDLER]!) : undefined);
    if (preStop && grace > 0) {
      // A container the spec no longer has (an orphan) is known by its runtime name alone.
      const container = spec ?? { name: status?.metadata?.name ?? id.slice(0, 12) };
      const target = { pod: pod ?? { metadata: { name: status?.labels[POD_NAME_LABEL] ?? "", namespace: status?.labels[POD_NAMESPACE_LABEL] ?? "", uid: status?.labels[POD_UID_LABEL] ?? "" } }, container, containerId: id, podIP: pod ? this.hookHost(pod, podIP) : podIP };
      const failure = await this.hooks.run(target, preStop, grace * 1000);
      if (failure?.timedOut) this.log.info(`preStop hook of container ${container.name} (${id.slice(0, 12)}) not completed in its grace period (${grace}s): ${failure.message}`);
      else if (failure) {
        this.log.warn(`FailedPreStopHook: ${failure.message}`);
        if (pod) this.events.event(containerReference(pod, container.name), "Warning", "FailedPreStopHook", failure.message);
      }
      grace -= Math.floor((this.clock.now() - start) / 1000);
    }
    if (turn && grace > 0) grace -= await turn(grace);
    await ignoreNotFound(this.runtime.stopContainer(id, Math.max(grace, MIN_GRACE_SECONDS)));
  }

  /**
   * Stops every running container (in parallel, as the kubelet) and then every sandbox of the pod. With
   * native sidecars the kubelet's order holds (termination-order.ts): app containers, then sidecars in reverse.
   */
  async killPod(pod: Pod | undefined, status: PodStatus | undefined, graceOverride: number | undefined): Promise<void> {
    const running = (status?.containerStatuses ?? []).filter((c) => c.state === "CONTAINER_RUNNING" || c.state === "CONTAINER_CREATED");
    const order = pod && hasSidecars(pod) ? new TerminationOrder(pod, running.map((c) => c.metadata?.name ?? ""), this.clock) : undefined;
    await Promise.all(
      running.map(async (c) => {
        const name = c.metadata?.name ?? "";
        try {
          await this.killContainer(pod, c.id, pod ? findSpec(pod, name) : undefined, graceOverride, c, undefined, order && ((grace) => order.waitForTurn(name, grace)), status?.ips[0] ?? "");
        } finally {
          order?.terminated(name);
        }
      }),
    );
    for (const s of status?.sandboxStatuses ?? []) {
      if (s.state === "SANDBOX_READY") await ignoreNotFound(this.runtime.stopPodSandbox(s.id));
    }
  }

  /**
   * The kubelet's removeContainer for an instance a start replaces: its log files first (a later
   * instance may take the same <restart>.log name), then the container.
   */
  private async removeContainer(c: ContainerStatus): Promise<void> {
    if (c.logPath) {
      try {
        cleanContainerLogs(this.opts.podLogsRoot, c.logPath);
      } catch (err) {
        if (!(err instanceof PathEscapeError)) throw err;
        this.log.warn(`the logs of container ${c.id.slice(0, 12)} are left alone: ${err.message}`);
      }
    }
    await ignoreNotFound(this.runtime.removeContainer(c.id));
  }

  /** After a pod is gone for good: remove its containers, sandboxes, volumes and pod cgroup. */
  async removePod(uid: string, status: PodStatus | undefined): Promise<void> {
    for (const c of status?.containerStatuses ?? []) await ignoreNotFound(this.runtime.removeContainer(c.id));
    for (const s of status?.sandboxStatuses ?? []) {
      await ignoreNotFound(this.runtime.stopPodSandbox(s.id));
      await ignoreNotFound(this.runtime.removePodSandbox(s.id));
    }
    // Volumes first (tmpfs unmounted): the folder below is removed recursively only once nothing is
    // mounted in it. A failure throws, and the worker retries the removal.
    await this.volumes.unmountPod(uid);
    // The UID may come from runtime labels that any CRI client wrote (an orphan): one that cannot
    // name a folder, or whose folder leads out of the root, leaves the disk alone; the runtime
    // objects above are gone either way.
    try {
      const dir = podDir(uid, this.opts);
      removeInside(this.opts.podsDir, dir);
      this.cgroups.remove(uid);
      this.removePodLogDirs(uid);
    } catch (err) {
      if (!(err instanceof PathEscapeError)) throw err;
      this.log.warn(`pod ${JSON.stringify(uid)}: its folders and cgroup are left alone: ${err.message}`);
    }
  }

  /**
   * Housekeeping of the pods' cgroups (once every source has been seen): those of pods none of
   * `known` is are removed, and the QoS shares follow the pods.
   */
  cgroupHousekeeping(known: ReadonlySet<string>): void {
    try {
      this.cgroups.housekeeping(known);
    } catch (err) {
      this.log.warn(`cgroups: removing the cgroups of pods that are gone: ${errorMessage(err)}`);
    }
  }

  /**
   * The pod's log folders, <pod-logs-dir>/<ns>_<name>_<uid> (one per name the UID was seen under),
   * removed with the pod. The kubelet leaves them to container GC (evictPodLogsDirectories, up to a
   * minute later, which also sweeps what an agent that was down left behind); removing them here is
   * the same end, at once. Only folders whose name ends in _<uid> inside the root are touched.
   */
  private removePodLogDirs(uid: string): void {
    const root = this.opts.podLogsRoot;
    let names: string[];
    try {
      names = readdirSync(root);
    } catch {
      return;
    }
    for (const name of names) if (name.endsWith(`_${uid}`) && podUIDFromLogsDirectory(name) === uid) removeInside(root, confinedPath(root, name));
  }

}

/** Whether any container's env reads the pod IP through the downward API, or its httpGet postStart hook dials it. */
function needsPodIP(pod: Pod): boolean {
  return [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])].some((c) =>
    (c.env ?? []).some((e) => e.valueFrom?.fieldRef?.fieldPath === "status.podIP" || e.valueFrom?.fieldRef?.fieldPath === "status.podIPs") ||
    (c.lifecycle?.postStart?.httpGet !== undefined && !c.lifecycle.postStart.httpGet.host),
  );
}

/** The kubelet's getStableKey: a changed container spec starts a fresh backoff. */
export function backoffKey(pod: Pod, c: Container): string {
  const r = podRef(pod);
  return `${r.name}_${r.namespace}_${r.uid}_${c.name}_${ann.containerHash(c)}`;
}

/**
 * The Killing event's message for a container computePodActions kills (its containerToKillInfo message):
 * a failed probe or a changed spec, with ", will be restarted" when it starts again; otherwise the
 * default "Stopping container <name>".
 */
function killingMessage(pod: Pod, name: string, reason: string): string | undefined {
  const restarts = (pod.spec?.restartPolicy ?? "Always") !== "Never";
  if (reason === "Container spec hash changed") return `Container ${name} definition changed, will be restarted`;
  if (/^Container .* failed (liveness|startup) probe$/.test(reason)) return restarts ? `${reason}, will be restarted` : reason;
  return undefined;
}

function findSpec(pod: Pod, name: string): Container | undefined {
  return [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])].find((c) => c.name === name);
}

async function ignoreNotFound(p: Promise<unknown>): Promise<void> {
  try {
    await p;
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
  }
}
