// `nodeagent agent`: the full stack — pod sources → PodConfig → syncLoop → pod workers → CRI, with the
// PLEG, the status computation and the HTTP API — on this host.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { networkInterfaces, hostname } from "node:os";
import { defineCommand } from "citty";
import YAML from "yaml";
import { Agent } from "../src/agent";
import { parseQuantity } from "../src/api/quantity";
import { MaxPodsAdmitHandler } from "../src/admission";
import { conflictCheck, FileSource, HttpSource, PodConfig, pushPolicyCheck, PushSource, type PodSource, type PushPolicy, type SourceReport } from "../src/config";
import { CriClient, resolveRuntime } from "../src/cri";
import { loadStaticPods } from "../src/manifest/load";
import type { PodSourceName } from "../src/manifest/types";
import { Pleg, type PlegModeSetting } from "../src/pleg";
import { AgentMetrics, runtimeCounts, buildNode, parseLabels, parseTaint, readTokenFile, servingExposureError, startAgentServer } from "../src/server";
import { RealClock, createLogger, parseDuration, type LogFormat } from "../src/util";
import pkg from "../package.json" with { type: "json" };
import { UsageError } from "./main";
import { runtimeArgs } from "./runtime-args";

/** The KubeletConfiguration fields nodeagent reads from --config, with their flag names. */
const CONFIG_FIELDS: Record<string, string> = {
  staticPodPath: "pod-manifest-path",
  staticPodURL: "manifest-url",
  fileCheckFrequency: "file-check-frequency",
  httpCheckFrequency: "http-check-frequency",
  syncFrequency: "sync-frequency",
  address: "address",
  port: "port",
  tlsCertFile: "tls-cert-file",
  tlsPrivateKeyFile: "tls-private-key-file",
  containerRuntimeEndpoint: "runtime-endpoint",
  runtimeRequestTimeout: "runtime-request-timeout",
  maxPods: "max-pods",
  podLogsDir: "pod-logs-dir",
  cgroupRoot: "cgroup-root",
  podInfraContainerImage: "pod-infra-container-image",
  clusterDNS: "cluster-dns",
  clusterDomain: "cluster-domain",
  resolvConf: "resolv-conf",
  nodeStatusUpdateFrequency: "node-status-update-frequency",
};

function readConfigFile(path: string): Record<string, string> {
  let doc: unknown;
  try {
    doc = YAML.parse(readFileSync(path, "utf8"), { version: "1.1" });
  } catch (e) {
    throw new UsageError(`--config ${path}: ${(e as Error).message}`);
  }
  if (!doc || typeof doc !== "object") throw new UsageError(`--config ${path}: not a KubeletConfiguration object`);
  const d = doc as Record<string, unknown>;
  if (d.kind !== undefined && d.kind !== "KubeletConfiguration") throw new UsageError(`--config ${path}: kind ${String(d.kind)}, want KubeletConfiguration`);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(d)) {
    if (k === "kind" || k === "apiVersion") continue;
    const flag = CONFIG_FIELDS[k];
    if (!flag) throw new UsageError(`--config ${path}: field ${k} is not supported (supported: ${Object.keys(CONFIG_FIELDS).join(", ")})`);
    out[flag] = String(v);
  }
  return out;
}

/**
 * --kube-reserved and --system-reserved ("cpu=500m,memory=1Gi"), summed as the kubelet sums them
 * into the node allocatable reservation.
 */
function parseReserved(...specs: Array<string | undefined>): { cpu?: string; memory?: string; ephemeralStorage?: string } {
  let milliCPU = 0;
  let memory = 0;
  let storage = 0;
  for (const spec of specs) {
    for (const item of (spec ?? "").split(",").map((x) => x.trim()).filter(Boolean)) {
      const [name, value] = item.split("=");
      if (!name || !value) throw new Error(`reserved resource ${JSON.stringify(item)}: use name=quantity, e.g. cpu=500m`);
      let q;
      try {
        q = parseQuantity(value);
      } catch (e) {
        throw new Error(`reserved ${name}=${value}: ${(e as Error).message}`);
      }
      if (name === "cpu") milliCPU += q.milli();
      else if (name === "memory") memory += q.value();
      else if (name === "ephemeral-storage") storage += q.value();
      else throw new Error(`reserved resource ${JSON.stringify(name)}: only cpu, memory and ephemeral-storage can be reserved`);
    }
  }
  return { ...(milliCPU ? { cpu: `${milliCPU}m` } : {}), ...(memory ? { memory: String(memory) } : {}), ...(storage ? { ephemeralStorage: String(storage) } : {}) };
}

