// The server phase: the HTTP API (the kubelet's server) over the Agent, its TLS, authentication and
// authorization, and with serverTLSBootstrap the serving certificate's rotation, each registered as started.
import type { NodeAddress } from "kubernetes-types/core/v1";
import type { ClusterNode } from "../cluster";
import { startServingCertificateRotation, storedServingCertificate } from "../certificate";
import type { CriRuntime } from "../cri";
import type { EventRing } from "../events";
import type { PushSource } from "../config";
import {
  Authenticator,
  Authorizer,
  isSpecificIP,
  servingCertificate,
  startAgentServer,
  type AgentMetrics,
  type AgentServer,
  type AgentServerOptions,
} from "../server";
import type { SummaryProvider } from "../stats";
import { type Clock, errorMessage, type Logger } from "../util";
import type { Agent } from "./agent";
import type { AgentConfig } from "./agent-config";
import { kubeletConfigz } from "./configz";
import type { NodeContext } from "./node-context";

/**
 * The API's TLS, authenticator and authorizer from the configuration (the kubelet's InitializeTLS and
 * BuildAuth): the serving certificate given, or the self-signed one kept under <root-dir>/pki; the
 * TokenReview and SubjectAccessReview webhooks over the cluster's client, with the node's own
 * credentials, as the kubelet sends them (the Node authorizer lets a node create both: its static
 * rules are the system:node ClusterRole's, which has tokenreviews and subjectaccessreviews create).
 */
function apiSecurity(
  config: AgentConfig,
  hostIPs: readonly string[],
  cluster: ClusterNode | undefined,
  clock: Clock,
  log: Logger,
): Pick<AgentServerOptions, "tls" | "nodeName" | "authenticator" | "authorizer"> {
  const { server } = config;
  const authn = server.authentication;
  let tls: AgentServerOptions["tls"];
  if (!server.insecureHttp) {
    // serverTLSBootstrap: a serving pair issued before (under --cert-dir) is served from the start.
    const issued = config.cluster?.certificates.serverTLSBootstrap ? storedServingCertificate(config.certDir, clock.now(), log) : undefined;
    const cert = servingCertificate({
      ...(server.tls ?? (issued ? { certFile: issued.path, keyFile: issued.path } : {})),
      certDir: config.certDir,
      hostname: config.nodeName,
      alternateNames: [...hostIPs, ...(isSpecificIP(server.address) ? [server.address] : [])],
    });
    if (cert.generated) log.info("made a self-signed serving certificate (clients can trust that file)", { path: cert.certFile });
    tls = { certFile: cert.certFile, keyFile: cert.keyFile, ...(authn.clientCAFile ? { clientCAFile: authn.clientCAFile } : {}) };
  }
  const client = cluster?.client;
  const authenticator = new Authenticator({
    x509: !!authn.clientCAFile,
    pushToken: config.pushToken,
    ...(client && authn.webhook.enabled
      ? {
          webhook: {
            reviewer: { createTokenReview: (r) => client.postJson("/apis/authentication.k8s.io/v1/tokenreviews", r) },
            cacheTTLMs: authn.webhook.cacheTTLMs,
          },
        }
      : {}),
    anonymous: authn.anonymous,
    clock,
  });
  const authz = server.authorization;
  const authorizer = new Authorizer({
    mode: authz.mode,
    ...(client && authz.mode === "Webhook"
      ? {
          webhook: {
            reviewer: { createSubjectAccessReview: (r) => client.postJson("/apis/authorization.k8s.io/v1/subjectaccessreviews", r) },
            ...authz.webhook,
          },
        }
      : {}),
    clock,
  });
  return { ...(tls ? { tls } : {}), nodeName: config.nodeName, authenticator, authorizer };
}

export interface ServerInputs {
  agent: Agent;
  cluster: ClusterNode | undefined;
  client: CriRuntime;
  push: PushSource;
  stats: () => Promise<SummaryProvider>;
  metrics: AgentMetrics;
  eventRing: EventRing;
  addresses: NodeAddress[];
  hostIPs: string[];
}

export async function startServer(ctx: NodeContext, i: ServerInputs): Promise<AgentServer> {
  const { config, nodeName, clock, log } = ctx;
  const { agent: a, cluster, client, push, stats, metrics, eventRing, addresses, hostIPs } = i;
  const srv = (ctx.late.server = await startAgentServer({
    address: config.server.address,
    port: config.server.port,
    ...apiSecurity(config, hostIPs, cluster, clock, log),
    token: config.pushToken,
    anonymousReadOnly: config.server.anonymousReadOnly,
    metrics,
    log,
    view: {
      pods: () => a.pods(),
      healthChecks: () => a.healthChecks(),
      node: () => a.node(),
      pushPod: async (pod) => push.add(pod as never),
      deletePushedPod: async (ns, name) => push.remove(ns, name),
      summary: async (onlyCpuAndMemory) => (await stats()).get(onlyCpuAndMemory),
      configz: () => kubeletConfigz(config),
      events: () => eventRing.list(),
      streamUrl: async (r) => {
        const t = a.streamTarget(r.namespace, r.pod, r.uid, r.container);
        if ("status" in t) return t;
        try {
          if (r.kind === "portForward") return await client.portForward(t.sandboxId, r.ports);
          const streams = { containerId: t.containerId!, tty: r.tty, stdin: r.stdin, stdout: r.stdout, stderr: r.stderr };
          return r.kind === "exec" ? await client.exec({ ...streams, cmd: r.command }) : await client.attach(streams);
        } catch (err) {
          // The kubelet's streaming.WriteError: the runtime's error, 500 unless it says otherwise.
          return { status: 500, message: errorMessage(err) };
        }
      },
      containerLog: async (id) => {
        const s = await client.containerStatus(id);
        return { path: s.logPath, running: s.state === "CONTAINER_RUNNING" };
      },
    },
  }));
  ctx.started.add("the HTTP API", () => srv.stop());
  // serverTLSBootstrap: the serving certificate from the cluster, served once issued and on each renewal.
  if (cluster && config.cluster?.certificates.serverTLSBootstrap) {
    const serving = startServingCertificateRotation({
      certDir: config.certDir,
      nodeName,
      clock,
      log,
      client: cluster.client,
      addresses,
      serve: (cert, key) => srv.setServingCertificate(cert, key),
    });
    ctx.started.add("the serving certificate rotation", () => serving.stop());
  }
  return srv;
}
