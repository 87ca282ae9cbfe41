// The client side of `kubectl exec` over WebSocket, the `v4.channel.k8s.io` subprotocol that the
// runtime's streaming server (k8s.io/kubelet's streaming library, in containerd 1.6 and 1.7) speaks
// behind the agent's /exec and /attach: every binary message starts with its channel — 0 stdin,
// 1 stdout, 2 stderr, 3 error (a v1 Status once the command has ended), 4 resize (JSON
// {"Width","Height"}). The Status says how the command ended: Success, or Failure with reason
// NonZeroExitCode and the code in details.causes[reason=ExitCode] (apimachinery's remotecommand v4).
// v4 has no way to close stdin alone (v5's CLOSE signal came in Kubernetes 1.29, after these
// runtimes' library): the input is sent as it comes, and the session ends when the command does.
import type { Status } from "kubernetes-types/meta/v1";

export const V4_CHANNEL_PROTOCOL = "v4.channel.k8s.io";

export const enum Channel {
  Stdin = 0,
  Stdout = 1,
  Stderr = 2,
  Error = 3,
  Resize = 4,
}

export interface RemoteCommandIO {
  /** Input for the command's stdin; each chunk is sent as one message. */
  stdin?: AsyncIterable<Uint8Array>;
  stdout(chunk: Uint8Array): void;
  stderr(chunk: Uint8Array): void;
  /** Terminal size changes (the first one is the size at start), with a TTY. */
  resizes?: AsyncIterable<{ width: number; height: number }>;
}

export interface RemoteCommandResult {
  /** The command's exit code: 0 on Success, the NonZeroExitCode cause's, or undefined when unknown. */
  exitCode: number | undefined;
  /** The Status of the error channel, when the server sent one. */
  status?: Status;
}

/** The exit code a v4 error-channel Status says. */
export function exitCodeOf(status: Status | undefined): number | undefined {
  if (!status) return undefined;
  if (status.status === "Success") return 0;
  if (status.reason === "NonZeroExitCode") {
    const cause = status.details?.causes?.find((c) => c.reason === "ExitCode");
    const code = Number(cause?.message);
    return Number.isInteger(code) ? code : undefined;
  }
  return undefined;
}

/** One message on a channel: its byte, then the data. */
export function frame(channel: Channel, data: Uint8Array | string): Uint8Array {
  const body = typeof data === "string" ? new TextEncoder().encode(data) : data;
  const out = new Uint8Array(body.length + 1);
  out[0] = channel;
  out.set(body, 1);
  return out;
}

export interface WebSocketOptions {
  headers?: Record<string, string>;
  tls?: { rejectUnauthorized?: boolean; ca?: string; cert?: string; key?: string };
}

/**
 * Runs one remote command session on `url` (ws:// or wss://, the agent's /exec or /attach with its
 * query) until the server closes it; the error channel's Status decides the result.
 */
export function runRemoteCommand(url: string, o: WebSocketOptions, io: RemoteCommandIO): Promise<RemoteCommandResult> {
  return new Promise((resolve, reject) => {
    // Bun's WebSocket takes headers and TLS options beside the subprotocols.
    const ws = new WebSocket(url, { protocols: [V4_CHANNEL_PROTOCOL], headers: o.headers, tls: o.tls } as unknown as string[]);
    ws.binaryType = "arraybuffer";
    let errorText = "";
    let opened = false;
    ws.onopen = () => {
      opened = true;
      void pump(io.stdin, (chunk) => ws.send(frame(Channel.Stdin, chunk)));
      void pump(io.resizes, (s) => ws.send(frame(Channel.Resize, JSON.stringify({ Width: s.width, Height: s.height }))));
    };
    ws.onmessage = (ev) => {
      const data = new Uint8Array(ev.data as ArrayBuffer);
      if (data.length === 0) return;
      const body = data.subarray(1);
      // The server opens each channel with an empty message; those carry nothing.
      if (body.length === 0) return;
      if (data[0] === Channel.Stdout) io.stdout(body);
      else if (data[0] === Channel.Stderr) io.stderr(body);
      else if (data[0] === Channel.Error) errorText += new TextDecoder().decode(body);
    };
    ws.onerror = (ev) => {
      if (!opened) reject(new Error((ev as unknown as { message?: string }).message ?? "the WebSocket connection failed"));
    };
    ws.onclose = () => {
      if (!opened) return;
      let status: Status | undefined;
      if (errorText) {
        try {
          status = JSON.parse(errorText) as Status;
        } catch {
          status = { status: "Failure", message: errorText };
        }
      }
      resolve({ exitCode: exitCodeOf(status), status });
    };
  });
}

async function pump<T>(source: AsyncIterable<T> | undefined, send: (v: T) => void): Promise<void> {
  if (!source) return;
  try {
    for await (const v of source) send(v);
  } catch {
    // The session ended while input was still coming: nothing more to send.
  }
}
