// `nodeagent exec`: a command in a pod's container, by pod name, through the agent's /exec (the
// endpoint `kubectl exec` reaches through the API server), over WebSocket v4.channel.k8s.io.
import { defineCommand } from "citty";
import { AgentClientError, loadRemoteCommand } from "../src/client";
import { errorMessage } from "../src/util";
import { agentClientArgs, agentClientFrom, podArg, podContainer } from "./agent-client";
import { EXIT_FAILURE, UsageError } from "./exit";

export const execCommand = defineCommand({
  meta: {
    name: "exec",
    description: `Run a command in a container of a pod the agent runs, by pod name.

Asks the agent's /exec/<namespace>/<pod>/<container> (the kubelet's endpoint), which has the runtime
start the command and proxies its streams. -i sends this terminal's input to the command's stdin,
-t gives it a terminal (stderr then comes on stdout, as kubectl's). The exit status is the
command's own. The container may be left out when the pod has one, or when its
kubectl.kubernetes.io/default-container annotation names one.

The stream protocol is v4.channel.k8s.io, which cannot close stdin alone: a command that reads its
input to the end (cat, wc) waits after the input ends; give it a terminal (-t) and Ctrl-D, or a
command that knows when to stop.

Examples:
  nodeagent exec default/web -- ls /etc
  nodeagent exec -it default/web -- sh
  nodeagent exec -n kube-system dns -c coredns -- cat /etc/resolv.conf
  nodeagent exec --server https://node1:10250 --token-file /etc/nodeagent/token default/web -- date

Exit status: the command's, 1 when the agent refused (no such pod or container, bad credentials) or
could not be reached, 2 on a usage error.`,
  },
  args: {
    stdin: { type: "boolean", alias: "i", description: "Send this process's stdin to the command" },
    tty: { type: "boolean", alias: "t", description: "Give the command a terminal" },
    container: { type: "string", alias: "c", description: "The container (optional when the pod has one, or names a default)" },
    namespace: { type: "string", alias: "n", description: "The pod's namespace, for POD without NAMESPACE/ (default default)" },
    ...agentClientArgs,
    pod: { type: "positional", required: false, valueHint: "NAMESPACE/POD", description: "The pod, then -- and the command" },
  },
  async run({ args, rawArgs }) {
    const dashes = rawArgs.indexOf("--");
    const command = dashes >= 0 ? rawArgs.slice(dashes + 1) : [];
    const positional = (dashes >= 0 ? args._.slice(0, args._.length - command.length) : args._) as string[];
    if (positional.length > 1) throw new UsageError(`one pod, then -- and the command: got ${positional.map((a) => JSON.stringify(a)).join(", ")} before --`);
    if (command.length === 0) throw new UsageError("give the command after --, e.g. nodeagent exec default/web -- ls");
    const pod = podArg(positional[0], args.namespace);
    const client = agentClientFrom(args);
    const ns = encodeURIComponent(pod.namespace);
    const name = encodeURIComponent(pod.name);
    const container = args.container ?? (await podContainer(client, pod));
    const query = new URLSearchParams();
    for (const arg of command) query.append("command", arg);
    // The kubelet's names for the streams (what the API server sends it): input, output, error.
    if (args.stdin) query.set("input", "1");
    query.set("output", "1");
    if (!args.tty) query.set("error", "1");
    if (args.tty) query.set("tty", "1");
    const { runRemoteCommand } = await loadRemoteCommand();
    const { url, options } = client.websocket(`/exec/${ns}/${name}/${encodeURIComponent(container)}?${query}`);
    const rawMode = !!args.tty && !!args.stdin && process.stdin.isTTY;
    if (rawMode) process.stdin.setRawMode(true);
    try {
      const result = await runRemoteCommand(url, options, {
        stdin: args.stdin ? stdinChunks() : undefined,
        stdout: (b) => process.stdout.write(b),
        stderr: (b) => process.stderr.write(b),
        resizes: args.tty && process.stdout.isTTY ? terminalSizes() : undefined,
      });
      if (result.exitCode !== undefined) return result.exitCode;
      process.stderr.write(`nodeagent exec: ${result.status?.message ?? "the session ended without the command's exit status"}\n`);
      return EXIT_FAILURE;
    } catch (e) {
      throw new AgentClientError(`exec on ${client.server}: ${errorMessage(e)}`);
    } finally {
      if (rawMode) process.stdin.setRawMode(false);
      process.stdin.pause();
    }
  },
});

async function* stdinChunks(): AsyncIterable<Uint8Array> {
  for await (const chunk of process.stdin) yield chunk as Uint8Array;
}

/** The terminal's size now, then each time it changes (SIGWINCH). */
async function* terminalSizes(): AsyncIterable<{ width: number; height: number }> {
  yield { width: process.stdout.columns, height: process.stdout.rows };
  for (;;) {
    await new Promise<void>((resolve) => process.once("SIGWINCH", () => resolve()));
    yield { width: process.stdout.columns, height: process.stdout.rows };
  }
}
