// The kubelet's events from the compiled agent on real containerd 1.6 and 1.7 (issue 18):
//   standalone: GET /events (and `nodeagent events`) shows Starting and NodeHasSufficientMemory… on the Node, Pulled / Created /
//   Started for a pod's container (spec.containers{main}), Warning BackOff for a crash-looping one,
//   and Killing "Stopping container main" when a pod is deleted;
//   in a cluster (the in-process test API server, the node's own credentials): the same events are
//   posted to the API, and a repeated BackOff is one Event whose count rises (PATCH), not new ones.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import type { Event, EventList, Pod } from "kubernetes-types/core/v1";
import { TestApiServer, type KubernetesObject } from "../fakes/apiserver";
import { manifest, NODE_NAME, running, useAgent, type TestAgent } from "./agent-harness";
import { BINARY } from "./node";
import { eventually } from "./proc";

async function agentEvents(agent: TestAgent): Promise<Event[]> {
  const r = await agent.fetch("/events");
  expect(r.status).toBe(200);
  return ((await r.json()) as EventList).items;
}

const line = (e: Event) => `${e.type} ${e.reason} ${e.involvedObject.fieldPath ?? ""}: ${e.message}`;

function eventsOf(events: Event[], podName: string): Event[] {
  return events.filter((e) => e.involvedObject.kind === "Pod" && e.involvedObject.name === podName);
}

