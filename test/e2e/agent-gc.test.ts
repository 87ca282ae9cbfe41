// Garbage collection and container log rotation through dist/nodeagent on containerd 1.6 and 1.7:
//   - container GC with the kubelet's defaults (MaxPerPodContainer 1) keeps exactly one dead instance
//     of a crash-looping container, the one `previous` logs read; a deleted pod's log folder and pod
//     folder are gone with it;
//   - a container writing fast with --container-log-max-size 10Ki --container-log-max-files 3 keeps at
//     most 3 files (the live one, the newest rotated, older ones gzipped), and a /containerLogs follow
//     stream reads every line across the rotations;
//   - image GC with thresholds this machine is above (--image-gc-high-threshold 1, low 0, no minimum
//     age) removes an image nothing uses, and keeps the one a running container uses and the pause image.
// The agent is restarted between the second and the image GC part, with the image GC flags: an agent
// started with them removes busybox at once if no container uses it yet; after the restart the
// log writer (adopted, still running) holds it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { POD_UID } from "../../src/cri/labels";
import { manifest, NODE_NAME, running, TestAgent } from "./agent-harness";
import { BUSYBOX_IMAGE, PAUSE_IMAGE, startNode, type TestNode } from "./node";
import { importVictimImage, VICTIM_IMAGE } from "./victim-image";
import { eventually } from "./proc";

const LOG_FLAGS = ["--container-log-max-size", "10Ki", "--container-log-max-files", "3", "--container-gc-period", "2s"];
const ROTATED = /^0\.log\.\d{8}-\d{6}(\.gz)?$/;
/** A compression in progress: `<rotated>.tmp`, renamed to `<rotated>.gz`, then the original removed. */
const COMPRESSING = /^0\.log\.\d{8}-\d{6}\.tmp$/;
/** The container's log files, without a compression in progress (its .tmp, and the original it replaces). */
const settledFiles = (names: string[]) => names.filter((n) => !COMPRESSING.test(n) && !names.includes(`${n}.gz`) && !names.includes(`${n}.tmp`));

const tags = async (node: TestNode) => (await node.client.listImages()).flatMap((i) => i.repoTags);

