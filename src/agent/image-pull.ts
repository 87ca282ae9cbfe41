// The images a sync's containers run: looked up ahead while the sandbox starts, and pulled per
// imagePullPolicy with the image-pull backoff and the pod's pull secrets (the kubelet's image manager,
// EnsureImageExists, with its events on the container).
import type { Container, Pod } from "kubernetes-types/core/v1";
import { podKey, podRef } from "../api";
import { type Image, runtimeErrorText } from "../cri";
import { containerReference, type EventRecorder } from "../events";
import { type Clock, formatDuration, type Logger } from "../util";
import { type DockerKeyring, pullWithCredentials } from "../objects";
import type { Backoff } from "./backoff";
import { ContainerStartError } from "./container-start-error";
import type { PodActions } from "./pod-actions";
import type { PodStartPlace } from "./pod-start-gate";
import type { sandboxConfig } from "./runtime-config";
import type { SyncRuntime } from "./sync-runtime";

/** Image lookups started ahead of the containers that need them: image → the image, or undefined when absent. */
export type ImageLookups = Map<string, Promise<Image | undefined>>;

/** The pod's image-pull keyring, read from its imagePullSecrets once per sync and only if a pull happens. */
export type PullKeyring = () => Promise<DockerKeyring>;

export interface ImagePullerDeps {
  runtime: SyncRuntime;
  clock: Clock;
  log: Logger;
  events: EventRecorder;
  imageBackoff: Backoff;
}

export class ImagePuller {
  constructor(private readonly d: ImagePullerDeps) {}

  /**
   * The kubelet's EnsureImageExists: pull per imagePullPolicy, with the image-pull backoff and the
   * pod's pull secrets. A pull gives the pod's place at the PodStartGate back first: it waits for the
   * network, not the CPU.
   */
  async ensureImage(
    pod: Pod,
    c: Container,
    sb: ReturnType<typeof sandboxConfig>,
    keyring: PullKeyring,
    images?: ImageLookups,
    place?: PodStartPlace,
  ): Promise<string> {
    const image = c.image ?? "";
    const policy = c.imagePullPolicy ?? "IfNotPresent";
    const present = policy === "Always" ? undefined : ((await images?.get(image)) ?? (await this.d.runtime.imageStatus({ image })).image);
    // The image manager's events (k/k@1.24.1 pkg/kubelet/images/image_manager.go), on the container.
    const ref = containerReference(pod, c.name);
    if (present) {
      this.d.events.event(ref, "Normal", "Pulled", `Container image "${image}" already present on machine`);
      return present.id;
    }
    if (policy === "Never") {
      const message = `Container image "${image}" is not present with pull policy of Never`;
      this.d.events.event(ref, "Warning", "ErrImageNeverPull", message);
      throw new ContainerStartError("ErrImageNeverPull", message, undefined, "ErrImageNeverPull");
    }
    const key = `${podRef(pod).uid}_${image}`;
    if (this.d.imageBackoff.inBackOff(key)) {
      this.d.events.event(ref, "Normal", "BackOff", `Back-off pulling image "${image}"`);
      throw new ContainerStartError("ImagePullBackOff", `Back-off pulling image "${image}"`, this.d.clock.now() + 1000, "ImagePullBackOff");
    }
    place?.release();
    this.d.events.event(ref, "Normal", "Pulling", `Pulling image "${image}"`);
    const pullStart = this.d.clock.now();
    try {
      const imageRef = await pullWithCredentials(image, await keyring(), (auth) => this.d.runtime.pullImage({ image }, auth, sb));
      this.d.imageBackoff.reset(key);
      this.d.events.event(ref, "Normal", "Pulled", `Successfully pulled image "${image}" in ${formatDuration(this.d.clock.now() - pullStart)}`);
      return imageRef;
    } catch (err) {
      this.d.imageBackoff.next(key);
      // The kubelet's image manager: the event and log say `Failed to pull image "x": <err>`,
      // the status message is the runtime's error alone, as its gRPC client prints it.
      const message = runtimeErrorText(err);
      this.d.log.warn("Failed to pull image", { pod: podKey(pod), image, err: message });
      this.d.events.event(ref, "Warning", "Failed", `Failed to pull image ${JSON.stringify(image)}: ${message}`);
      throw new ContainerStartError("ErrImagePull", message, this.d.clock.now() + 1000, "ErrImagePull");
    }
  }

  /**
   * Starts the image lookups of the containers this sync will start (the next init container, or the
   * app containers), one per image; a failed lookup resolves to undefined and is asked again later.
   */
  lookUpImages(pod: Pod, actions: PodActions): ImageLookups {
    const containers = [
      ...actions.initContainersToStart.map((i) => pod.spec!.initContainers![i]!),
      ...actions.containersToStart.map((i) => pod.spec!.containers[i]!),
    ];
    const lookups: ImageLookups = new Map();
    for (const c of containers) {
      const image = c.image ?? "";
      if ((c.imagePullPolicy ?? "IfNotPresent") === "Always" || lookups.has(image)) continue;
      lookups.set(
        image,
        this.d.runtime.imageStatus({ image }).then(
          (r) => r.image ?? undefined,
          () => undefined,
        ),
      );
    }
    return lookups;
  }
}