for (const version of ["1.6", "1.7"] as const) {
  describe(`events on a standalone agent, containerd ${version}`, () => {
    const env = useAgent(version);
    let agent: TestAgent;
    beforeAll(() => {
      agent = env.agent();
    });

    test("Starting on the Node; Pulled, Created, Started for a pod; BackOff for a crash loop; Killing on delete; `nodeagent events` shows them", async () => {
      const nodeEvents = await eventually("the node status events", async () => {
        const evs = (await agentEvents(agent)).filter((e) => e.involvedObject.kind === "Node");
        return evs.some((e) => e.reason === "NodeHasSufficientPID") ? evs : undefined;
      });
      // The first Node's pressure conditions, as the kubelet's setters record them (Ready is new: no event).
      expect(nodeEvents.filter((e) => e.reason?.startsWith("NodeHas")).map((e) => e.message)).toEqual([
        `Node ${NODE_NAME} status is now: NodeHasSufficientMemory`,
        `Node ${NODE_NAME} status is now: NodeHasNoDiskPressure`,
        `Node ${NODE_NAME} status is now: NodeHasSufficientPID`,
      ]);
      expect(nodeEvents.find((e) => e.reason === "Starting")).toMatchObject({
        type: "Normal",
        message: "Starting kubelet.",
        source: { component: "kubelet", host: NODE_NAME },
        involvedObject: { kind: "Node", name: NODE_NAME, uid: NODE_NAME },
        metadata: { namespace: "default" },
      });

      agent.writeManifest("ok.yaml", manifest("ev-ok", "sleep 3600"));
      agent.writeManifest("crash.yaml", manifest("ev-crash", "exit 3"));
      const ok = await agent.waitPod("ev-ok", "running", running);
      const okName = ok.metadata!.name!;
      const started = await eventually("Started for ev-ok", async () => {
        const evs = eventsOf(await agentEvents(agent), okName);
        return evs.some((e) => e.reason === "Started") ? evs : undefined;
      });
      expect(started.map(line)).toEqual([
        'Normal Pulled spec.containers{main}: Container image "localhost/nodeagent/busybox:1.35" already present on machine',
        "Normal Created spec.containers{main}: Created container main",
        "Normal Started spec.containers{main}: Started container main",
      ]);
      expect(started[0]!.involvedObject).toMatchObject({ kind: "Pod", apiVersion: "v1", namespace: "default", name: okName, uid: ok.metadata!.uid });

      const crashName = `ev-crash-${NODE_NAME}`;
      const backOff = await eventually(
        "BackOff for ev-crash",
        async () => eventsOf(await agentEvents(agent), crashName).find((e) => e.reason === "BackOff"),
        60_000,
        500,
      );
      expect(backOff).toMatchObject({
        type: "Warning",
        message: "Back-off restarting failed container",
        involvedObject: { fieldPath: "spec.containers{main}" },
      });

      // The CLI over the same endpoint: the table and -o json.
      const cli = async (...args: string[]) => {
        const p = Bun.spawn([BINARY, "events", "--server", agent.url, "--token-file", join(agent.dir, "harness-token"), ...args], {
          stdout: "pipe",
          stderr: "pipe",
        });
        const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
        return { out, err, code };
      };
      const table = await cli("-n", "default", "--for", okName);
      expect(table.code).toBe(0);
      expect(table.out.split("\n")[0]).toMatch(/^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE$/);
      expect(table.out).toMatch(new RegExp(`Normal\\s+Started\\s+pod/${okName}\\s+Started container main`));
      expect(table.out).not.toContain("ev-crash");
      const json = await cli("-o", "json", "--for", "node/" + NODE_NAME);
      expect(json.code).toBe(0);
      expect((JSON.parse(json.out) as EventList).items.map((e) => e.reason)).toContain("Starting");

      agent.removeManifest("ok.yaml");
      const killing = await eventually(
        "Killing for ev-ok",
        async () => eventsOf(await agentEvents(agent), okName).find((e) => e.reason === "Killing"),
        30_000,
        200,
      );
      expect(killing).toMatchObject({ type: "Normal", message: "Stopping container main", involvedObject: { fieldPath: "spec.containers{main}" } });
      agent.removeManifest("crash.yaml");
      await eventually("the pods to leave /pods", async () => !(await agent.pod("ev-ok")) && !(await agent.pod("ev-crash")));
    }, 120_000);
  });

  describe(`events in a cluster, containerd ${version}`, () => {
    const dir = mkdtempSync(join(tmpdir(), "nodeagent-events-"));
    const kubeconfig = join(dir, "node.kubeconfig");
    let api: TestApiServer;
    beforeAll(async () => {
      api = await TestApiServer.start();
      api.writeKubeconfig(kubeconfig, api.nodeToken(NODE_NAME));
    });
    afterAll(async () => {
      await api?.stop();
      rmSync(dir, { recursive: true, force: true });
    });
    const env = useAgent(version, () => ["--kubeconfig", kubeconfig, "--node-status-update-frequency", "2s", "--node-ip", "127.0.0.1"]);

    test("the events are posted to the API with the node's credentials; a repeated BackOff is one Event whose count rises", async () => {
      const agent = env.agent();
      const stored = () => api.store.list("events", "default") as unknown as Event[];
      const starting = await eventually("Starting in the API", async () => stored().find((e) => e.reason === "Starting" && e.involvedObject.kind === "Node"));
      expect(starting).toMatchObject({
        message: "Starting kubelet.",
        source: { component: "kubelet", host: NODE_NAME },
        involvedObject: { name: NODE_NAME, uid: NODE_NAME },
      });
      expect(starting.metadata.name).toMatch(new RegExp(`^${NODE_NAME}\\.[0-9a-f]+$`));

      const pod: Pod = {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "crash", namespace: "default" },
        spec: {
          nodeName: NODE_NAME,
          terminationGracePeriodSeconds: 2,
          containers: [{ name: "main", image: "localhost/nodeagent/busybox:1.35", command: ["sh", "-c", "exit 3"] }],
        },
      };
      const created = api.store.create("pods", pod as KubernetesObject) as Pod;
      const uid = created.metadata!.uid!;
      const backOff = await eventually(
        "BackOff with count ≥ 2 in the API",
        async () => {
          const evs = stored().filter((e) => e.involvedObject.uid === uid && e.reason === "BackOff");
          return evs.length === 1 && (evs[0]!.count ?? 0) >= 2 ? evs[0] : undefined;
        },
        90_000,
        500,
      );
      expect(backOff).toMatchObject({
        type: "Warning",
        message: "Back-off restarting failed container",
        involvedObject: { kind: "Pod", name: "crash", fieldPath: "spec.containers{main}" },
      });
      expect(Date.parse(backOff.lastTimestamp!)).toBeGreaterThan(Date.parse(backOff.firstTimestamp!));
      const reasons = stored()
        .filter((e) => e.involvedObject.uid === uid)
        .map((e) => e.reason);
      expect(reasons).toEqual(expect.arrayContaining(["Pulled", "Created", "Started", "BackOff"]));
      // Repeats were patches: one Started event per container start would be new objects otherwise.
      expect(api.requests.some((r) => r.verb === "patch" && r.resource === "events")).toBe(true);
      // The agent's own copy has them too.
      const local = ((await (await agent.fetch("/events")).json()) as EventList).items.find((e) => e.involvedObject.uid === uid && e.reason === "BackOff");
      expect(local?.count).toBeGreaterThanOrEqual(2);
      api.store.delete("pods", "default", "crash", { gracePeriodSeconds: 0 });
    }, 120_000);
  });
}