for (const version of ["1.6", "1.7"] as const) {
  describe(`garbage collection and log rotation, containerd ${version}`, () => {
    let node: TestNode;
    let agent: TestAgent;
    beforeAll(async () => {
      node = await startNode(version);
      importVictimImage(node);
      agent = new TestAgent(node, LOG_FLAGS);
      await agent.start();
    });
    afterAll(async () => {
      if (agent) await agent.stop().catch(() => {});
      await node?.stop();
      agent?.cleanup();
    });

    const logsUrl = (pod: string, query = "") => `${agent.url}/containerLogs/default/${pod}-${NODE_NAME}/main${query}`;
    const logDir = (name: string, uid: string) => join(agent.dir, "logs", `default_${name}-${NODE_NAME}_${uid}`);

    test("container GC keeps exactly one dead instance of a crash-looping container (the one `previous` reads); a deleted pod's folders go", async () => {
      agent.writeManifest("crasher.yaml", manifest("crasher", "echo attempt; exit 3"));
      const p = await agent.waitPod("crasher", "two restarts", (x) => (x.status?.containerStatuses?.[0]?.restartCount ?? 0) >= 2, 60_000);
      const uid = p.metadata!.uid!;
      // Three instances ran; every collection (each 2 s here) leaves the newest dead one.
      const dead = await eventually(
        "one dead instance left",
        async () => {
          const cs = await node.client.listContainers({ labelSelector: { [POD_UID]: uid } });
          const exited = cs.filter((c) => c.state === "CONTAINER_EXITED");
          return exited.length === 1 && cs.length === 1 ? exited : undefined;
        },
        30_000,
        250,
      );
      // It is the container's lastState while it waits in back-off.
      await agent.waitPod("crasher", "in back-off after the kept instance", (x) => {
        const c = x.status?.containerStatuses?.[0];
        return c?.state?.waiting?.reason === "CrashLoopBackOff" && c.lastState?.terminated?.containerID === `containerd://${dead[0]!.id}`;
      });
      const previous = await fetch(logsUrl("crasher", "?previous=true"), { headers: agent.auth() });
      expect(previous.status).toBe(200);
      expect(await previous.text()).toBe("attempt\n");
      // Only the kept instance's log file is left (the removed ones' logs went with them).
      const files = readdirSync(join(logDir("crasher", uid), "main"));
      expect(files).toHaveLength(1);

      const podDir = join(agent.dir, "root", "pods", uid);
      expect(existsSync(podDir)).toBe(true);
      expect(existsSync(logDir("crasher", uid))).toBe(true);
      agent.removeManifest("crasher.yaml");
      await eventually("the pod to leave /pods", async () => !(await agent.pod("crasher")), 30_000);
      await eventually("its log and pod folders to go", async () => !existsSync(logDir("crasher", uid)) && !existsSync(podDir), 10_000);
      expect(await node.client.listContainers({ labelSelector: { [POD_UID]: uid } })).toEqual([]);
    }, 120_000);

    test("a container writing fast keeps at most --container-log-max-files files (older ones gzipped), and a follow stream reads every line across rotations", async () => {
      const line = "x".repeat(200);
      agent.writeManifest("writer.yaml", manifest("writer", `i=0; while true; do i=$((i+1)); echo "$i ${line}"; usleep 2000; done`));
      const p = await agent.waitPod("writer", "running", running);
      const dir = join(logDir("writer", p.metadata!.uid!), "main");
      const res = await fetch(logsUrl("writer", "?follow=true"), { headers: agent.auth() });
      expect(res.status).toBe(200);
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      let buffered = "";
      let expected = 1;
      const rotationsSeen = new Set<string>();
      let maxFiles = 0;
      // Two rotations after the first: each rotation happens within 10 s (the log monitor period).
      while (rotationsSeen.size < 3) {
        const r = await reader.read();
        if (r.done) throw new Error("the follow stream ended");
        buffered += decoder.decode(r.value, { stream: true });
        const lines = buffered.split("\n");
        buffered = lines.pop()!;
        for (const l of lines) {
          // Every line, in order, none lost or repeated across the renames.
          expect(l).toBe(`${expected} ${line}`);
          expected++;
        }
        const all = readdirSync(dir);
        expect(all.filter((n) => n !== "0.log").every((n) => ROTATED.test(n) || COMPRESSING.test(n))).toBe(true);
        const names = settledFiles(all);
        maxFiles = Math.max(maxFiles, names.length);
        for (const n of names) if (ROTATED.test(n)) rotationsSeen.add(n.replace(/\.gz$/, ""));
      }
      await reader.cancel();
      expect(maxFiles).toBeLessThanOrEqual(3);
      // Between two steps of a rotation (the live file renamed, not yet reopened; a compression in progress).
      const names = settledFiles(
        await eventually(
          "no rotation in progress",
          async () => {
            const all = readdirSync(dir).sort();
            return all.some((n) => COMPRESSING.test(n)) || !all.includes("0.log") ? undefined : all;
          },
          10_000,
          50,
        ),
      );
      expect(names.length).toBeLessThanOrEqual(3);
      expect(names).toContain("0.log");
      // The newest rotated file stays plain; the older ones are gzipped.
      const rotated = names.filter((n) => n !== "0.log");
      expect(rotated.some((n) => n.endsWith(".gz"))).toBe(true);
      expect(rotated.filter((n) => !n.endsWith(".gz"))).toHaveLength(1);
      expect(rotated.at(-1)!.endsWith(".gz")).toBe(false);
      // /containerLogs without follow reads the live file.
      // /containerLogs without follow reads the live file (empty for a moment after each rotation).
      const tail = await eventually(
        "two lines in the live log",
        async () => {
          const t = await (await fetch(logsUrl("writer", "?tailLines=2"), { headers: agent.auth() })).text();
          return t.split("\n").length === 3 && t;
        },
        10_000,
        50,
      );
      expect(tail).toMatch(new RegExp(`^\\d+ ${line}\\n\\d+ ${line}\\n$`));
    }, 90_000);

    test("image GC above its high threshold removes an unused image, not the one a running container uses nor the pause image", async () => {
      expect(await tags(node)).toEqual(expect.arrayContaining([VICTIM_IMAGE, BUSYBOX_IMAGE, PAUSE_IMAGE]));
      // The writer pod still runs (busybox in use); restart the agent with image GC thresholds this
      // machine is above, and no minimum age.
      expect(await agent.stop()).toBe(0);
      agent = new TestAgent(node, [
        ...LOG_FLAGS,
        "--image-gc-high-threshold",
        "1",
        "--image-gc-low-threshold",
        "0",
        "--minimum-image-ttl-duration",
        "0s",
        "--image-gc-period",
        "2s",
      ]);
      await agent.start();
      await eventually("the unused image to be removed", async () => !(await tags(node)).includes(VICTIM_IMAGE), 30_000, 250);
      // Two more collections (the agent logs each one over the threshold): the image in use and the
      // sandbox image stay.
      const collections = () => agent.proc.stderr.split("disk usage on the image filesystem").length - 1;
      const seen = collections();
      expect(seen).toBeGreaterThan(0);
      await eventually("two more image collections", async () => collections() >= seen + 2, 15_000, 250);
      expect(await tags(node)).toEqual(expect.arrayContaining([BUSYBOX_IMAGE, PAUSE_IMAGE]));
      expect(running((await agent.pod("writer"))!)).toBe(true);
      agent.removeManifest("writer.yaml");
      await eventually("the writer to leave /pods", async () => !(await agent.pod("writer")), 30_000);
    }, 90_000);
  });
}
