// The flags every client of the agent's API shares (`logs`, `exec`, `events`, `pleg watch --agent`,
// `probe run --probe`) and the AgentClient (src/client) they make: a bad flag is a usage error naming
// it, before anything is sent. The agent's credential is --token-file in every one of them; the old
// spelling --push-token-file (the agent's own flag for that file) still works, hidden, with a warning.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ROOT_DIR_SETTING } from "../src/agent";
import { readTokenFile, SERVER_SETTINGS } from "../src/server";
import { defaultOf, errorMessage } from "../src/util";
import type { Pod } from "kubernetes-types/core/v1";
import { AgentClient, AgentClientError, readPemFlag } from "../src/client";
import { ContainerChoiceError, defaultContainer } from "../src/logs";
import { UsageError } from "./exit";
import { withDeprecatedAlias } from "./flags";

export const DEFAULT_AGENT_SERVER = `https://127.0.0.1:${defaultOf(SERVER_SETTINGS, "port")}`;
/** Where an agent with the default --root-dir writes its self-signed serving certificate. */
export const DEFAULT_AGENT_CERT = join(defaultOf([ROOT_DIR_SETTING], "root-dir"), "pki", "kubelet.crt");

export const agentClientArgs = {
  server: { type: "string", valueHint: "url", default: DEFAULT_AGENT_SERVER, description: "The agent's API" },
  "token-file": withDeprecatedAlias(
    { type: "string", valueHint: "file", description: "A file (mode 0600) holding the agent's push token, sent as a bearer token" },
    "push-token-file",
  ),
  "certificate-authority": {
    type: "string",
    valueHint: "file",
    description: `The CA (or self-signed certificate) of the agent's serving certificate (default: ${DEFAULT_AGENT_CERT} when it exists)`,
  },
  "client-certificate": {
    type: "string",
    valueHint: "file",
    description: "A client certificate, for an agent started with --client-ca-file (with --client-key)",
  },
  "client-key": { type: "string", valueHint: "file", description: "…and its key" },
  "insecure-skip-tls-verify": { type: "boolean", default: false, description: "Accept any serving certificate" },
} as const;

export interface AgentClientArgValues {
  server: string;
  "token-file"?: string;
  "certificate-authority"?: string;
  "client-certificate"?: string;
  "client-key"?: string;
  "insecure-skip-tls-verify"?: boolean;
}

/** The client the flags describe. */
export function agentClientFrom(args: AgentClientArgValues): AgentClient {
  let token: string | undefined;
  let url: URL;
  try {
    url = new URL(args.server);
  } catch {
    throw new UsageError(`--server ${JSON.stringify(args.server)}: not a URL, e.g. ${DEFAULT_AGENT_SERVER}`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new UsageError(`--server ${args.server}: use an https:// or http:// URL`);
  if (!!args["client-certificate"] !== !!args["client-key"]) throw new UsageError("--client-certificate and --client-key go together");
  const pem = (flag: keyof AgentClientArgValues) => {
    const file = args[flag];
    if (typeof file !== "string") return undefined;
    try {
      return readPemFlag(flag, file);
    } catch (e) {
      throw new UsageError(errorMessage(e));
    }
  };
  if (args["token-file"]) {
    try {
      token = readTokenFile(args["token-file"]);
    } catch (e) {
      throw new UsageError(errorMessage(e).replaceAll("--push-token-file", "--token-file"));
    }
  }
  const ca =
    pem("certificate-authority") ??
    (url.protocol === "https:" && existsSync(DEFAULT_AGENT_CERT) ? readPemFlag("certificate-authority", DEFAULT_AGENT_CERT) : undefined);
  return new AgentClient({
    server: args.server,
    token,
    ca,
    cert: pem("client-certificate"),
    key: pem("client-key"),
    insecureSkipTLSVerify: args["insecure-skip-tls-verify"],
  });
}

/** NAMESPACE/POD, or POD with -n NAMESPACE (default namespace "default"). */
export function podArg(arg: string | undefined, namespace: string | undefined): { namespace: string; name: string } {
  if (!arg) throw new UsageError("give the pod: NAMESPACE/POD, or POD with -n NAMESPACE");
  const parts = arg.split("/");
  if (parts.length > 2 || parts.some((p) => p === "")) throw new UsageError(`${JSON.stringify(arg)}: use NAMESPACE/POD or POD`);
  if (parts.length === 2) {
    if (namespace !== undefined && namespace !== parts[0]) throw new UsageError(`the pod ${arg} is in namespace ${parts[0]}, but -n says ${namespace}`);
    return { namespace: parts[0]!, name: parts[1]! };
  }
  return { namespace: namespace ?? "default", name: parts[0]! };
}

/**
 * The container a command means when -c is not given: the pod's only one, or the one its
 * kubectl.kubernetes.io/default-container annotation names (kubectl's rule); read from the agent.
 */
export async function podContainer(client: AgentClient, pod: { namespace: string; name: string }): Promise<string> {
  const res = await client.fetch(`/pods/${encodeURIComponent(pod.namespace)}/${encodeURIComponent(pod.name)}`);
  if (res.status === 404) throw new AgentClientError(`pod "${pod.name}" does not exist in namespace "${pod.namespace}" on the agent at ${client.server}`);
  if (!res.ok) throw await client.refusal(res);
  try {
    return defaultContainer((await res.json()) as Pod);
  } catch (e) {
    if (e instanceof ContainerChoiceError) throw new UsageError(`${e.message} (-c CONTAINER)`);
    throw e;
  }
}
