// GET /containerLogs/{namespace}/{pod}/{container}: the kubelet's log endpoint
// (k/k@1.24 pkg/kubelet/server/server.go getContainerLogs → kubelet_pods.go GetKubeletContainerLogs
// → kuberuntime GetContainerLogs → logs.ReadLogs), what `kubectl logs` reaches through the API server.
//
// In order, each refusal as the kubelet answers it — a plain-text body, because the API server puts
// the kubelet's body, as it is, in the message of the error kubectl prints:
//   query not decodable             400 {"message": "Unable to decode query."}
//   query invalid                   422 {"message": "Invalid request."}
//   no such pod                     404 pod "web" does not exist
//   no such container in its spec   404 container "x" not found in pod "web"
//   no instance to read             400 container "app" in pod "web" is waiting to start: ContainerCreating
//                                   400 previous terminated container "app" in pod "web" not found
//   the runtime does not know it    400 unable to retrieve container logs for containerd://…
//   the file cannot be opened       400 failed to open log file "…": …
// then 200, chunked, each chunk flushed as it is read; with follow=true the body ends when the
// container exits (the runtime says it is no longer running), at limitBytes, or when the client goes
// away — which aborts the reader, closing its watch and file.
//
// Who may read: the gate (auth.ts) has authenticated the caller and authorized nodes/proxy, as the
// kubelet does for this path. Logs are the containers' own output, secrets and all, so they are never
// served to the anonymous read-only view (--anonymous-read-only), which the gate lets in for reads.
import { type Clock, errorMessage, type LogFields } from "../util";
import {
  ContainerLogStatusError,
  containerIdForLogs,
  hasContainer,
  LogQueryError,
  NodeLogFiles,
  openLogs,
  parsePodLogOptions,
  runtimeContainerId,
  toLogOptions,
  type LogFiles,
  type OpenedLogs,
} from "../logs";
import { podRef } from "../api";
import type { Caller } from "./auth";
import type { AgentView } from "./types";

type Log = Record<"info" | "warn" | "error" | "debug", (message: string, fields?: LogFields) => void>;

export interface ContainerLogsContext {
  view: Pick<AgentView, "pods" | "containerLog">;
  log: Log;
  clock: Clock;
  /** The file system the reader uses (NodeLogFiles when not given; tests pass a fake). */
  files?: LogFiles;
}

/** A kubelet-style refusal: the status and a plain-text body. */
function refusal(status: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(message, { status, headers: { "Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff", ...headers } });
}

const decode = (s: string): string | undefined => {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
};

/**
 * Answers GET /containerLogs/…; `segments` is the path split on "/" without the leading empty one
 * (["containerLogs", ns, pod, container]).
 */
/** The most a chunk of the response carries. */
const BATCH_BYTES = 64 * 1024;

