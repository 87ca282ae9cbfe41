// `nodeagent agent`: the full stack on this host. Thin: the flags, the --config file's text, then
// src/agent: resolveAgentConfig checks everything before anything starts, runNode runs the node.
import { defineCommand } from "citty";
import { AGENT_SETTINGS, loadNode, readKubeletConfigText, resolveAgentConfig } from "../src/agent";
import { flagTable } from "../src/util";
import { invocation } from "./main";
import { runtimeArgs } from "./runtime-args";

/** Every flag but the runtime's (runtimeArgs, shared with pleg and probe, types them for citty). */
const agentArgs = flagTable(AGENT_SETTINGS.filter((r) => !(r.flag! in runtimeArgs)));

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
  // Derived from the setting rows (src/agent/agent-config.ts AGENT_SETTINGS, each beside its subsystem).
  args: { ...runtimeArgs, ...agentArgs },
  async run(ctx) {
    const { args } = ctx;
    // Bounded: a regular file of at most 1 MiB (not /dev/zero, a FIFO, a directory).
    const text = args.config === undefined ? undefined : readKubeletConfigText(String(args.config));
    const config = resolveAgentConfig(args, invocation(ctx).given, text);
    // The node's machinery (gRPC and the CRI descriptor, the server, metrics) is loaded only to run
    // it: --help and a configuration error do not pay for it.
    const { runNode } = await loadNode();
    await runNode(config);
  },
});
