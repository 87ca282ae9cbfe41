// Starting one container of a sync (the kubelet's startContainer): the crash-loop backoff, the image,
// the environment and config (the files it mounts made: its termination log, the pod's hosts file;
// runAsNonRoot checked before it is created), create and start, and the postStart hook, during which
// the container does not count as started.
import { chmodSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { Container, Pod } from "kubernetes-types/core/v1";
import { podEtcHostsPath, podKey, podRef } from "../api";
import { runtimeErrorMessage } from "../cri";
import { containerReference, type EventRecorder } from "../events";
import type { PodStatus } from "../pleg";
import { type Clock, confinedPath, errorMessage, formatDuration, type Logger, mkdirInside } from "../util";
import { ContainerConfigError, makeEnvironmentVariables, type ObjectSource, type ServiceLister } from "../objects";
import type { PodVolumes } from "../volume";
import type { Backoff } from "./backoff";
import { hookHost, type ContainerKiller } from "./container-kill";
import { ContainerStartError } from "./container-start-error";
import { ensureHostsFile, mountsEtcHosts } from "./etc-hosts";
import type { ImageLookups, ImagePuller, PullKeyring } from "./image-pull";
import * as ann from "./labels";
import type { HandlerRunner } from "./lifecycle-handlers";
import { containerKind, type ContainerKind, findContainerStatus, neverRan } from "./pod-actions";
import type { PodCleanup } from "./pod-cleanup";
import type { PodStartPlace } from "./pod-start-gate";
import { podHostnameAndDomain } from "./pod-hostname";
import { imageUser, needsImageUser, runAsNonRootProblem, type ImageUser } from "./run-as-non-root";
import {
  clusterDomain,
  containerConfig,
  containerLogDir,
  downwardEnvValue,
  terminationLogDir,
  type RuntimeConfigOptions,
  type sandboxConfig,
} from "./runtime-config";
import type { SyncRuntime } from "./sync-runtime";

export interface ContainerStarterDeps {
  runtime: SyncRuntime;
  clock: Clock;
  log: Logger;
  events: EventRecorder;
  opts: RuntimeConfigOptions;
  crashBackoff: Backoff;
  /** Where the pod's volumes are mounted from (mountSource). */
  volumes: PodVolumes;
  objects: ObjectSource;
  services: ServiceLister;
  /** Lifecycle hooks (postStart) through the prober's handlers. */
  hooks: HandlerRunner;
  images: ImagePuller;
  killer: ContainerKiller;
  cleanup: PodCleanup;
  onContainerRestart?: (pod: Pod, container: string) => void;
}

export class ContainerStarter {
  constructor(private readonly d: ContainerStarterDeps) {}

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

  async startContainer(
    pod: Pod,
    c: Container,
    kind: ContainerKind,
    status: PodStatus | undefined,
    sandboxId: string,
    sb: ReturnType<typeof sandboxConfig>,
    podIPs: readonly string[],
    keyring: PullKeyring,
    images?: ImageLookups,
    place?: PodStartPlace,
  ): Promise<void> {
    const podIP = podIPs[0] ?? "";
    let last = findContainerStatus(status, c.name, kind);
    let restartCount = last ? Number(last.annotations[ann.CONTAINER_RESTART_COUNT] ?? 0) + 1 : 0;
    if (last && neverRan(last)) {
      // The agent's own start of this instance was cut short (it stopped or died mid-start): the
      // container never ran, so it is replaced under the same restart count and counts no restart.
      this.d.log.info("container never ran: replacing it", {
        pod: podKey(pod),
        container: c.name,
        id: last.id.slice(0, 12),
        state: last.state === "CONTAINER_CREATED" ? "created, not started" : `${last.reason}: ${last.message}`,
      });
      await this.d.cleanup.removeContainer(last);
      restartCount = Number(last.annotations[ann.CONTAINER_RESTART_COUNT] ?? 0);
      last = undefined;
    }
    // Crash-loop backoff, measured from the newest exit (doBackOff): that of an older instance when
    // this sync replaces a running one (a failed liveness probe), else every probe kill would
    // restart it at once.
    const exited = status?.containerStatuses.find(
      (x) => x.metadata?.name === c.name && containerKind(x) === kind && x.state === "CONTAINER_EXITED" && !neverRan(x),
    );
    if (last && exited) {
      const key = backoffKey(pod, c);
      const finished = exited.finishedAt / 1e6;
      if (this.d.crashBackoff.isInBackOffSince(key, finished)) {
        const delay = this.d.crashBackoff.get(key);
        const r = podRef(pod);
        this.d.events.event(containerReference(pod, c.name), "Warning", "BackOff", "Back-off restarting failed container");
        throw new ContainerStartError(
          "CrashLoopBackOff",
          `back-off ${formatDuration(delay)} restarting failed container=${c.name} pod=${r.name}_${r.namespace}(${r.uid})`,
          this.d.crashBackoff.backOffEnds(key, finished),
        );
      }
      this.d.crashBackoff.next(key, finished);
    }
    // Admission refuses volumeDevices of the pod's other containers (UnsupportedFieldsAdmitHandler); an
    // ephemeral container comes later, past admission, so it waits here rather than run without them.
    if (kind === "ephemeral" && (c.volumeDevices ?? []).length > 0)
      throw new ContainerStartError(
        "CreateContainerConfigError",
        `volumeDevices of ephemeral container "${c.name}" is not supported by nodeagent: it has no raw block volumes`,
      );
    const imageRef = await this.d.images.ensureImage(pod, c, sb, keyring, images, place);
    // An ephemeral container with a targetContainerName joins that container's PID namespace: the
    // target's newest instance must exist (the kubelet's getTargetID, after the image is made ready).
    const targetId = kind === "ephemeral" ? ephemeralTarget(pod, c, status) : undefined;
    // As the kubelet: the image first, then the config (generateContainerConfig → makeEnvironmentVariables);
    // a missing configMap or secret leaves the container uncreated and waiting, and the pod worker
    // retries the sync (SYNC_ERROR_BACKOFF_MS, or sooner when the object source reports a change).
    const env = await this.containerEnv(pod, c, podIP);
    mkdirInside(this.d.opts.podLogsRoot, containerLogDir(pod, c.name, this.d.opts));
    if (c.terminationMessagePath) {
      // The file the container's terminationMessagePath is bind-mounted from, made empty before the
      // container is created, as the kubelet's makeMounts creates it: containerd would make a missing
      // mount source a directory, and the container could not write its message there.
      const dir = terminationLogDir(pod, c.name, this.d.opts);
      mkdirInside(this.d.opts.podsDir, dir);
      const file = confinedPath(dir, `${restartCount}-termination-log`);
      writeFileSync(file, "");
      // 0666 whatever the umask, as the kubelet chmods the file it creates: a container running as a
      // user other than root must be able to write its message (kuberuntime makeMounts).
      chmodSync(file, 0o666);
    }
    let config: ReturnType<typeof containerConfig>;
    try {
      const etcHosts = this.writeHostsFile(pod, c, podIPs);
      config = containerConfig({
        pod,
        container: c,
        init: kind === "init",
        ...(kind === "ephemeral" ? { ephemeral: { targetId } } : {}),
        restartCount,
        podIP,
        imageRef,
        options: this.d.opts,
        env,
        volumePath: (name, subPath) => this.d.volumes.mountSource(pod, name, subPath, c.name),
        etcHosts,
      });
    } catch (err) {
      // A subPath leading out of its volume, a subPathExpr whose expansion is unset, absolute or has
      // '..', a mount of no volume, a hosts file that cannot be made: the kubelet's
      // CreateContainerConfigError (makeMounts).
      throw new ContainerStartError("CreateContainerConfigError", errorMessage(err));
    }
    await this.verifyRunAsNonRoot(pod, c);
    let id: string;
    try {
      id = await this.d.runtime.createContainer(sandboxId, config, sb);
      this.d.events.event(containerReference(pod, c.name), "Normal", "Created", `Created container ${c.name}`);
    } catch (err) {
      // The kubelet's startContainer: the status message is the runtime's message alone.
      throw new ContainerStartError("CreateContainerError", runtimeErrorMessage(err));
    }
    // Not started until its postStart hook has run: marked before StartContainer, since a relist may
    // see the container running before the call has returned here.
    if (c.lifecycle?.postStart) this.inPostStart.set(id, this.d.clock.now());
    try {
      await this.d.runtime.startContainer(id);
      this.d.events.event(containerReference(pod, c.name), "Normal", "Started", `Started container ${c.name}`);
    } catch (err) {
      this.inPostStart.delete(id);
      throw new ContainerStartError("RunContainerError", runtimeErrorMessage(err));
    }
    this.d.log.info("started container", { pod: podKey(pod), container: c.name, id: id.slice(0, 12), restart: restartCount || undefined });
    if (restartCount > 0) this.d.onContainerRestart?.(pod, c.name);
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
      failure = await this.d.hooks.run(
        { pod, container: c, containerId: id, podIP: hookHost(pod, podIP, this.d.opts.hostIP) },
        c.lifecycle!.postStart!,
        Infinity,
      );
    } catch (err) {
      this.inPostStart.delete(id);
      throw err;
    }
    // A failed instance stays "not started" while it is killed and after (a relist may still see it running).
    if (!failure) this.inPostStart.delete(id);
    if (!failure) return;
    this.d.log.warn("FailedPostStartHook", { pod: podKey(pod), container: c.name, err: failure.message });
    this.d.events.event(containerReference(pod, c.name), "Warning", "FailedPostStartHook", failure.message);
    try {
      // The kubelet's kill message for this reason (reasonFailedPostStartHook).
      await this.d.killer.killContainer(pod, id, c, undefined, undefined, "FailedPostStartHook", undefined, podIP);
    } catch (err) {
      this.d.log.warn("cannot kill a container after its failed postStart hook", { pod: podKey(pod), container: c.name, err });
    }
    throw new ContainerStartError("PostStartHookError", failure.message);
  }

  /**
   * The pod's hosts file, written (again) for a container that mounts it at /etc/hosts, as the
   * kubelet's makeMounts does before each container (etc-hosts.ts); its path, or undefined when the
   * container does not get it. Throws when the file cannot be made.
   */
  private writeHostsFile(pod: Pod, c: Container, podIPs: readonly string[]): string | undefined {
    if (!mountsEtcHosts(pod, c, podIPs)) return undefined;
    const file = podEtcHostsPath(this.d.opts.podsDir, podRef(pod).uid);
    mkdirInside(this.d.opts.podsDir, dirname(file));
    const { hostname, domain } = podHostnameAndDomain(pod, clusterDomain(this.d.opts));
    ensureHostsFile(file, { pod, podIPs, hostname, domain, ...(this.d.opts.nodeHostsFile ? { nodeHostsPath: this.d.opts.nodeHostsFile } : {}) });
    return file;
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
        user = imageUser((await this.d.runtime.imageStatus({ image: c.image ?? "" })).image);
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
      const allocatable = needsAllocatable ? await this.d.opts.nodeAllocatable?.() : undefined;
      const r = await makeEnvironmentVariables(pod, c, this.d.objects, downwardEnvValue(pod, c, this.d.opts, podIP, allocatable), this.d.services);
      for (const w of r.warnings) this.d.log.warn(w.reason, { pod: podKey(pod), container: c.name, message: w.message });
      return r.env;
    } catch (err) {
      if (err instanceof ContainerConfigError) throw new ContainerStartError(err.reason, err.message);
      throw err;
    }
  }
}

/**
 * The runtime ID of the container an ephemeral container targets (targetContainerName), undefined
 * without one. No instance of it: the kubelet's getTargetID error, and the container waits with
 * CreateContainerConfigError (its startContainer records it as an "Error: …" event too).
 */
function ephemeralTarget(pod: Pod, c: Container, status: PodStatus | undefined): string | undefined {
  const name = (pod.spec?.ephemeralContainers ?? []).find((e) => e.name === c.name)?.targetContainerName;
  if (!name) return undefined;
  const target = findContainerStatus(status, name);
  if (!target) throw new ContainerStartError("CreateContainerConfigError", `unable to find target container ${name}`);
  return target.id;
}

/** The kubelet's getStableKey: a changed container spec starts a fresh backoff. */
export function backoffKey(pod: Pod, c: Container): string {
  const r = podRef(pod);
  return `${r.name}_${r.namespace}_${r.uid}_${c.name}_${ann.containerHash(c)}`;
}
