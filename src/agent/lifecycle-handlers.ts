// HandlerRunner: runs a container's lifecycle hook (postStart, preStop), the kubelet's
// pkg/kubelet/lifecycle/handlers.go (k/k@1.24.1, with the ConsistentHTTPGetHandlers behaviour of 1.26+
// for httpGet and the sleep action of KEP-3960, 1.29+). The handlers are the prober's, not copies:
//   - exec: the command through CRI ExecSync (src/prober/exec.ts); a non-zero exit is a failure.
//   - httpGet: a GET built as a probe's request (src/prober/spec.ts probeAction: scheme, host, port by
//     name, path, headers; the host defaults to the pod IP) and sent by the HTTP prober
//     (src/prober/http.ts). Any answer is success, whatever its status code: the kubelet's hook only
//     fails when the request does (runHTTPHandler discards the response).
//   - sleep: waits the given seconds on the agent's clock.
//   - tcpSocket (deprecated, kept only for compatibility): the kubelet's "invalid handler" failure.
// The kubelet gives a hook no timeout of its own: postStart runs as long as it takes (the container is
// not "started" until then) and preStop is bounded by the grace period by its caller. Here the caller
// passes the bound (Infinity for none) and the runner stops waiting at it.
//
// The failure message is the kubelet's (handlers.go Run), which its FailedPostStartHook and
// FailedPreStopHook events carry and, for postStart, the container's waiting message.
import type { Container, LifecycleHandler, Pod } from "kubernetes-types/core/v1";
import { podRef } from "../api";
import { type ContainerCommandRunner, type HandlerResult, execProbe, httpProbe, probeAction, withTimeout } from "../prober";
import { type Clock, errorMessage } from "../util";

/** A hook that did not succeed: the kubelet's message, as its event and the container's status show it. */
export interface HookFailure {
  message: string;
  /** The hook was still running when the bound given to run() passed (preStop: the grace period). */
  timedOut: boolean;
}

export interface HookTarget {
  pod: Pod;
  container: Container;
  containerId: string;
  /** The address an httpGet hook without a host dials: the pod IP (the node's for a host-network pod). */
  podIP: string;
}

/** format.Pod: `name_namespace(uid)`. */
export function formatPod(pod: Pod): string {
  const r = podRef(pod);
  return `${r.name}_${r.namespace}(${r.uid})`;
}

/** Go's %v of a []string: `[a b c]`. */
const goList = (l: readonly string[]) => `[${l.join(" ")}]`;

/** What a hook action does not run on: the kubelet's "Cannot run handler" error. */
function handlerKind(h: LifecycleHandler): "exec" | "httpGet" | "sleep" | undefined {
  if (h.exec) return "exec";
  if (h.httpGet) return "httpGet";
  if (h.sleep) return "sleep";
  return undefined;
}

export class HandlerRunner {
  constructor(
    private readonly runner: ContainerCommandRunner,
    private readonly clock: Clock,
  ) {}

  /**
   * Runs the hook; undefined when it succeeded, else why not. `timeoutMs` bounds the wait (Infinity:
   * none); a hook still running then is a failure with timedOut set.
   */
  async run(t: HookTarget, h: LifecycleHandler, timeoutMs: number, signal?: AbortSignal): Promise<HookFailure | undefined> {
    const pod = formatPod(t.pod);
    const name = JSON.stringify(t.container.name);
    switch (handlerKind(h)) {
      case "exec": {
        const command = h.exec!.command ?? [];
        const r = await execProbe(this.runner, t.containerId, command, timeoutMs, this.clock, signal);
        if (r.status === "success") return undefined;
        const err = r.error ? errorMessage(r.error) : r.output;
        return {
          message: `Exec lifecycle hook (${goList(command)}) for Container ${name} in Pod ${JSON.stringify(pod)} failed - error: ${err}, message: ${JSON.stringify(r.commandOutput ?? "")}`,
          timedOut: timedOut(r),
        };
      }
      case "httpGet": {
        const path = h.httpGet!.path ?? "";
        let r: HandlerResult;
        let answered = false;
        try {
          const a = probeAction({ httpGet: h.httpGet }, t.container, { containerId: t.containerId, host: t.podIP });
          if (a.kind !== "httpGet") throw new Error("not an httpGet action");
          r = await httpProbe(a.url, a.headers, timeoutMs, this.clock, signal, () => (answered = true));
        } catch (err) {
          r = { status: "unknown", output: "", error: err as Error };
        }
        // Any answer will do (runHTTPHandler returns only the request's error).
        if (answered) return undefined;
        const err = r.error ? errorMessage(r.error) : r.output;
        return {
          message: `HTTP lifecycle hook (${path}) for Container ${name} in Pod ${JSON.stringify(pod)} failed - error: ${err}`,
          timedOut: /context deadline exceeded/.test(r.output),
        };
      }
      case "sleep": {
        const seconds = h.sleep!.seconds;
        const done = await withTimeout(
          this.clock,
          timeoutMs,
          signal,
          (s) =>
            this.clock.sleep(seconds * 1000, s).then(
              () => true,
              () => false,
            ),
          () => false,
        );
        if (done) return undefined;
        // runSleepHandler: the wait was cut short (the grace period ran out, the agent stopping).
        return {
          message: `Sleep lifecycle hook (${seconds}) for Container ${name} in Pod ${JSON.stringify(pod)} failed - error: container terminated before sleep hook finished`,
          timedOut: true,
        };
      }
      default:
        return { message: `Cannot run handler: invalid handler: ${JSON.stringify(h)}`, timedOut: false };
    }
  }
}

function timedOut(r: HandlerResult): boolean {
  return r.status === "failure" && / timed out$/.test(r.output);
}
