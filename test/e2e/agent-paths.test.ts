// Paths the agent deletes in are its own (issue 24, findings 1, 5 and 9), through dist/nodeagent with
// containerd 1.6 and 1.7 as the runtime the agent would start (NODEAGENT_CONTAINERD, no
// --runtime-endpoint): every refusal below is exit 2 before anything starts — no containerd, no port,
// no folder made, no file written.
//   - --pod-logs-dir /etc, run in a private mount namespace whose /etc is a copy of the host's: the
//     copy is left as it was (today's main removed every folder of it within seconds);
//   - --pod-logs-dir '' (it meant /var/log/pods), --root-dir / (it wrote /pki/kubelet.key),
//     --cgroup-root /../../etc (exit 1 at run time);
//   - --config /dev/zero is refused within a second, a FIFO without a writer does not hang the agent;
//   - in a valid --pod-logs-dir, the container GC removes the log folder of a gone pod but leaves the
//     folders that are not named <namespace>_<name>_<uid> (ssh, a_b, ns_name_NotAUid), each
//     reported once, however many passes run.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { useAgent } from "./agent-harness";
import { BINARY, CGROUP_SUFFIX, CONTAINERD, removeCgroups, unmountUnder } from "./node";
import { BinaryProcess, eventually } from "./proc";

/**
 * PIDs of the processes below `root` (its children, theirs, …): what an agent started (a containerd).
 * Only these are ever killed: never a process found by its command line, which for --root-dir /
 * would be every process of the host.
 */
function descendantsOf(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      // "pid (comm) state ppid …": comm may hold spaces and parentheses, so read after the last ")".
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), pid]);
    } catch {
      /* gone meanwhile */
    }
  }
  const out: number[] = [];
  const walk = (pid: number) => {
    for (const c of children.get(pid) ?? []) {
      out.push(c);
      walk(c);
    }
  };
  walk(root);
  return out;
}

/** The containerds among them (not a passing `mount` of the namespace wrapper). */
function containerdsBelow(root: number): number[] {
  return descendantsOf(root).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("containerd");
    } catch {
      return false;
    }
  });
}

/** Every path below `dir` with its type and size: what "untouched" is compared on. */
function listing(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const name of readdirSync(join(dir, rel)).sort()) {
      const path = join(rel, name);
      const st = lstatSync(join(dir, path));
      out.push(`${path} ${st.isDirectory() ? "d" : st.isSymbolicLink() ? "l" : `f${st.size}`}`);
      if (st.isDirectory()) walk(path);
    }
  };
  walk("");
  return out;
}

