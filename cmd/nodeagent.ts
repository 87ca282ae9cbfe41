// The nodeagent binary's root command: every subcommand is listed here once it works.
//
// Each subcommand is loaded when it is chosen, not before: `nodeagent --version` and `staticpod lint`
// must not pay for the gRPC stack, the Kubernetes client, prom-client or the scheduler (they were
// ≈150 ms of a 217 ms one-file lint). citty takes a function per subcommand; cmd/main.ts resolves
// only the one the command line names (and --help of a parent every child, for their summaries).
// `make build` compiles with --splitting, so a dynamic import here is a chunk of the binary that is
// neither parsed nor run until it is imported. test/cmd/startup-graph.test.ts holds the line.
import "./tty";
import { defineCommand } from "citty";
import pkg from "../package.json" with { type: "json" };
import { useNormalJitPolicy } from "../src/util";
import { main } from "./main";

/**
 * A subcommand other than the agent: the binary starts with the agent's JIT policy (src/util/
 * jit-policy.ts), and these get JavaScriptCore's normal one back before their modules load.
 */
function withNormalJit<T>(load: () => Promise<T>): () => Promise<T> {
  return () => {
    useNormalJitPolicy();
    return load();
  };
}

export const root = defineCommand({
  meta: {
    name: "nodeagent",
    version: pkg.version,
    description: `The kubelet's core on a real container runtime, in one binary.

Examples:
  nodeagent agent --pod-manifest-path /etc/kubernetes/manifests
                                       run static pods on this host
  nodeagent hollow --kubeconfig admin.conf --nodes 1000
                                       a thousand nodes of a cluster in one process, to test its control plane
  nodeagent pleg watch                 live pod lifecycle events from the runtime
  nodeagent pleg watch -o json | jq .  the same, one JSON object a line
  nodeagent schedule --cluster cluster.yaml pod.yaml --explain
                                       where would these pods go, and why
  nodeagent schedule --kubeconfig scheduler.conf --scheduler-name nodeagent-scheduler
                                       schedule a Kubernetes cluster's pending pods
  nodeagent probe run --pod default/web --probe readiness
                                       a container's readiness probe, as the agent runs it
  nodeagent logs -f default/web        follow a pod's container log, from the agent's API
  nodeagent exec -it default/web -- sh  a shell in a pod's container, through the agent's API
  nodeagent events -n default --for web
                                       what the agent did with a pod, and why (its events)
  nodeagent staticpod lint /etc/kubernetes/manifests
                                       what the kubelet would reject in static pod manifests
  nodeagent --version`,
  },
  subCommands: {
    agent: () => import("./agent").then((m) => m.agentCommand),
    events: withNormalJit(() => import("./events").then((m) => m.eventsCommand)),
    exec: withNormalJit(() => import("./exec").then((m) => m.execCommand)),
    hollow: () => import("./hollow").then((m) => m.hollowCommand),
    logs: withNormalJit(() => import("./logs").then((m) => m.logsCommand)),
    pleg: withNormalJit(() => import("./pleg").then((m) => m.plegCommand)),
    probe: withNormalJit(() => import("./probe").then((m) => m.probeCommand)),
    schedule: withNormalJit(() => import("./schedule").then((m) => m.scheduleCommand)),
    staticpod: withNormalJit(() => import("./staticpod").then((m) => m.staticpodCommand)),
  },
});

if (import.meta.main) await main(root);
