// `nodeagent agent`: the full stack on this host. Thin: the flags, the --config file's text, then
// src/agent: resolveAgentConfig checks everything before anything starts, runNode runs the node.
import { defineCommand } from "citty";
import { AGENT_DEFAULTS as D, resolveAgentConfig } from "../src/agent/agent-config";
import { readKubeletConfigText } from "../src/agent/kubelet-config-file";
import { invocation } from "./main";
import { runtimeArgs } from "./runtime-args";

export const agentCommand = defineCommand({
  meta: {
    name: "agent",
    description: `Run pods on this host, with the kubelet's semantics: static pods, a manifest URL, pushed pods, a cluster's pods.

Pods come from a directory (--pod-manifest-path), a URL (--manifest-url), the HTTP API (POST /pods
with --push-token-file) and, with --kubeconfig, the API server; they run through the CRI runtime with
the kubelet's restart policy and crash-loop backoff, init containers, image pull policy, grace periods
and status. Stopping the agent leaves the pods running; the next start adopts them. Every flag is
checked before anything starts: a mistake is exit 2, and no pod is touched.

HTTP API (default https://127.0.0.1:10250): GET /healthz, /pods, /pods/<ns>/<name>, /node, /metrics;
POST /pods and DELETE /pods/<ns>/<name>. It serves HTTPS, with --tls-cert-file or a self-signed
certificate kept in <root-dir>/pki/kubelet.crt, and every request, /healthz included, is
authenticated and authorized as the kubelet does it: client certificates signed by --client-ca-file
(user CN, groups O), the push token of --push-token-file ("Authorization: Bearer <token>", allowed
everything), and with --kubeconfig other bearer tokens through a TokenReview and decisions through a
SubjectAccessReview on nodes/proxy, nodes/metrics, nodes/stats, nodes/log, nodes/spec. No credential:
401 (unless --anonymous-auth); not allowed: 403. --insecure-http serves plain HTTP on loopback.

--config reads a KubeletConfiguration (kubelet.config.k8s.io/v1beta1) such as the one kubeadm writes
to /var/lib/kubelet/config.yaml; flags given override it. The fields nodeagent does not implement are
listed once in a warning; a field of the wrong type is an error naming its line.

With --kubeconfig the agent is a node of a Kubernetes cluster, with no more rights than a kubelet
under the Node authorizer: it registers its Node and keeps its Lease, runs the pods bound to it beside
its static pods, writes their status, mirrors static pods and finishes graceful deletions. An API
server that cannot be reached stops nothing.

Certificates (the kubelet's TLS bootstrap): with --bootstrap-kubeconfig (a token of a user in group
system:bootstrappers) and no usable client certificate in --kubeconfig, the agent makes a P-256 key
and a CertificateSigningRequest for system:node:<node> in system:nodes (signer
kubernetes.io/kube-apiserver-client-kubelet), waits up to an hour for it to be approved and signed,
stores <cert-dir>/kubelet-client-<time>.pem (0600) and the link kubelet-client-current.pem, and
writes --kubeconfig pointing at it. --rotate-certificates renews it at 70-90 % of its lifetime;
--rotate-server-certificates (serverTLSBootstrap) requests the HTTPS serving certificate (signer
kubernetes.io/kubelet-serving, the node's addresses as names; approve it with kubectl certificate
approve) and serves it once issued, the self-signed one until then.

Without --kubeconfig, static and pushed pods may not use configMaps, secrets or service-account
tokens (the kubelet's rule): such a pod waits, and its status says why. --local-objects DIR serves
ConfigMap and Secret manifests from DIR to them instead, watched like the manifest directory.

Examples:
  nodeagent agent --pod-manifest-path /etc/kubernetes/manifests
  nodeagent agent --config /var/lib/kubelet/config.yaml --kubeconfig /etc/kubernetes/kubelet.conf
  nodeagent agent --pod-manifest-path ./manifests --root-dir /tmp/na --port 0
  nodeagent agent --pod-manifest-path /etc/kubernetes/manifests --local-objects /etc/nodeagent/objects
  curl -s --cacert /var/lib/nodeagent/pki/kubelet.crt -H "Authorization: Bearer $(cat token)" https://127.0.0.1:10250/pods | jq '.items[] | {name: .metadata.name, phase: .status.phase}'

Graceful node shutdown: with --shutdown-grace-period the agent takes a systemd-logind delay lock and,
when the host shuts down, stops the pods lowest priority first within their budgets (new pods are
refused NodeShutdown, the node is NotReady). Without logind, --shutdown-pods makes SIGTERM do the same
before the agent exits. Under systemd (Type=notify) the agent sends READY=1 once it has synced its
pods, WATCHDOG=1 when the unit sets WatchdogSec, and STOPPING=1 when it stops.

Exit status: 0 after SIGINT or SIGTERM, 1 when the node cannot start, 2 on a usage or configuration error.`,
  },
  args: {
    ...runtimeArgs,
    config: { type: "string", valueHint: "file", description: "KubeletConfiguration YAML (kubeadm's /var/lib/kubelet/config.yaml works); flags override it" },
    "pod-manifest-path": { type: "string", valueHint: "path", description: "Static pod directory (or one file); it must exist" },
    "manifest-url": { type: "string", valueHint: "url", description: "URL serving a Pod or a PodList, polled every --http-check-frequency" },
    "manifest-url-header": { type: "string", valueHint: "Name:Value,…", description: "Headers for --manifest-url" },
    "push-token-file": { type: "string", valueHint: "file", description: "File (mode 0600) holding a bearer token allowed every endpoint; without it pushing is off. The token is root on this host unless --push-policy restricted" },
    "push-policy": { type: "enum", options: ["unrestricted", "restricted"], default: "unrestricted", description: "restricted: POST /pods refuses privileged containers, host namespaces, hostPath volumes and added capabilities (403)" },
    "anonymous-read-only": { type: "boolean", default: false, description: "Let callers without credentials read (GET) the view of the kubelet's read-only port, env values redacted" },
    "anonymous-auth": { type: "boolean", default: false, description: "Requests without credentials are system:anonymous (group system:unauthenticated) and authorized as such, instead of 401" },
    "client-ca-file": { type: "string", valueHint: "file", description: "Authenticate client certificates signed by this CA bundle: user = CN, groups = O" },
    "authentication-token-webhook": { type: "boolean", description: "Authenticate bearer tokens with a TokenReview on the API server (default: on with --kubeconfig)" },
    "authentication-token-webhook-cache-ttl": { type: "string", valueHint: "duration", default: D["authentication-token-webhook-cache-ttl"], description: "How long a TokenReview's answer is kept" },
    "authorization-mode": { type: "enum", options: ["Webhook", "AlwaysAllow"], description: "Webhook: a SubjectAccessReview per request (default with --kubeconfig); AlwaysAllow: every authenticated caller. Without either, only the push token is authorized" },
    "authorization-webhook-cache-authorized-ttl": { type: "string", valueHint: "duration", default: D["authorization-webhook-cache-authorized-ttl"], description: "How long an allowed SubjectAccessReview is kept" },
    "authorization-webhook-cache-unauthorized-ttl": { type: "string", valueHint: "duration", default: D["authorization-webhook-cache-unauthorized-ttl"], description: "How long a denied SubjectAccessReview is kept" },
    "insecure-http": { type: "boolean", default: false, description: "Serve plain HTTP instead of HTTPS: only with a loopback --address, for a standalone agent" },
    "file-check-frequency": { type: "string", valueHint: "duration", default: D["file-check-frequency"], description: "Static pod directory rescan period" },
    "http-check-frequency": { type: "string", valueHint: "duration", default: D["http-check-frequency"], description: "--manifest-url poll period" },
    "sync-frequency": { type: "string", valueHint: "duration", default: D["sync-frequency"], description: "Every pod is synced at least this often" },
    "eviction-monitoring-period": { type: "string", valueHint: "duration", default: D["eviction-monitoring-period"], description: "How often the eviction manager checks the thresholds and the emptyDir sizeLimits; the kubelet's fixed evictionMonitoringPeriod" },
    "eviction-hard": { type: "string", valueHint: "signal<value,…", default: D["eviction-hard"], description: "Thresholds that evict a pod at once (grace 0) when met: memory.available, allocatableMemory.available, nodefs.available, nodefs.inodesFree, imagefs.available, imagefs.inodesFree, pid.available; a quantity or a % of capacity. Given, it replaces the whole default; --eviction-hard= sets none (no stats collected then). Also taken off allocatable" },
    "eviction-soft": { type: "string", valueHint: "signal<value,…", description: "Thresholds that evict once met for their --eviction-soft-grace-period" },
    "eviction-soft-grace-period": { type: "string", valueHint: "signal=duration,…", description: "How long each soft threshold must be met before a pod is evicted" },
    "eviction-minimum-reclaim": { type: "string", valueHint: "signal=value,…", description: "Once met, a threshold stays met until the signal is this much above it" },
    "eviction-pressure-transition-period": { type: "string", valueHint: "duration", default: D["eviction-pressure-transition-period"], description: "How long a pressure condition stays true after its threshold was last met" },
    "eviction-max-pod-grace-period": { type: "string", valueHint: "seconds", default: D["eviction-max-pod-grace-period"], description: "Soft evictions stop a pod within min(its grace period, this); negative: its own" },
    // Garbage collection and container log rotation (src/eviction; the kubelet's names and defaults).
    "image-gc-high-threshold": { type: "string", valueHint: "percent", default: D["image-gc-high-threshold"], description: "Image filesystem usage at or above which unused images are removed, least recently used first (100: never)" },
    "image-gc-low-threshold": { type: "string", valueHint: "percent", default: D["image-gc-low-threshold"], description: "Image GC frees space down to this usage; below the high threshold" },
    "minimum-image-ttl-duration": { type: "string", valueHint: "duration", default: D["minimum-image-ttl-duration"], description: "An unused image is removed only once it was first seen this long ago" },
    "image-gc-period": { type: "string", valueHint: "duration", default: D["image-gc-period"], description: "How often images are checked (nodeagent's own; the kubelet's fixed 5m ImageGCPeriod)" },
    "minimum-container-ttl-duration": { type: "string", valueHint: "duration", default: D["minimum-container-ttl-duration"], description: "A dead container is removed only once it was created this long ago" },
    "maximum-dead-containers-per-container": { type: "string", valueHint: "int", default: D["maximum-dead-containers-per-container"], description: "Dead instances kept per container (the newest; -1: all)" },
    "maximum-dead-containers": { type: "string", valueHint: "int", default: D["maximum-dead-containers"], description: "Dead containers kept on the node in all (-1: no limit)" },
    "container-gc-period": { type: "string", valueHint: "duration", default: D["container-gc-period"], description: "How often dead containers, sandboxes and gone pods' log folders are collected (nodeagent's own; the kubelet's fixed 1m)" },
    "container-log-max-size": { type: "string", valueHint: "quantity", default: D["container-log-max-size"], description: "A running container's log is rotated once it reaches this size" },
    "container-log-max-files": { type: "string", valueHint: "int", default: D["container-log-max-files"], description: "Log files kept per container, the live one included (older rotated ones gzipped); at least 2" },
    "hostname-override": { type: "string", valueHint: "name", description: "Node name and its Hostname address, lower-cased (default: the hostname)" },
    "node-ip": { type: "string", valueHint: "ip[,ip]", description: "The Node's InternalIP, the address the API server dials and the pods' hostIP: one IP of this host, or an IPv4,IPv6 pair (0.0.0.0 or :: alone: pick one of that family). Default: the node name's address, else the default route's interface's, as the kubelet" },
    "node-labels": { type: "string", valueHint: "key=value,…", description: "Labels of the node; in kubernetes.io and k8s.io only those a kubelet may set itself" },
    "register-with-taints": { type: "string", valueHint: "key=value:Effect,…", description: "Taints of the node" },
    "max-pods": { type: "string", valueHint: "int", default: D["max-pods"], description: "Pods this node can run (its pods capacity)" },
    "allowed-unsafe-sysctls": { type: "string", valueHint: "name|prefix*,…", description: "Sysctls pods may set beyond the safe set (kernel.shm_rmid_forced, net.ipv4.ip_local_port_range, …), each namespaced (kernel.shm*, kernel.msg*, kernel.sem, fs.mqueue.*, net.*); others are refused SysctlForbidden" },
    "kube-reserved": { type: "string", valueHint: "cpu=…,memory=…", description: "Resources kept for Kubernetes daemons (cpu, memory, ephemeral-storage): taken off allocatable" },
    "system-reserved": { type: "string", valueHint: "cpu=…,memory=…", description: "Resources kept for the OS, same form: taken off allocatable" },
    address: { type: "string", valueHint: "ip", default: D.address, description: "HTTP API address" },
    port: { type: "string", valueHint: "int", default: D.port, description: "HTTP API port (0: any free port, printed at start)" },
    "tls-cert-file": { type: "string", valueHint: "file", description: "Serve HTTPS with this certificate chain (with --tls-private-key-file); default: a self-signed pair made once in <root-dir>/pki" },
    "tls-private-key-file": { type: "string", valueHint: "file", description: "…and this key" },
    "cluster-dns": { type: "string", valueHint: "ip,…", description: "Cluster DNS servers: ClusterFirst pods resolve through them (without, the host's resolv.conf, as the kubelet)" },
    "cluster-domain": { type: "string", valueHint: "domain", default: D["cluster-domain"], description: "The cluster's DNS domain, searched by ClusterFirst pods" },
    "resolv-conf": { type: "string", valueHint: "file", default: D["resolv-conf"], description: "The host's resolver configuration, the base of the pods' DNS" },
    "pod-logs-dir": { type: "string", valueHint: "dir", default: D["pod-logs-dir"], description: "Container logs: <dir>/<ns>_<name>_<uid>/<container>/<n>.log. Absolute, not / or a system folder (/etc, /var/log, …): the GC removes the folders of gone pods there" },
    "cgroup-root": { type: "string", valueHint: "path", default: D["cgroup-root"], description: "cgroupfs path every pod's cgroup is below (kubepods/… or, without --cgroups-per-qos, pod<uid>); made when missing" },
    "cgroup-driver": { type: "enum", options: ["cgroupfs", "systemd"], default: D["cgroup-driver"], description: "How pod cgroups are named, as the runtime's (containerd SystemdCgroup): cgroupfs paths or systemd slices (needs systemd as init)" },
    "cgroups-per-qos": { type: "boolean", default: D["cgroups-per-qos"] === "true", description: "The kubelet's kubepods, kubepods/burstable, kubepods/besteffort cgroups with a cgroup per pod and its limits; false: <cgroup-root>/pod<uid> only" },
    "enforce-node-allocatable": { type: "string", valueHint: "pods,system-reserved,kube-reserved", default: D["enforce-node-allocatable"], description: "pods: kubepods is capped at capacity − kube-reserved − system-reserved; system-reserved, kube-reserved: those cgroups at what is reserved; empty or none: nothing" },
    "system-reserved-cgroup": { type: "string", valueHint: "path", description: "The existing cgroup held to --system-reserved with --enforce-node-allocatable=system-reserved" },
    "kube-reserved-cgroup": { type: "string", valueHint: "path", description: "The existing cgroup held to --kube-reserved with --enforce-node-allocatable=kube-reserved" },
    "pleg-mode": { type: "enum", options: ["auto", "generic", "evented"], default: D["pleg-mode"], description: "See nodeagent pleg watch --help" },
    "log-format": { type: "enum", options: ["text", "json"], default: D["log-format"], description: "Log format on stderr" },
    "local-objects": { type: "string", valueHint: "dir", description: "ConfigMap and Secret manifests for the configMap/secret volumes and env of static and pushed pods (watched); without it or --kubeconfig such pods wait" },
    kubeconfig: { type: "string", valueHint: "file", description: "Join a Kubernetes cluster as a node with these credentials" },
    context: { type: "string", valueHint: "name", description: "The --kubeconfig context to use (default: its current-context)" },
    "bootstrap-kubeconfig": { type: "string", valueHint: "file", description: "Credentials to request a client certificate with when --kubeconfig is missing or its certificate expired; --kubeconfig is then written" },
    "cert-dir": { type: "string", valueHint: "dir", description: "Where issued certificates and the self-signed serving pair live (default: <root-dir>/pki)" },
    "rotate-certificates": { type: "boolean", description: "Renew the client certificate from the cluster before it expires (default false)" },
    "rotate-server-certificates": { type: "boolean", description: "Request the serving certificate from the cluster (signer kubernetes.io/kubelet-serving) and renew it (default false)" },
    "node-status-update-frequency": { type: "string", valueHint: "duration", default: D["node-status-update-frequency"], description: "With --kubeconfig: how often the node status is computed and written when it changed" },
    // Graceful node shutdown (src/nodeshutdown): the kubelet's config fields shutdownGracePeriod and
    // shutdownGracePeriodCriticalPods as flags of nodeagent's own (the kubelet has no such flags).
    "shutdown-grace-period": { type: "string", valueHint: "duration", default: D["shutdown-grace-period"], description: "Graceful node shutdown: how long the node's shutdown is delayed (logind delay lock) to stop the pods, the critical pods' part last; 0: off. The kubelet's shutdownGracePeriod field" },
    "shutdown-grace-period-critical-pods": { type: "string", valueHint: "duration", default: D["shutdown-grace-period-critical-pods"], description: "The part of --shutdown-grace-period kept for critical pods (priority >= 2000000000), stopped after the others. The kubelet's shutdownGracePeriodCriticalPods" },
    "shutdown-pods": { type: "boolean", default: false, description: "On SIGTERM, stop every pod as a node shutdown does (by priority, within --shutdown-grace-period; Failed, reason Terminated) before exiting, for hosts without systemd-logind. Default: SIGTERM leaves the pods running" },
  },
  async run(ctx) {
    const { args } = ctx;
    // Bounded: a regular file of at most 1 MiB (not /dev/zero, a FIFO, a directory).
    const text = args.config === undefined ? undefined : readKubeletConfigText(args.config);
    const config = resolveAgentConfig(args, invocation(ctx).given, text);
    // The node's machinery (gRPC and the CRI descriptor, the server, metrics) is loaded only to run
    // it: --help and a configuration error do not pay for it.
    const { runNode } = await import("../src/agent/node");
    await runNode(config);
  },
});
