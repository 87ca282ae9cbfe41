// The command layer through the compiled binary, beside an agent that runs a pod on containerd 1.6:
// a mistyped flag or a stray argument is exit 2 with a suggestion and starts nothing (no containerd,
// no port, the running pod untouched); bad values are usage errors before any runtime starts; a port
// in use exits 1 and stops the containerd the agent had started; and a subcommand's failure status
// reaches the shell (pleg watch --mode evented on 1.6 exits 1). And kubeadm's kubelet config file
// starts an agent.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createServer, connect, type Server } from "node:net";
import { join } from "node:path";
import { AGENT_CGROUP, manifest, NODE_NAME, running, useAgent } from "./agent-harness";
import type { PodList } from "kubernetes-types/core/v1";
import { BINARY, removeCgroups, startNode, unmountUnder, type TestNode } from "./node";
import { TestClientCA } from "../fakes/client-certs";
import { BinaryProcess, eventually } from "./proc";

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the binary to its end (killed after `timeoutMs`: a command that should have refused must not run on). */
async function run(args: string[], timeoutMs = 30_000): Promise<Run> {
  const proc = Bun.spawn([BINARY, ...args], { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const timer = setTimeout(() => proc.kill("SIGKILL"), timeoutMs);
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  clearTimeout(timer);
  return { code, stdout, stderr };
}

/** PIDs of the processes whose command line mentions `text` (a root dir of this test). */
function processesMentioning(text: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").replace(/\0/g, " ").includes(text)) pids.push(Number(entry));
    } catch {
      /* gone */
    }
  }
  return pids;
}

function listen(port = 0): Promise<Server> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(port, "127.0.0.1", () => resolve(s));
  });
}

async function freePort(): Promise<number> {
  const s = await listen();
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const c = connect(port, "127.0.0.1");
    c.once("connect", () => (c.destroy(), resolve(true)));
    c.once("error", () => resolve(false));
  });
}