export async function serveContainerLogs(req: Request, segments: string[], caller: Caller, ctx: ContainerLogsContext): Promise<Response> {
  const url = new URL(req.url);
  if (req.method !== "GET") {
    return refusal(405, `method ${req.method} is not allowed on ${url.pathname}; allowed: GET`, { Allow: "GET" });
  }
  if (segments.length !== 4) return refusal(404, `the server could not find the requested resource: ${url.pathname}`);
  // The gate let the caller in; the anonymous read-only view is pods without secrets, and logs are not that.
  if (caller.redacted) return refusal(403, "Forbidden: container logs are not part of the anonymous read-only view (--anonymous-read-only)");
  const [namespace, podName, containerName] = segments.slice(1).map(decode);
  if (namespace === undefined || podName === undefined || containerName === undefined) return refusal(400, `malformed path ${url.pathname}`);
  // The kubelet's own checks, in its order (and its JSON-looking text).
  if (!podName) return refusal(400, '{"message": "Missing podID."}');
  if (!containerName) return refusal(400, '{"message": "Missing container name."}');
  if (!namespace) return refusal(400, '{"message": "Missing podNamespace."}');

  let options;
  try {
    options = parsePodLogOptions(url.searchParams);
  } catch (err) {
    if (err instanceof LogQueryError) {
      ctx.log.debug("container logs: query refused", { path: url.pathname, status: err.status, reason: err.detail });
      return refusal(err.status, err.message);
    }
    throw err;
  }
  const pod = ctx.view.pods().find((p) => {
    const r = podRef(p);
    return r.namespace === namespace && r.name === podName;
  });
  if (!pod) return refusal(404, `pod ${JSON.stringify(podName)} does not exist`);
  if (!hasContainer(pod, containerName)) return refusal(404, `container ${JSON.stringify(containerName)} not found in pod ${JSON.stringify(podName)}`);
  let apiId: string;
  try {
    apiId = containerIdForLogs(pod, containerName, options.previous === true);
  } catch (err) {
    if (err instanceof ContainerLogStatusError) return refusal(400, err.message);
    throw err;
  }
  const id = runtimeContainerId(apiId);
  let path: string;
  try {
    path = (await ctx.view.containerLog(id)).path;
  } catch (err) {
    ctx.log.debug("container logs: the runtime's status of the container failed", { path: url.pathname, id: apiId, err });
    return refusal(400, `unable to retrieve container logs for ${apiId}`);
  }

  const ac = new AbortController();
  const onGone = () => ac.abort();
  req.signal.addEventListener("abort", onGone, { once: true });
  let malformed = 0;
  let opened: OpenedLogs;
  try {
    opened = await openLogs(
      path,
      toLogOptions(options, ctx.clock.now()),
      {
        files: ctx.files ?? new NodeLogFiles(),
        clock: ctx.clock,
        isRunning: async () => (await ctx.view.containerLog(id)).running,
        onMalformed: (note) => {
          // The kubelet logs each; one warning per request is enough to find the file.
          if (malformed++ === 0) ctx.log.warn("container logs: malformed line", { pod: `${namespace}/${podName}`, container: containerName, reason: note });
        },
      },
      ac.signal,
    );
  } catch (err) {
    req.signal.removeEventListener("abort", onGone);
    return refusal(400, `failed to open log file ${JSON.stringify(path)}: ${errorMessage(err)}`);
  }
  const lines = opened.lines;
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    req.signal.removeEventListener("abort", onGone);
    if (malformed > 1)
      ctx.log.warn("container logs: malformed lines skipped", { pod: `${namespace}/${podName}`, container: containerName, lines: malformed, path });
  };
  // Lines are sent in batches of up to BATCH_BYTES: one write per line cost a 50 MB log 20× the time
  // of reading it. A batch ends early when the next line is not ready at once (a follow waiting for
  // the container), so a followed line still goes out as soon as it is read.
  let pending: Promise<IteratorResult<Uint8Array, void>> | undefined;
  const nextLine = () => {
    const p = pending ?? lines.next();
    pending = undefined;
    return p;
  };
  const readBatch = async (): Promise<IteratorResult<Uint8Array, void>> => {
    const first = await nextLine();
    if (first.done) return first;
    const parts = [first.value];
    let size = first.value.length;
    while (size < BATCH_BYTES) {
      const p = lines.next();
      const ready = await Promise.race([p, new Promise<"later">((resolve) => setImmediate(() => resolve("later")))]);
      if (ready === "later") {
        // Kept for the next pull; a rejection then reaches it (and never goes unhandled meanwhile).
        p.catch(() => undefined);
        pending = p;
        break;
      }
      if (ready.done) {
        pending = p;
        break;
      }
      parts.push(ready.value);
      size += ready.value.length;
    }
    return { done: false, value: parts.length === 1 ? parts[0]! : Buffer.concat(parts, size) };
  };
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let r: IteratorResult<Uint8Array, void>;
      try {
        r = await readBatch();
      } catch (err) {
        finish();
        ctx.log.warn("container logs: reading the log file failed", { pod: `${namespace}/${podName}`, container: containerName, path, err });
        // The head is sent: all that is left is to cut the body short, as the kubelet does.
        try {
          controller.error(err);
        } catch {
          // The client went away meanwhile.
        }
        return;
      }
      try {
        if (r.done) {
          finish();
          controller.close();
        } else {
          controller.enqueue(r.value);
        }
      } catch {
        // The client went away between the read and the write: cancel() cleans up.
      }
    },
    async cancel() {
      // The client went away: stop the wait at once, then let the reader close its watch and file.
      ac.abort();
      finish();
      await lines.return();
    },
  });
  return new Response(body, { status: 200, headers: { "Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff" } });
}