for (const version of ["1.6", "1.7"] as const) {
  describe(`path and --config refusals, containerd ${version} as the runtime the agent would start`, () => {
    let dir: string;
    let manifests: string;
    let n = 0;
    beforeAll(() => {
      dir = mkdtempSync(`/tmp/na-e2e-paths-${version}-`);
      manifests = join(dir, "manifests");
      mkdirSync(manifests);
    });
    afterAll(() => {
      unmountUnder(dir);
      rmSync(dir, { recursive: true, force: true });
    });

    /**
     * Runs `nodeagent agent` (under `wrap`, a command that execs the rest) with a root dir and cgroup
     * root of its own and no --runtime-endpoint; returns how it ended. An agent still running after
     * `waitMs` (today's main, for most of these) is stopped, and any containerd it started killed by PID.
     */
    async function runAgent(args: string[], opts: { wrap?: string[]; rootDir?: string; waitMs?: number } = {}) {
      const rootDir = opts.rootDir ?? join(dir, `root-${++n}`);
      const cgroupRoot = `/nodeagent-e2e-paths${CGROUP_SUFFIX}`;
      const agentArgs = [
        "agent",
        "--root-dir",
        rootDir,
        "--port",
        "0",
        "--log-format",
        "json",
        "--cgroup-root",
        cgroupRoot,
        "--pod-manifest-path",
        manifests,
        "--container-gc-period",
        "1s",
        ...args,
      ];
      const [command, ...rest] = opts.wrap ? [...opts.wrap, BINARY, ...agentArgs] : [BINARY, ...agentArgs];
      const startedAt = performance.now();
      const proc = new BinaryProcess(rest, { NODEAGENT_CONTAINERD: CONTAINERD[version] }, command);
      let exitedAfterMs: number | undefined;
      void proc.proc.exited.then(() => {
        exitedAfterMs = performance.now() - startedAt;
      });
      // What the agent started, seen while it still runs (an agent that exits leaves its children to init).
      let started: number[] = [];
      try {
        await proc
          .waitFor(
            "the agent to exit",
            () => {
              if (proc.proc.exitCode === null) started = [...new Set([...started, ...containerdsBelow(proc.proc.pid)])];
              return proc.proc.exitCode !== null;
            },
            opts.waitMs ?? 15_000,
          )
          .catch(() => undefined);
        await eventually("the exit to be timed", async () => exitedAfterMs !== undefined || proc.proc.exitCode === null, 2000, 10);
        const cpuMs = proc.proc.exitCode === null ? undefined : Number(proc.proc.resourceUsage()?.cpuTime.total ?? 0) / 1000;
        return { code: proc.proc.exitCode, stderr: proc.stderr, exitedAfterMs, cpuMs, containerds: started, rootDir };
      } finally {
        if (proc.proc.exitCode === null) {
          started = [...new Set([...started, ...containerdsBelow(proc.proc.pid)])];
          await proc.interrupt();
        }
        for (const pid of started) {
          try {
            process.kill(pid, "SIGKILL");
          } catch {
            /* already gone */
          }
        }
        removeCgroups(cgroupRoot);
      }
    }

    test("--pod-logs-dir /etc (in a private mount namespace over a copy of /etc): exit 2 naming the flag, the copy untouched", async () => {
      const copy = join(dir, "etc-copy");
      cpSync("/etc", copy, { recursive: true, verbatimSymlinks: true });
      const before = listing(copy);
      expect(before.length).toBeGreaterThan(20);
      const r = await runAgent(["--pod-logs-dir", "/etc"], {
        wrap: ["unshare", "-m", "--propagation", "private", "sh", "-c", 'mount --bind "$0" /etc && exec "$@"', copy],
      });
      expect(r.stderr).toContain("--pod-logs-dir");
      expect(r.stderr).toContain("/etc");
      expect(r.code).toBe(2);
      expect(r.containerds).toEqual([]);
      expect(existsSync(r.rootDir)).toBe(false);
      expect(listing(copy)).toEqual(before);
    }, 60_000);

    test("--pod-logs-dir '': exit 2 naming the flag, nothing made (it meant /var/log/pods)", async () => {
      const hadPodLogs = existsSync("/var/log/pods");
      const podLogs = hadPodLogs ? listing("/var/log/pods") : [];
      const r = await runAgent(["--pod-logs-dir", ""]);
      expect(r.stderr).toContain(`--pod-logs-dir ""`);
      expect(r.stderr).toContain("must not be empty");
      expect(r.code).toBe(2);
      expect(r.containerds).toEqual([]);
      expect(existsSync(r.rootDir)).toBe(false);
      expect(existsSync("/var/log/pods")).toBe(hadPodLogs);
      if (hadPodLogs) expect(listing("/var/log/pods")).toEqual(podLogs);
    }, 30_000);

    // Not run against a build before the fix: there /var/log/pods/.. is /var/log, which its GC would empty.
    test("a relative --pod-logs-dir and /var/log/pods/.. (the host's /var/log once normalised): exit 2, nothing made", async () => {
      for (const [value, says] of [
        ["logs", "absolute"],
        ["/var/log/pods/..", "/var/log"],
      ] as const) {
        const r = await runAgent(["--pod-logs-dir", value]);
        expect(r.stderr).toContain(`--pod-logs-dir ${JSON.stringify(value)}`);
        expect(r.stderr).toContain(says);
        expect(r.code).toBe(2);
        expect(r.containerds).toEqual([]);
        expect(existsSync(r.rootDir)).toBe(false);
      }
    }, 60_000);

    test("--cgroup-root /../../etc: exit 2 naming the flag, nothing started", async () => {
      const r = await runAgent(["--cgroup-root", "/../../etc"]);
      expect(r.stderr).toContain(`--cgroup-root "/../../etc"`);
      expect(r.code).toBe(2);
      expect(r.containerds).toEqual([]);
      expect(existsSync(r.rootDir)).toBe(false);
    }, 30_000);

    // Not run against a build before the fix: there it writes <root-dir>/pki and a containerd config into the host's /.
    test("--root-dir /: exit 2 naming the flag, nothing written", async () => {
      const before = readdirSync("/").sort();
      expect(existsSync("/pki")).toBe(false);
      const r = await runAgent([], { rootDir: "/" });
      expect(r.stderr).toContain(`--root-dir "/"`);
      expect(r.code).toBe(2);
      expect(r.containerds).toEqual([]);
      expect(existsSync("/pki")).toBe(false);
      expect(readdirSync("/").sort()).toEqual(before);
    }, 30_000);

    test("--config /dev/zero: exit 2 within a second; a FIFO without a writer: exit 2, no hang", async () => {
      // The binary's own start-up on this loaded machine, for scale: a --config that does not exist.
      const missing = await runAgent(["--config", join(dir, "no-such-config.yaml")], { waitMs: 5000 });
      expect(missing.code).toBe(2);
      const zero = await runAgent(["--config", "/dev/zero"], { waitMs: 5000 });
      expect(zero.stderr).toContain("--config /dev/zero");
      expect(zero.stderr).toContain("not a regular file");
      expect(zero.code).toBe(2);
      console.log(
        `--config /dev/zero: exit ${zero.code} after ${zero.exitedAfterMs?.toFixed(0)} ms, ${zero.cpuMs?.toFixed(0)} ms of CPU (a missing --config: ${missing.exitedAfterMs?.toFixed(0)} ms, ${missing.cpuMs?.toFixed(0)} ms of CPU)`,
      );
      // Within a second of CPU, and of wall time unless the machine's load makes a start-up that
      // reads nothing slower than half a second (then within twice that).
      expect(zero.cpuMs!).toBeLessThan(1000);
      expect(zero.exitedAfterMs!).toBeLessThan(Math.max(1000, 2 * missing.exitedAfterMs!));

      const fifo = join(dir, "config.fifo");
      expect(Bun.spawnSync(["mkfifo", fifo]).exitCode).toBe(0);
      const r = await runAgent(["--config", fifo], { waitMs: 5000 });
      expect(r.stderr).toContain(`--config ${fifo}`);
      expect(r.stderr).toContain("a FIFO");
      expect(r.code).toBe(2);
      expect(r.containerds).toEqual([]);
    }, 30_000);
  });

  describe(`container GC leaves log folders not named like a pod's, containerd ${version}`, () => {
    const env = useAgent(version, () => ["--container-gc-period", "1s"]);
    const STRANGERS = ["ssh", "a_b", "ns_name_NotAUid", "kube-system_name_uid_extra", "Default_name_0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9"];

    test("a gone pod's folder goes; ssh, a_b, ns_name_NotAUid… stay, each reported once", async () => {
      const agent = env.agent();
      const logs = join(agent.dir, "logs");
      mkdirSync(logs, { recursive: true });
      for (const name of STRANGERS) {
        mkdirSync(join(logs, name, "sub"), { recursive: true });
        writeFileSync(join(logs, name, "sub", "keep.txt"), name);
      }
      const gone = (i: number) => join(logs, `default_gone-${i}_7c9e6679-7425-40de-944b-e07fc1f90ae${i}`);
      mkdirSync(join(gone(1), "main"), { recursive: true });
      writeFileSync(join(gone(1), "main", "0.log"), "old\n");
      await eventually("the gone pod's log folder to be removed", async () => !existsSync(gone(1)), 30_000, 200);
      // Passes go on (one a second): a second gone folder, removed later, proves several more passed.
      mkdirSync(gone(2));
      await eventually("the second gone pod's log folder to be removed", async () => !existsSync(gone(2)), 30_000, 200);
      mkdirSync(gone(3));
      await eventually("the third gone pod's log folder to be removed", async () => !existsSync(gone(3)), 30_000, 200);
      for (const name of STRANGERS) {
        expect(readFileSync(join(logs, name, "sub", "keep.txt"), "utf8")).toBe(name);
        const reports = agent.proc.stderr
          .split("\n")
          .filter((l) => l.includes("not a pod's log folder") && l.includes(`"path":${JSON.stringify(join(logs, name))},`));
        expect(reports).toHaveLength(1);
      }
    }, 120_000);
  });
}
