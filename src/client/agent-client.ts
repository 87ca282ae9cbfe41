// How the thin commands (`nodeagent logs`, `exec`, `pleg watch --agent`) reach the agent's API: its
// URL, the credential (the push token as a bearer token, or a client certificate), and the TLS trust
// (a CA file, else — for the agent's own self-signed certificate on this host — the certificate the
// agent wrote under its --root-dir, else none with --insecure-skip-tls-verify). One place for all of
// them, so that every command says the same thing when the agent cannot be reached or refuses.
import { readFileSync } from "node:fs";
import { errorMessage } from "../util";
import type { WebSocketOptions } from "./remote-command";

export interface AgentClientOptions {
  /** The agent's API, e.g. https://127.0.0.1:10250. */
  server: string;
  /** A bearer token (the agent's push token). */
  token?: string;
  /** PEM of the CA (or the self-signed certificate) that signed the agent's serving certificate. */
  ca?: string;
  /** PEM of a client certificate and its key, for an agent that verifies client certificates. */
  cert?: string;
  key?: string;
  /** Accept any serving certificate (a test agent, a node whose certificate is not at hand). */
  insecureSkipTLSVerify?: boolean;
}

/** The agent could not be reached, or refused: the message says which, and what to try. */
export class AgentClientError extends Error {
  override name = "AgentClientError";
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

export class AgentClient {
  readonly server: string;

  constructor(private readonly o: AgentClientOptions) {
    this.server = o.server.replace(/\/+$/, "");
  }

  private headers(): Record<string, string> {
    return this.o.token ? { Authorization: `Bearer ${this.o.token}` } : {};
  }

  private tls(): WebSocketOptions["tls"] | undefined {
    if (!this.server.startsWith("https:")) return undefined;
    return { rejectUnauthorized: !this.o.insecureSkipTLSVerify, ca: this.o.ca, cert: this.o.cert, key: this.o.key };
  }

  /** GET (or another method) of a path of the API; a connection failure is an AgentClientError. */
  async fetch(path: string, init: { method?: string; signal?: AbortSignal } = {}): Promise<Response> {
    try {
      // Bun's fetch takes the TLS options beside the standard ones.
      return await fetch(`${this.server}${path}`, { ...init, headers: this.headers(), tls: this.tls() } as RequestInit);
    } catch (e) {
      throw new AgentClientError(`cannot reach the agent at ${this.server}: ${errorMessage(e)} (is it running, at that address?)`);
    }
  }

  /** The refusal in a response that is not OK, as a message: the kubelet's plain text or a v1 Status's message. */
  async refusal(res: Response): Promise<AgentClientError> {
    const message = errorBodyMessage(await res.text().catch(() => ""));
    const hint = res.status === 401 ? " (give the agent's credentials: --token-file, or --client-certificate and --client-key)" : "";
    return new AgentClientError(`${message || `${res.status} ${res.statusText}`}${hint}`, res.status);
  }

  /** The ws:// or wss:// URL of a path, and the options for Bun's WebSocket. */
  websocket(path: string): { url: string; options: WebSocketOptions } {
    return { url: `${this.server.replace(/^http/, "ws")}${path}`, options: { headers: this.headers(), tls: this.tls() } };
  }
}

/** The message of an error answer: a v1 Status's message, else the body as the kubelet sends it. */
export function errorBodyMessage(body: string): string {
  try {
    const v = JSON.parse(body) as { kind?: unknown; message?: unknown };
    if (v && v.kind === "Status" && typeof v.message === "string") return v.message;
  } catch {
    // Not JSON: the kubelet's plain text.
  }
  return body.trim();
}

/** A PEM file's text for a flag, or a message naming the flag. */
export function readPemFlag(flag: string, file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (e) {
    throw new Error(`--${flag} ${file}: ${errorMessage(e)}`);
  }
}
