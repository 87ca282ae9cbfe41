// The compiled agent on real containerd 1.6 and 1.7, where timing matters (issue 12, findings 3 and 8):
// a manifest reverted X→Y→X while X is still terminating ends with X running once; pushed pods in
// quick bursts end as the last push says, with no stale entry; an agent killed while it starts a
// container leaves nothing that counts as a restart.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Pod } from "kubernetes-types/core/v1";
import { CONTAINER_NAME, POD_NAME, POD_UID } from "../../src/cri/labels";
import { NODE_NAME, manifest, running, useAgent } from "./agent-harness";
import { eventually } from "./proc";

const TOKEN = "races-token";

/** X and Y of a pod: Y differs only in its command, so it is a new pod (new UID) of the same name. */
function version(name: string, v: "x" | "y", grace: number): string {
  // sleep as the container's first process ignores SIGTERM: stopping it takes the whole grace period.
  return manifest(name, v === "x" ? "exec sleep 3600" : "exec sleep 3601").replace(
    "terminationGracePeriodSeconds: 2",
    `terminationGracePeriodSeconds: ${grace}`,
  );
}

const delay = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

for (const version_ of ["1.6", "1.7"] as const) {
  describe(`agent races on containerd ${version_}`, () => {
    const { node, agent } = useAgent(version_, (n) => {
      const file = join(n.rootDir, "push-token");
      writeFileSync(file, TOKEN, { mode: 0o600 });
      return ["--push-token-file", file];
    });

    /** The containers of a pod the runtime holds, by its pod name label, with their state and pod UID. */
    async function runtimeContainers(podName: string) {
      const all = await node().client.listContainers();
      return all
        .filter((c) => c.labels[POD_NAME] === podName && c.labels[CONTAINER_NAME] === "main")
        .map((c) => ({ id: c.id, state: c.state, uid: c.labels[POD_UID] }));
    }

    test("X→Y→X reverted after 0.3 s, 1.5 s and 10 s, within X's 12 s grace: X runs again, once, and Y never runs", async () => {
      const a = agent();
      const scenario = async (name: string, revertAfterMs: number) => {
        a.writeManifest(`${name}.yaml`, version(name, "x", 12));
        const x = await a.waitPod(name, "X running", running);
        a.writeManifest(`${name}.yaml`, version(name, "y", 12));
        // The timing of the revert is what the test is about: the delay is its input, not a wait.
        await delay(revertAfterMs);
        a.writeManifest(`${name}.yaml`, version(name, "x", 12));
        const again = await a.waitPod(
          name,
          "X running again after its previous instance terminated",
          (p) => running(p) && p.status!.containerStatuses![0]!.containerID !== x.status!.containerStatuses![0]!.containerID,
          60_000,
        );
        expect(again.metadata!.uid).toBe(x.metadata!.uid!);
        const fullName = `${name}-${NODE_NAME}`;
        const live = (await runtimeContainers(fullName)).filter((c) => c.state === "CONTAINER_RUNNING");
        expect(live).toHaveLength(1);
        expect(live[0]!.uid).toBe(x.metadata!.uid!);
        // Y was removed before it ever started: the runtime never had a container of its UID.
        const uids = new Set((await runtimeContainers(fullName)).map((c) => c.uid));
        expect([...uids]).toEqual([x.metadata!.uid!]);
        expect((await a.pods()).filter((p) => p.metadata!.name === fullName)).toHaveLength(1);
      };
      await Promise.all([scenario("revert-fast", 300), scenario("revert-mid", 1500), scenario("revert-slow", 10_000)]);
    }, 120_000);

    test("pushed pods in quick bursts (X, Y, X, Y, X) end running X, once each, with no stale entry in /pods", async () => {
      const a = agent();
      const names = ["burst-1", "burst-2", "burst-3", "burst-4", "burst-5"];
      const push = (name: string, v: "x" | "y") =>
        fetch(`${a.url}/pods`, { method: "POST", headers: { authorization: `Bearer ${TOKEN}` }, body: version(name, v, 5) }).then(async (r) => {
          if (r.status >= 300) throw new Error(`push ${name} ${v}: ${r.status} ${await r.text()}`);
        });
      for (let round = 0; round < 3; round++) {
        for (const name of names) for (const v of ["x", "y", "x", "y", "x"] as const) await push(name, v);
        if (round === 0)
          await eventually(
            "the first round's pods running",
            async () => (await Promise.all(names.map((n) => a.pod(n)))).every((p) => p && running(p)),
            60_000,
          ).catch(async (e) => {
            const pods = (await a.pods()).map(
              (p) =>
                `${p.metadata!.name} ${p.metadata!.uid!.slice(0, 8)} ${p.status!.phase} ${JSON.stringify(p.status!.containerStatuses?.map((c) => c.state))}`,
            );
            throw new Error(`${(e as Error).message}\npods:\n${pods.join("\n")}\nagent log:\n${a.proc.stderr.split("\n").slice(-60).join("\n")}`);
          });
      }
      await eventually(
        "every pushed pod running its X spec",
        async () => {
          const pods = (await a.pods()).filter((p) => names.includes(p.metadata!.name!));
          return pods.length === names.length && pods.every((p) => running(p) && (p.spec!.containers[0]!.command ?? []).join(" ").includes("sleep 3600"));
        },
        90_000,
      );
      for (const name of names) {
        const live = (await runtimeContainers(name)).filter((c) => c.state === "CONTAINER_RUNNING");
        expect(live).toHaveLength(1);
        expect(live[0]!.uid).toBe((await a.pod(name))!.metadata!.uid!);
      }
      expect((await a.pods()).filter((p) => names.includes(p.metadata!.name!))).toHaveLength(names.length);
    }, 180_000);

    test("an agent killed while it starts a container: the next one runs it without counting a restart", async () => {
      const a = agent();
      // The kill has to land between CreateContainer and the end of StartContainer; a try where the
      // container was already running when the agent died proves nothing, so it is tried again.
      let caught: { state: string; pod: Pod } | undefined;
      for (let attempt = 0; attempt < 12 && !caught; attempt++) {
        const name = `cut-${attempt}`;
        const fullName = `${name}-${NODE_NAME}`;
        a.writeManifest(`${name}.yaml`, manifest(name, "exec sleep 3600", { restartPolicy: "Never" }));
        const deadline = Date.now() + 20_000;
        let created = false;
        while (!created && Date.now() < deadline) created = (await runtimeContainers(fullName)).some((c) => c.state === "CONTAINER_CREATED");
        await a.crash();
        const [c] = await runtimeContainers(fullName);
        await a.start();
        if (c && c.state !== "CONTAINER_RUNNING") {
          const pod = await a.waitPod(name, "running after the restart", running).catch(async (e) => {
            const states = await runtimeContainers(fullName);
            const statuses = await Promise.all(
              states.map(async (x) =>
                node()
                  .client.containerStatus(x.id)
                  .then(
                    (st) => `${x.id.slice(0, 12)} ${st.state} ${st.reason} ${st.message} started=${st.startedAt}`,
                    (err) => `${x.id.slice(0, 12)} ${(err as Error).message}`,
                  ),
              ),
            );
            throw new Error(
              `${(e as Error).message}\nbefore the restart: ${c.state}\nruntime: ${statuses.join("\n")}\nagent log:\n${a.proc.stderr
                .split("\n")
                .filter((l) => l.includes(name))
                .slice(-30)
                .join("\n")}`,
            );
          });
          caught = { state: c.state, pod };
        } else {
          a.removeManifest(`${name}.yaml`);
          await eventually(`${name} gone`, async () => !(await a.pod(name)), 30_000);
        }
      }
      if (!caught) throw new Error("in 12 tries the agent was never killed mid-start: the precondition of this test was not reached");
      const status = caught.pod.status!.containerStatuses![0]!;
      expect(caught.pod.status!.phase).toBe("Running");
      expect(status.restartCount).toBe(0);
      expect(status.lastState ?? {}).toEqual({});
      const live = (await runtimeContainers(caught.pod.metadata!.name!)).map((c) => c.state);
      expect(live).toEqual(["CONTAINER_RUNNING"]);
    }, 300_000);
  });
}