describe("the command layer, beside an agent running a pod on containerd 1.6", () => {
  const { node, agent } = useAgent("1.6");
  let containerId = "";
  let scratch = "";

  beforeAll(async () => {
    scratch = mkdtempSync(join(node().rootDir, "cmd-"));
    agent().writeManifest("steady.yaml", manifest("steady", "sleep 3600"));
    const p = await agent().waitPod("steady", "running", running, 60_000);
    containerId = p.status!.containerStatuses![0]!.containerID!;
    expect(containerId).toMatch(/^containerd:\/\/[0-9a-f]{64}$/);
  });

  /** The running pod still has the same container, running. */
  async function podUntouched(): Promise<void> {
    const p = await agent().pod("steady");
    expect(p?.status?.containerStatuses?.[0]?.containerID).toBe(containerId);
    const status = await node().client.containerStatus(containerId.replace("containerd://", ""));
    expect(status.state).toBe("CONTAINER_RUNNING");
  }

  test("each subcommand refuses an unknown flag with exit 2 and the flag meant, and starts nothing", async () => {
    const root = join(scratch, "typo-root");
    const port = await freePort();
    const agentArgs = ["--root-dir", root, "--hostname-override", NODE_NAME, "--cgroup-root", AGENT_CGROUP, "--port", String(port)];
    const cases: Array<[string[], string]> = [
      // The mistake of the issue: the flag mistyped, on the same manifests and node as the running agent.
      [
        ["agent", ...agentArgs, "--pod-manifest-paht", agent().manifests],
        "unknown flag --pod-manifest-paht for nodeagent agent; did you mean --pod-manifest-path?",
      ],
      [["agent", ...agentArgs, "--runtime-endpoint", node().endpoint, "--bogus-flag"], "unknown flag --bogus-flag for nodeagent agent\n"],
      [["pleg", "watch", "--root-dir", root, "--relist-perod", "1s"], "unknown flag --relist-perod for nodeagent pleg watch; did you mean --relist-period?"],
      [
        ["probe", "run", "--root-dir", root, "--pod", "default/steady-e2e-node", "--prbe", "readiness"],
        "unknown flag --prbe for nodeagent probe run; did you mean --probe?",
      ],
      [["schedule", "--clustr", "cluster.yaml", "pod.yaml"], "unknown flag --clustr for nodeagent schedule; did you mean --cluster?"],
      [["staticpod", "lint", "--failon", "warning"], "unknown flag --failon for nodeagent staticpod lint; did you mean --fail-on?"],
    ];
    for (const [args, message] of cases) {
      const r = await run(args);
      expect({ args, code: r.code, said: r.stderr.includes(`error: ${message}`) }).toEqual({ args, code: 2, said: true });
      expect(r.stdout).toBe("");
    }
    // Nothing started: no containerd under the root dir given (it was not even created), no API port.
    expect(existsSync(root)).toBe(false);
    expect(processesMentioning(root)).toEqual([]);
    expect(await accepts(port)).toBe(false);
    await podUntouched();
  });

  test("a stray argument is exit 2 and starts nothing", async () => {
    const root = join(scratch, "stray-root");
    const cases: Array<[string[], string]> = [
      // The flag forgotten: the directory given as an argument.
      [
        ["agent", "--runtime-endpoint", node().endpoint, "--root-dir", root, "--hostname-override", NODE_NAME, "--port", "0", agent().manifests],
        `unexpected argument ${JSON.stringify(agent().manifests)}: nodeagent agent takes no arguments`,
      ],
      [["pleg", "watch", "--root-dir", root, "generic"], `unexpected argument "generic": nodeagent pleg watch takes no arguments`],
      [["probe", "run", "--root-dir", root, "--pod", "default/steady-e2e-node", "--probe", "readiness", "now"], "unexpected arguments: now"],
    ];
    for (const [args, message] of cases) {
      const r = await run(args);
      expect({ args, code: r.code, said: r.stderr.includes(`error: ${message}`) }).toEqual({ args, code: 2, said: true });
    }
    expect(existsSync(root)).toBe(false);
    expect(processesMentioning(root)).toEqual([]);
    await podUntouched();
  });

  test("--max-pods abc and --port abc are usage errors, found before a managed containerd would start", async () => {
    const root = join(scratch, "values-root");
    for (const [flag, value, message] of [
      ["--max-pods", "abc", `--max-pods "abc": expected a whole number from 0 to 1000000`],
      ["--port", "abc", `--port "abc": expected a whole number from 0 to 65535`],
      ["--pod-manifest-path", "/no/such/dir", `--pod-manifest-path "/no/such/dir": no such file or directory`],
      [
        "--node-labels",
        "node-role.kubernetes.io/worker=",
        "unknown 'kubernetes.io' or 'k8s.io' labels specified with --node-labels: [node-role.kubernetes.io/worker]",
      ],
    ] as const) {
      // No --runtime-endpoint: a start would run a containerd of its own under the root dir.
      const r = await run(["agent", "--root-dir", root, flag, value]);
      expect({ flag, code: r.code, stderr: r.stderr.split("\n")[0] }).toEqual({ flag, code: 2, stderr: `error: ${message}` });
    }
    expect(existsSync(root)).toBe(false);
    expect(processesMentioning(root)).toEqual([]);
    await podUntouched();
  });

  test("a port in use: exit 1, and the containerd the agent started for itself is stopped again", async () => {
    const root = join(scratch, "busy-root");
    const manifests = join(scratch, "busy-manifests");
    mkdirSync(manifests, { recursive: true });
    const busy = await listen();
    const port = (busy.address() as { port: number }).port;
    try {
      // Under the describe's cgroup root (removed after it): the agent makes kubepods before it starts containerd.
      const r = await run(
        [
          "agent",
          "--root-dir",
          root,
          "--pod-manifest-path",
          manifests,
          "--address",
          "127.0.0.1",
          "--port",
          String(port),
          "--hostname-override",
          "busy-node",
          "--log-format",
          "json",
          "--cgroup-root",
          AGENT_CGROUP,
        ],
        90_000,
      );
      expect(r.code).toBe(1);
      const started = /"msg":"started containerd","pid":(\d+)/.exec(r.stderr);
      expect(started).not.toBeNull();
      const pid = Number(started![1]);
      expect(r.stderr).toContain(`error: cannot listen on 127.0.0.1:${port}`);
      expect(r.stderr).toContain("in use");
      // The managed containerd is gone (by its pid, and by anything still running under its root).
      await eventually(
        "the managed containerd to be gone",
        async () => !existsSync(`/proc/${pid}`) || !readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("containerd"),
        15_000,
      );
      expect(processesMentioning(root)).toEqual([]);
    } finally {
      busy.close();
      for (const pid of processesMentioning(root)) process.kill(pid, "SIGKILL");
      unmountUnder(root);
      rmSync(root, { recursive: true, force: true });
    }
    await podUntouched();
  });

  test("pleg watch --mode evented on containerd 1.6 (no event stream) exits 1, as its help says", async () => {
    const r = await run(["pleg", "watch", "--runtime-endpoint", node().endpoint, "--mode", "evented"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("GetContainerEvents");
  });

  // Issue 12 (a restart with the manifest directory gone loses no container) under issue 13's rule
  // (a missing --pod-manifest-path is an error at start): the agent refuses to start, the pod runs
  // on untouched, and once the directory is back the agent adopts the same container.
  test("restarted on a --pod-manifest-path that is gone: exit 2 naming it, the pod's container runs on, and is adopted once the directory is back", async () => {
    const a = agent();
    expect(await a.stop()).toBe(0);
    const aside = `${a.manifests}.aside`;
    renameSync(a.manifests, aside);
    try {
      const r = await run([
        "agent",
        "--runtime-endpoint",
        node().endpoint,
        "--root-dir",
        join(a.dir, "root"),
        "--pod-manifest-path",
        a.manifests,
        "--pod-logs-dir",
        join(a.dir, "logs"),
        "--cgroup-root",
        AGENT_CGROUP,
        "--hostname-override",
        NODE_NAME,
        "--port",
        "0",
      ]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(a.manifests);
      const status = await node().client.containerStatus(containerId.replace("containerd://", ""));
      expect(status.state).toBe("CONTAINER_RUNNING");
    } finally {
      renameSync(aside, a.manifests);
    }
    await a.start();
    await a.waitPod("steady", "running again under the restarted agent", running);
    await podUntouched();
  });
});

describe("agent --config with kubeadm's /var/lib/kubelet/config.yaml", () => {
  let node: TestNode;
  let agent: BinaryProcess | undefined;
  const cgroup = "/nodeagent-e2e-kubeadm";
  beforeAll(async () => {
    node = await startNode("1.6");
  });
  afterAll(async () => {
    await agent?.interrupt().catch(() => {});
    await node?.stop();
    removeCgroups(cgroup);
  });

  test("starts the agent: the static pod path and cluster DNS of the file are used, what is not implemented is warned about once", async () => {
    const dir = join(node.rootDir, "kubeadm");
    const manifests = join(dir, "manifests");
    mkdirSync(manifests, { recursive: true });
    writeFileSync(join(manifests, "web.yaml"), manifest("web", "sleep 3600"));
    const fixture = readFileSync(join(import.meta.dir, "../fixtures/kubelet/kubeadm-config.yaml"), "utf8");
    const config = join(dir, "config.yaml");
    // The file's x509.clientCAFile (kubeadm's cluster CA) must exist: a CA of the test's stands in.
    const clientCA = new TestClientCA();
    const caFile = clientCA.writeCA(join(dir, "ca.crt"));
    clientCA.cleanup();
    writeFileSync(
      config,
      fixture.replace("staticPodPath: /etc/kubernetes/manifests", `staticPodPath: ${manifests}`).replace("/etc/kubernetes/pki/ca.crt", caFile),
    );
    const tokenFile = join(dir, "token");
    writeFileSync(tokenFile, "kubeadm-e2e-token\n", { mode: 0o600 });
    const args = [
      "agent",
      "--config",
      config,
      "--runtime-endpoint",
      node.endpoint,
      "--root-dir",
      join(dir, "root"),
      "--pod-logs-dir",
      join(dir, "logs"),
      "--cgroup-root",
      cgroup,
      "--hostname-override",
      "kubeadm-node",
      "--port",
      "0",
      "--log-format",
      "json",
      "--push-token-file",
      tokenFile,
    ];
    // kubeadm's file says cgroupDriver: systemd. Where systemd is not the init system (this machine)
    // the agent refuses to start, as a usage error, before it touches any cgroup; on the command line
    // --cgroup-driver cgroupfs overrides the file, as for the kubelet.
    if (!existsSync("/run/systemd/system")) {
      const refused = new BinaryProcess(args);
      expect(await refused.proc.exited).toBe(2);
      expect(refused.stderr).toContain("--cgroup-driver=systemd: systemd is not the init system here (/run/systemd/system does not exist)");
      expect(existsSync(join("/sys/fs/cgroup/memory", cgroup))).toBe(false);
      args.push("--cgroup-driver", "cgroupfs");
    }
    agent = new BinaryProcess(args);
    // HTTPS by default, with the self-signed certificate the agent made under its root.
    const url = (
      await agent.waitFor("the agent's API address", () => /"msg":"nodeagent started",.*?"api":"(https:\/\/[0-9.:]+)"/.exec(agent!.stderr) ?? undefined, 30_000)
    )[1]!;
    const tls = { ca: readFileSync(join(dir, "root", "pki", "kubelet.crt"), "utf8") };
    const pod = await eventually(
      "the static pod of the file's staticPodPath to run",
      async () => {
        const list = (await (await fetch(`${url}/pods`, { headers: { Authorization: "Bearer kubeadm-e2e-token" }, tls })).json()) as PodList;
        return list.items.find((p) => p.metadata?.name === "web-kubeadm-node" && p.status?.phase === "Running");
      },
      60_000,
    );
    expect(pod.metadata?.annotations?.["kubernetes.io/config.source"]).toBe("file");
    const warnings = agent.stderr.split("\n").filter((l) => l.includes("ignoring the fields nodeagent does not implement"));
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0]!).msg).toBe(`${config}: ignoring the fields nodeagent does not implement: healthzBindAddress, healthzPort`);
    // rotateCertificates is implemented now, but a standalone agent has nobody to issue certificates.
    expect(agent.stderr).toMatch(/config\.yaml:\d+:\d+: rotateCertificates: ignored without --kubeconfig \(there is no API server to issue certificates\)/);
    // The file's webhook settings need an API server, which a standalone agent has not: warned about.
    expect(agent.stderr).toContain("authorization.mode: Webhook ignored without --kubeconfig");
    // clusterDNS (a list in the file) reaches the pod: ClusterFirst on a pod network resolves through it.
    const id = pod.status!.containerStatuses![0]!.containerID!.replace("containerd://", "");
    const resolv = await node.client.execSync(id, ["cat", "/etc/resolv.conf"], 10);
    expect(Buffer.from(resolv.stdout).toString()).toContain("nameserver 10.96.0.10");
    expect(await agent.interrupt()).toBe(0);
    agent = undefined;
  });
});
