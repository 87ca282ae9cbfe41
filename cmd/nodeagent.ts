// The nodeagent binary's root command: every subcommand is listed here once it works.
import "./tty";
import { defineCommand } from "citty";
import pkg from "../package.json" with { type: "json" };
import { agentCommand } from "./agent";
import { main } from "./main";
import { plegCommand } from "./pleg";
import { probeCommand } from "./probe";
import { scheduleCommand } from "./schedule";
import { staticpodCommand } from "./staticpod";

export const root = defineCommand({
  meta: {
    name: "nodeagent",
    version: pkg.version,
    description: `The kubelet's core on a real container runtime, in one binary.

Examples:
  nodeagent agent --pod-manifest-path /etc/kubernetes/manifests
                                       run static pods on this host
  nodeagent pleg watch                 live pod lifecycle events from the runtime
  nodeagent pleg watch -o json | jq .  the same, one JSON object a line
  nodeagent schedule --cluster cluster.yaml pod.yaml --explain
                                       where would these pods go, and why
  nodeagent schedule --kubeconfig scheduler.conf --scheduler-name nodeagent-scheduler
                                       schedule a Kubernetes cluster's pending pods
  nodeagent probe run --pod default/web --probe readiness
                                       a container's readiness probe, as the agent runs it
  nodeagent staticpod lint /etc/kubernetes/manifests
                                       what the kubelet would reject in static pod manifests
  nodeagent --version`,
  },
  subCommands: { agent: agentCommand, pleg: plegCommand, probe: probeCommand, schedule: scheduleCommand, staticpod: staticpodCommand },
});

if (import.meta.main) await main(root);
