// Stopping containers and pods (the kubelet's killContainer and killPod): the Killing event, the preStop
// hook within the grace period, the sidecars' termination order, the minimum grace, then the sandboxes.
import type { Container, Pod } from "kubernetes-types/core/v1";
import { podKey } from "../api";
import { type ContainerStatus, POD_NAME as POD_NAME_LABEL, POD_NAMESPACE as POD_NAMESPACE_LABEL, POD_UID as POD_UID_LABEL } from "../cri";
import { containerReference, type EventRecorder } from "../events";
import type { PodStatus } from "../pleg";
import type { Clock, Logger } from "../util";
import * as ann from "./labels";
import type { HandlerRunner } from "./lifecycle-handlers";
import { hasSidecars } from "./pod-actions";
import type { RuntimeConfigOptions } from "./runtime-config";
import { ignoreNotFound, type SyncRuntime } from "./sync-runtime";
import { TerminationOrder } from "./termination-order";

/** The kubelet's minimum grace period when stopping a container (minimumGracePeriodInSeconds). */
const MIN_GRACE_SECONDS = 2;

export interface ContainerKillerDeps {
  runtime: SyncRuntime;
  clock: Clock;
  log: Logger;
  events: EventRecorder;
  opts: RuntimeConfigOptions;
  /** Lifecycle hooks (preStop) through the prober's handlers. */
  hooks: HandlerRunner;
}

export class ContainerKiller {
  constructor(private readonly d: ContainerKillerDeps) {}

  /**
   * The kubelet's killContainer: the Killing event ("Stopping container <name>" unless the caller says
   * why: a failed probe, a changed spec, a failed postStart hook), then the preStop hook (exec, httpGet
   * or sleep) within the grace period (executePreStopHook waits for it at most that long); the whole
   * seconds it took come off the grace the stop gets, and the stop gets at least MIN_GRACE_SECONDS. A
   * failed hook is the FailedPreStopHook event and does not keep the container from stopping. With
   * `turn`, the container then waits for its turn to stop (a sidecar: termination-order.ts), and the
   * wait counts against the grace too.
   */
  async killContainer(
    pod: Pod | undefined,
    id: string,
    spec: Container | undefined,
    graceOverride: number | undefined,
    status?: ContainerStatus,
    message?: string,
    turn?: (graceSeconds: number) => Promise<number>,
    podIP = "",
  ): Promise<void> {
    const name = spec?.name ?? status?.metadata?.name;
    if (pod && name) this.d.events.event(containerReference(pod, name), "Normal", "Killing", message ?? `Stopping container ${name}`);
    let grace = graceOverride ?? pod?.spec?.terminationGracePeriodSeconds ?? Number(status?.annotations[ann.POD_TERMINATION_GRACE_PERIOD] ?? 30);
    const start = this.d.clock.now();
    const preStop =
      spec?.lifecycle?.preStop ??
      (status?.annotations[ann.CONTAINER_PRESTOP_HANDLER] ? JSON.parse(status.annotations[ann.CONTAINER_PRESTOP_HANDLER]!) : undefined);
    if (preStop && grace > 0) {
      // A container the spec no longer has (an orphan) is known by its runtime name alone.
      const container = spec ?? { name: status?.metadata?.name ?? id.slice(0, 12) };
      const target = {
        pod: pod ?? {
          metadata: {
            name: status?.labels[POD_NAME_LABEL] ?? "",
            namespace: status?.labels[POD_NAMESPACE_LABEL] ?? "",
            uid: status?.labels[POD_UID_LABEL] ?? "",
          },
        },
        container,
        containerId: id,
        podIP: pod ? hookHost(pod, podIP, this.d.opts.hostIP) : podIP,
      };
      const failure = await this.d.hooks.run(target, preStop, grace * 1000);
      if (failure?.timedOut)
        this.d.log.info("preStop hook not completed in its grace period", {
          pod: podKey(target.pod),
          container: container.name,
          id: id.slice(0, 12),
          gracePeriod: `${grace}s`,
          err: failure.message,
        });
      else if (failure) {
        this.d.log.warn("FailedPreStopHook", { pod: podKey(target.pod), container: container.name, id: id.slice(0, 12), err: failure.message });
        if (pod) this.d.events.event(containerReference(pod, container.name), "Warning", "FailedPreStopHook", failure.message);
      }
      grace -= Math.floor((this.d.clock.now() - start) / 1000);
    }
    if (turn && grace > 0) grace -= await turn(grace);
    await ignoreNotFound(this.d.runtime.stopContainer(id, Math.max(grace, MIN_GRACE_SECONDS)));
  }

  /**
   * Stops every running container (in parallel, as the kubelet) and then every sandbox of the pod. With
   * native sidecars the kubelet's order holds (termination-order.ts): app containers, then sidecars in reverse.
   */
  async killPod(pod: Pod | undefined, status: PodStatus | undefined, graceOverride: number | undefined): Promise<void> {
    const running = (status?.containerStatuses ?? []).filter((c) => c.state === "CONTAINER_RUNNING" || c.state === "CONTAINER_CREATED");
    const order =
      pod && hasSidecars(pod)
        ? new TerminationOrder(
            pod,
            running.map((c) => c.metadata?.name ?? ""),
            this.d.clock,
          )
        : undefined;
    await Promise.all(
      running.map(async (c) => {
        const name = c.metadata?.name ?? "";
        try {
          await this.killContainer(
            pod,
            c.id,
            pod ? findSpec(pod, name) : undefined,
            graceOverride,
            c,
            undefined,
            order && ((grace) => order.waitForTurn(name, grace)),
            status?.ips[0] ?? "",
          );
        } finally {
          order?.terminated(name);
        }
      }),
    );
    for (const s of status?.sandboxStatuses ?? []) {
      if (s.state === "SANDBOX_READY") await ignoreNotFound(this.d.runtime.stopPodSandbox(s.id));
    }
  }
}

/** Where an httpGet hook without a host goes: the pod IP, or the node's for a host-network pod. */
export function hookHost(pod: Pod, podIP: string, hostIP: string): string {
  return pod.spec?.hostNetwork ? hostIP : podIP;
}

/**
 * The Killing event's message for a container computePodActions kills (its containerToKillInfo message):
 * a failed probe or a changed spec, with ", will be restarted" when it starts again; otherwise the
 * default "Stopping container <name>".
 */
export function killingMessage(pod: Pod, name: string, reason: string): string | undefined {
  const restarts = (pod.spec?.restartPolicy ?? "Always") !== "Never";
  if (reason === "Container spec hash changed") return `Container ${name} definition changed, will be restarted`;
  if (reason.endsWith(" resize requires restart")) return reason;
  if (/^Container .* failed (liveness|startup) probe$/.test(reason)) return restarts ? `${reason}, will be restarted` : reason;
  return undefined;
}

export function findSpec(pod: Pod, name: string): Container | undefined {
  return [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? []), ...((pod.spec?.ephemeralContainers ?? []) as Container[])].find(
    (c) => c.name === name,
  );
}
