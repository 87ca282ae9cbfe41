// Container logs through dist/nodeagent on containerd 1.6 and 1.7: GET /containerLogs reads what a
// pod printed (tailLines, timestamps), `follow` streams lines as they are written and ends when the
// container exits (and follows the file when it is rotated), `previous` reads the instance before a restart, and `nodeagent logs -f` prints them.
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Pod } from "kubernetes-types/core/v1";
import { runtimeContainerId } from "../../src/logs";
import { manifest, NODE_NAME, running, useAgent, type TestAgent } from "./agent-harness";
import { BinaryProcess, eventually } from "./proc";

const RFC3339_NANO_FIXED = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{9}(Z|[+-]\d{2}:\d{2}) /;

for (const version of ["1.6", "1.7"] as const) {
  describe(`container logs, containerd ${version}`, () => {
    let tokenFile = "";
    const env = useAgent(version, (node) => {
      tokenFile = join(node.rootDir, "push-token");
      writeFileSync(tokenFile, "e2e-logs-token\n", { mode: 0o600 });
      return ["--push-token-file", tokenFile];
    });
    let agent: TestAgent;
    beforeAll(() => {
      agent = env.agent();
    });

    const logsUrl = (pod: string, query = "") => `${agent.url}/containerLogs/default/${pod}-${NODE_NAME}/main${query}`;
    const logs = async (pod: string, query = "") => {
      const r = await fetch(logsUrl(pod, query), { headers: agent.auth() });
      return { status: r.status, text: await r.text() };
    };
    /** The pod's emptyDir "work" on the host: the test drives the pod's script through files there. */
    const workDir = (p: Pod) => join(agent.dir, "root", "pods", p.metadata!.uid!, "volumes", "kubernetes.io~empty-dir", "work");

    test("GET /containerLogs: what the pod printed, stdout and stderr, with tailLines and timestamps; no token → 401", async () => {
      // stdout and stderr are two pipes the runtime copies on their own: the file's order is the order
      // the runtime wrote them in, which only a pause between the two makes the order they were printed in.
      agent.writeManifest("printer.yaml", manifest("printer", "echo one; sleep 0.2; echo two >&2; sleep 0.2; echo three; sleep 3600"));
      await agent.waitPod("printer", "running", running);
      const all = await eventually("all three lines in the log", async () => {
        const r = await logs("printer");
        return r.status === 200 && r.text.split("\n").length === 4 && r.text;
      });
      expect(all).toBe("one\ntwo\nthree\n");
      expect((await logs("printer", "?tailLines=2")).text).toBe("two\nthree\n");
      const stamped = (await logs("printer", "?tailLines=1&timestamps=true")).text;
      expect(stamped).toMatch(RFC3339_NANO_FIXED);
      expect(stamped.replace(RFC3339_NANO_FIXED, "")).toBe("three\n");
      expect((await logs("printer", "?limitBytes=6")).text).toBe("one\ntw");
      expect((await fetch(logsUrl("printer"))).status).toBe(401);
      const missing = await logs("printer", "?previous=true");
      expect(missing).toEqual({ status: 400, text: `previous terminated container "main" in pod "printer-${NODE_NAME}" not found` });
      const r = await fetch(`${agent.url}/containerLogs/default/nope/main`, { headers: agent.auth() });
      expect([r.status, await r.text()]).toEqual([404, 'pod "nope" does not exist']);
      agent.removeManifest("printer.yaml");
    }, 60_000);

    test("a last line printed without a newline is in the log, as the kubelet shows it (the runtime logs it as a P line)", async () => {
      agent.writeManifest("nonl.yaml", manifest("nonl", "printf 'line1\\nno-newline-at-end'", { restartPolicy: "Never" }));
      await agent.waitPod("nonl", "succeeded", (p) => p.status?.phase === "Succeeded");
      expect(await logs("nonl")).toEqual({ status: 200, text: "line1\nno-newline-at-end" });
      expect((await logs("nonl", "?follow=true")).text).toBe("line1\nno-newline-at-end");
      agent.removeManifest("nonl.yaml");
    }, 60_000);

    test("follow: lines arrive as the container writes them, across a log rotation, and the stream ends when it exits", async () => {
      agent.writeManifest(
        "follower.yaml",
        manifest("follower", "echo start; while [ ! -f /work/next ]; do sleep 0.1; done; echo next; while [ ! -f /work/stop ]; do sleep 0.1; done; echo bye", {
          restartPolicy: "Never",
        }),
      );
      const p = await agent.waitPod("follower", "running", running);
      const res = await fetch(logsUrl("follower", "?follow=true"), { headers: agent.auth() });
      expect(res.status).toBe(200);
      const reader = res.body!.getReader();
      let got = "";
      const readUntil = async (want: string) => {
        while (!got.includes(want)) {
          const r = await reader.read();
          if (r.done) throw new Error(`the stream ended before ${JSON.stringify(want)}: ${JSON.stringify(got)}`);
          got += new TextDecoder().decode(r.value);
        }
      };
      await readUntil("start\n");
      expect(got).toBe("start\n");
      writeFileSync(join(workDir(p), "next"), "");
      await readUntil("next\n");
      // Rotate as the kubelet's log manager does: rename the live file aside, ask the runtime to reopen.
      const log = join(agent.dir, "logs", `default_follower-${NODE_NAME}_${p.metadata!.uid}`, "main", "0.log");
      renameSync(log, `${log}.20260101-000000`);
      await env.node().client.reopenContainerLog(runtimeContainerId(p.status!.containerStatuses![0]!.containerID!));
      await eventually("the runtime to re-create the log file", async () => existsSync(log));
      writeFileSync(join(workDir(p), "stop"), "");
      await readUntil("bye\n");
      // The container exited: the agent ends the response.
      const end = await reader.read();
      expect(end.done).toBe(true);
      expect(got).toBe("start\nnext\nbye\n");
      agent.removeManifest("follower.yaml");
    }, 60_000);

    test("previous: after a restart, the instance before it; the current one has its own log", async () => {
      agent.writeManifest(
        "restarter.yaml",
        manifest("restarter", "n=$(cat /work/n 2>/dev/null || echo 0); n=$((n+1)); echo $n > /work/n; echo run $n; [ $n -gt 1 ] || exit 3; sleep 3600"),
      );
      await agent.waitPod("restarter", "restarted once and running", (p) => running(p) && p.status!.containerStatuses![0]!.restartCount === 1, 60_000);
      const current = await eventually("the second run's log", async () => {
        const r = await logs("restarter");
        return r.status === 200 && r.text.includes("run") && r.text;
      });
      expect(current).toBe("run 2\n");
      expect(await logs("restarter", "?previous=true")).toEqual({ status: 200, text: "run 1\n" });
      agent.removeManifest("restarter.yaml");
    }, 90_000);

    test("nodeagent logs -f prints the pod's lines as they come (its one container by default) and stops on Ctrl-C", async () => {
      agent.writeManifest("ticker.yaml", manifest("ticker", "echo hello; while [ ! -f /work/more ]; do sleep 0.1; done; echo more; sleep 3600"));
      const p = await agent.waitPod("ticker", "running", running);
      const cli = new BinaryProcess(["logs", "-f", "--server", agent.url, "--token-file", tokenFile, `default/ticker-${NODE_NAME}`]);
      await cli.waitFor("hello from the log", () => cli.lines.includes("hello"));
      expect(existsSync(join(workDir(p), "more"))).toBe(false);
      writeFileSync(join(workDir(p), "more"), "");
      await cli.waitFor("the line written after it started", () => cli.lines.includes("more"));
      expect(cli.lines).toEqual(["hello", "more"]);
      expect(await cli.interrupt()).toBe(0);

      // Without -f it prints and exits 0; an unknown pod is exit 1 with the agent's words.
      const once = new BinaryProcess(["logs", "--server", agent.url, "--token-file", tokenFile, "--tail", "1", `ticker-${NODE_NAME}`, "-n", "default"]);
      expect(await once.proc.exited).toBe(0);
      await once.waitFor("its output", () => once.lines.length > 0 || undefined);
      expect(once.lines.filter(Boolean)).toEqual(["more"]);
      const none = new BinaryProcess(["logs", "--server", agent.url, "--token-file", tokenFile, "-c", "main", "default/nope"]);
      expect(await none.proc.exited).toBe(1);
      await none.waitFor("the error", () => none.stderr.includes("error:") || undefined);
      expect(none.stderr).toContain('error: pod "nope" does not exist');
      agent.removeManifest("ticker.yaml");
    }, 60_000);
  });
}