function defaultHostIP(): string {
  for (const addrs of Object.values(networkInterfaces())) {
    for (const a of addrs ?? []) if (a.family === "IPv4" && !a.internal) return a.address;
  }
  return "127.0.0.1";
}

export const agentCommand = defineCommand({
  meta: {
    name: "agent",
    description: `Run pods on this host: static pods from a directory (--pod-manifest-path), a URL
(--manifest-url) and pods pushed to the HTTP API (POST /pods with --push-token-file), through the
CRI runtime, with the kubelet's semantics (restart policy and crash-loop backoff, init containers,
image pull policy, grace periods, status). Stopping the agent leaves the pods running; the next
start adopts them.

HTTP API (default http://127.0.0.1:10250): GET /healthz, /pods, /pods/<ns>/<name>, /node, /metrics;
POST /pods and DELETE /pods/<ns>/<name> with "Authorization: Bearer <token>". With --push-token-file
every endpoint but /healthz needs that token, reads included. The push token is root on this host
(a pushed pod may be privileged, use the host's namespaces and mount / with hostPath): its file must
be owned by root (or the agent's user) with mode 0600. Without a token the API stays on loopback
(unless --anonymous-read-only) and /pods hides env values and other secret-bearing fields.

With --kubeconfig the agent is a node of a Kubernetes cluster, with no more rights than a kubelet
under the Node authorizer: it registers its Node and keeps its Lease in kube-node-lease, runs the
pods the API server binds to it beside its static pods, writes their status back (PATCH
pods/<name>/status), creates mirror pods for static pods, and finishes graceful deletions. An API
server that cannot be reached stops nothing: the pods it bound keep running until it says otherwise.

Examples:
  nodeagent agent --pod-manifest-path /etc/kubernetes/manifests
  nodeagent agent --kubeconfig /etc/kubernetes/kubelet.conf --pod-manifest-path /etc/kubernetes/manifests
  nodeagent agent --config /etc/nodeagent/config.yaml --log-format json
  nodeagent agent --pod-manifest-path ./manifests --root-dir /tmp/na --port 0
  curl -s 127.0.0.1:10250/pods | jq '.items[] | {name: .metadata.name, phase: .status.phase}'`,
  },
  args: {
    ...runtimeArgs,
    config: { type: "string", description: "KubeletConfiguration YAML (a subset: staticPodPath, address, port, …); flags override it" },
    "pod-manifest-path": { type: "string", description: "Static pod directory (or one file)" },
    "manifest-url": { type: "string", description: "URL serving a Pod or a PodList, polled every --http-check-frequency" },
    "manifest-url-header": { type: "string", description: "Header for --manifest-url, 'Name:Value' (comma-separated for several)" },
    "push-token-file": { type: "string", description: "File (mode 0600, owned by root) holding the bearer token every endpoint but /healthz then requires; without it pushing is off and reads are redacted. The token is root on this host unless --push-policy restricted" },
    "anonymous-read-only": { type: "boolean", default: false, description: "Let callers without credentials read (GET, pods redacted) even with --push-token-file, and allow a non-loopback --address without it" },
    "push-policy": { type: "enum", options: ["unrestricted", "restricted"], default: "unrestricted", description: "restricted: POST /pods refuses privileged containers, hostNetwork/hostPID/hostIPC, hostPath volumes and added capabilities (403)" },
    "file-check-frequency": { type: "string", default: "20s", description: "Static pod directory rescan period" },
    "http-check-frequency": { type: "string", default: "20s", description: "--manifest-url poll period" },
    "sync-frequency": { type: "string", default: "1m", description: "Every pod is synced at least this often" },
    "hostname-override": { type: "string", description: "Node name (default: the hostname)" },
    "node-ip": { type: "string", description: "The node's IP (default: the first non-loopback IPv4)" },
    "node-labels": { type: "string", description: "Labels of the node, key=value,…" },
    "register-with-taints": { type: "string", description: "Taints of the node, key=value:Effect,…" },
    "max-pods": { type: "string", default: "110", description: "Pods this node can run (its pods capacity)" },
    "kube-reserved": { type: "string", description: "Resources kept for Kubernetes daemons, cpu=…,memory=…,ephemeral-storage=…: taken off allocatable" },
    "system-reserved": { type: "string", description: "Resources kept for the OS, same form: taken off allocatable" },
    address: { type: "string", default: "127.0.0.1", description: "HTTP API address" },
    port: { type: "string", default: "10250", description: "HTTP API port (0: any free port, printed at start)" },
    "tls-cert-file": { type: "string", description: "Serve HTTPS with this certificate" },
    "tls-private-key-file": { type: "string", description: "…and this key" },
    "cluster-dns": { type: "string", description: "Cluster DNS server IPs, comma-separated: ClusterFirst pods resolve through them (without it they use the host's resolv.conf, as the kubelet)" },
    "cluster-domain": { type: "string", default: "cluster.local", description: "The cluster's DNS domain, searched by ClusterFirst pods" },
    "resolv-conf": { type: "string", default: "/etc/resolv.conf", description: "The host's resolver configuration, the base of Default pods and the searches of ClusterFirst ones" },
    "pod-logs-dir": { type: "string", default: "/var/log/pods", description: "Container logs: <dir>/<ns>_<name>_<uid>/<container>/<n>.log" },
    "cgroup-root": { type: "string", default: "/nodeagent", description: "cgroupfs parent of every pod (pod<uid> below it)" },
    "pleg-mode": { type: "enum", options: ["auto", "generic", "evented"], default: "auto", description: "auto | generic | evented (see nodeagent pleg watch --help)" },
    "log-format": { type: "enum", options: ["text", "json"], default: "text", description: "text | json" },
    kubeconfig: { type: "string", description: "Join a Kubernetes cluster as a node with these credentials: register the Node, renew its Lease, run the pods bound here, write their status, mirror static pods" },
    context: { type: "string", description: "The --kubeconfig context to use (default: its current-context)" },
    "node-status-update-frequency": { type: "string", default: "10s", description: "With --kubeconfig: how often the node status is computed and written when it changed (at least every 5 min regardless)" },
  },
  async run({ args: given, rawArgs }) {
    const fromConfig = given.config ? readConfigFile(given.config) : {};
    // Flags given on the command line win over the config file; the config file over defaults.
    const explicit = new Set(rawArgs.filter((a) => a.startsWith("--")).map((a) => a.slice(2).split("=")[0]));
    const arg = (name: string): string | undefined => (explicit.has(name) ? (given[name] as string | undefined) : (fromConfig[name] ?? (given[name] as string | undefined)));
    const dur = (name: string) => {
      try {
        return parseDuration(arg(name)!);
      } catch (e) {
        throw new UsageError(`--${name}: ${(e as Error).message}`);
      }
    };
    const int = (name: string) => {
      const n = Number(arg(name));
      if (!Number.isInteger(n) || n < 0) throw new UsageError(`--${name}: ${JSON.stringify(arg(name))} is not a whole number`);
      return n;
    };
    const log = createLogger(given["log-format"] as LogFormat);
    const clock = new RealClock();
    const nodeName = (given["hostname-override"] ?? hostname()).toLowerCase();
    const hostIP = given["node-ip"] ?? defaultHostIP();
    const manifestPath = arg("pod-manifest-path");
    const manifestUrl = arg("manifest-url");
    let labels: Record<string, string> = {};
    let taints: ReturnType<typeof parseTaint>[] = [];
    try {
      labels = given["node-labels"] ? parseLabels(given["node-labels"]) : {};
      taints = given["register-with-taints"] ? given["register-with-taints"].split(",").map(parseTaint) : [];
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    const headers: Record<string, string[]> = {};
    for (const h of (given["manifest-url-header"] ?? "").split(",").filter(Boolean)) {
      const i = h.indexOf(":");
      if (i <= 0) throw new UsageError(`--manifest-url-header ${JSON.stringify(h)}: use Name:Value`);
      (headers[h.slice(0, i).trim()] ??= []).push(h.slice(i + 1).trim());
    }
    let reserved: ReturnType<typeof parseReserved>;
    try {
      reserved = parseReserved(given["kube-reserved"], given["system-reserved"]);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    // Checked before anything starts (a runtime, a port): a token others can read is refused as ssh
    // refuses an unprotected key, and without a token the API may not leave loopback unless told to.
    let token: string | undefined;
    try {
      token = given["push-token-file"] ? readTokenFile(given["push-token-file"]) : undefined;
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    const anonymousReadOnly = given["anonymous-read-only"] === true;
    const exposed = servingExposureError(arg("address")!, { token, anonymousReadOnly });
    if (exposed) throw new UsageError(exposed);
    const rootDir = arg("root-dir")!;

    const runtime = await resolveRuntime({ endpoint: arg("runtime-endpoint"), rootDir, podInfraImage: arg("pod-infra-container-image")!, log });
    const client = new CriClient(runtime.endpoint, { timeoutMs: dur("runtime-request-timeout") });
    const metrics = new AgentMetrics();
    metrics.setNodeName(nodeName);
    const pleg = new Pleg(client, clock, {
      mode: given["pleg-mode"] as PlegModeSetting,
      onModeChange: (m) => log.info(`PLEG mode ${m.mode}: ${m.reason}`),
      onError: (what, err) => {
        log.warn(`PLEG ${what}: ${(err as Error).message ?? err}`);
        if (what.startsWith("event stream")) metrics.incEventedPlegConnectionErrors();
      },
      onRelist: (r) => {
        metrics.observePlegRelist(r.durationMs / 1000);
        if (r.intervalMs !== undefined) metrics.observePlegRelistInterval(r.intervalMs / 1000);
      },
      onStreamConnected: () => metrics.incEventedPlegConnections(),
    });
    const config = new PodConfig({ clock, log });
    const sources: PodSource[] = [];
    const source = (name: PodSourceName, src: { start(feed: (r: SourceReport) => void): void; stop(): void | Promise<void> }): PodSource => ({ name, start: (f) => src.start(f), stop: () => src.stop() });
    if (manifestPath) {
      sources.push(source("file", new FileSource({ path: manifestPath, nodeName, loader: loadStaticPods, clock, log, checkFrequencyMs: dur("file-check-frequency") })));
    }
    if (manifestUrl) {
      sources.push(source("http", new HttpSource({ url: manifestUrl, headers, nodeName, loader: loadStaticPods, clock, log, checkFrequencyMs: dur("http-check-frequency") })));
    }
    // Pushed pods are kept under the root directory, so that a restarted agent adopts them.
    // A push never takes over another source's pod (409), and obeys --push-policy (403).
    const checks = [pushPolicyCheck(given["push-policy"] as PushPolicy), conflictCheck(config)];
    const push = new PushSource({ nodeName, loader: loadStaticPods, log, stateFile: join(rootDir, "pushed-pods.json"), checks });
    sources.push(source("push", push));
    /** The node's Ready verdict from the agent's health checks, for GET /node and the Node in the API. */
    const agentHealth = () => {
      const bad = agent.healthChecks().filter((c) => !c.ok);
      return { ready: bad.length === 0, message: bad.map((c) => `${c.name}: ${c.message}`).join("; ") };
    };
    // A node of a cluster: the API server is one more source, and the Node, its Lease, pod statuses and
    // mirror pods are written back. Loaded only here, so other commands never load the API client.
    let cluster: import("../src/cluster/cluster-node").ClusterNode | undefined;
    if (arg("kubeconfig")) {
      const { ClusterNode } = await import("../src/cluster/cluster-node");
      try {
        cluster = await ClusterNode.connect({
          kubeconfig: arg("kubeconfig")!,
          context: arg("context"),
          nodeName,
          buildNode: () => agent.node(),
          health: () => agentHealth(),
          nodeStatusUpdateFrequencyMs: dur("node-status-update-frequency"),
          userAgent: `nodeagent/${pkg.version} (agent on ${nodeName})`,
          clock,
          log,
        });
      } catch (e) {
        throw new UsageError(`--kubeconfig: ${(e as Error).message}`);
      }
      sources.push(source("api", cluster));
    }

    let lastNode: Awaited<ReturnType<typeof buildNode>> | undefined;
    const agent: Agent = new Agent({
      runtime: client,
      pleg,
      config,
      sources,
      clock,
      log,
      runtimeConfig: {
        podLogsRoot: arg("pod-logs-dir")!, podsDir: join(rootDir, "pods"), cgroupRoot: arg("cgroup-root")!, nodeName, hostIP,
        clusterDns: { servers: (arg("cluster-dns") ?? "").split(",").map((x) => x.trim()).filter(Boolean), domain: arg("cluster-domain")!, resolvConf: arg("resolv-conf")! },
      },
      syncFrequencyMs: dur("sync-frequency"),
      node: async () => {
        const health = agentHealth();
        lastNode = await buildNode({
          nodeName, labels, taints, runtime: client, maxPods: int("max-pods"), reserved, now: clock.now(), version: pkg.version, port: server.port, previous: lastNode,
          conditions: { ready: { ok: health.ready, message: health.message } },
        });
        return lastNode;
      },
      stateDir: rootDir,
      statusManager: cluster ? { setPodStatus: cluster.hooks.podStatus, terminatePod: cluster.hooks.podTerminated, removePod: cluster.hooks.podRemoved } : undefined,
      admitHandlers: [new MaxPodsAdmitHandler(() => int("max-pods"))],
      hooks: {
        podStarted: (_pod, seconds) => metrics.observePodStart(seconds),
        containerRestarted: (pod, container) => metrics.incContainerRestart(pod.metadata?.namespace ?? "default", pod.metadata?.name ?? "", container),
        podRemoved: (pod) => metrics.forgetPod(pod.metadata?.namespace ?? "default", pod.metadata?.name ?? ""),
        // Each source logs an error once, when it first appears; here it is only counted.
        sourceReported: (r) => metrics.setSourceErrors(r.source, r.errors.length),
        probeObserved: (o) => metrics.observeProbe(o),
        afterHousekeeping: () => {
          void cluster?.housekeeping(agent.workers.states().map((s) => ({ pod: s.pod, terminating: s.phase !== "syncing" }))).catch((err) => log.warn(`mirror pods: ${(err as Error).message}`));
          const stats = pleg.relistStats;
          if (stats.lastRelistTime) metrics.setPlegLastSeen(stats.lastRelistTime);
          const { pods, containers } = runtimeCounts(pleg.cache);
          metrics.setRunningPods(pods);
          metrics.setRunningContainers(containers);
        },
      },
    });
    const server = await startAgentServer({
      address: arg("address")!,
      port: int("port"),
      tls: arg("tls-cert-file") && arg("tls-private-key-file") ? { certFile: arg("tls-cert-file")!, keyFile: arg("tls-private-key-file")! } : undefined,
      token,
      anonymousReadOnly,
      metrics,
      log,
      view: {
        pods: () => agent.pods(),
        healthChecks: () => agent.healthChecks(),
        node: () => agent.node(),
        pushPod: async (pod) => push.add(pod as never),
        deletePushedPod: async (ns, name) => push.remove(ns, name),
      },
    });
    log.info(`nodeagent ${pkg.version} on node ${nodeName}: API at ${server.url}, runtime ${runtime.endpoint}, sources ${sources.map((s) => s.name).join(", ")}`);
    if (cluster) log.info(`joining the cluster at ${cluster.client.server} as node ${nodeName}`);

    const ac = new AbortController();
    process.once("SIGINT", () => ac.abort());
    process.once("SIGTERM", () => ac.abort());
    await agent.run(ac.signal);
    await server.stop();
    client.close();
    await runtime.release();
    log.info("nodeagent stopped; the pods keep running");
    return 0;
  },
});
