// Graceful node shutdown without logind, and sd_notify, on real containerd 1.6 and 1.7: an agent with
// --shutdown-pods --shutdown-grace-period 10s --shutdown-grace-period-critical-pods 4s and a
// NOTIFY_SOCKET (a real unix datagram listener) says READY=1 once it runs; on SIGTERM it stops the
// normal pod first (within min(its grace, 6s)) and the critical one (priority 2000001000,
// system-node-critical) only after it, each getting its TERM (their traps write markers into a
// hostPath folder); meanwhile the node is NotReady ("node is shutting down"), a push is refused
// NodeShutdown, the pods are Failed/Terminated with the kubelet's message; then the agent says
// STOPPING=1 and exits 0. This machine has no systemd-logind, so the agent also says once that
// shutdown via logind is unavailable.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Node } from "kubernetes-types/core/v1";
import { running, TestAgent } from "./agent-harness";
import { startNode, type TestNode } from "./node";
import { eventually } from "./proc";
import { NotifyListener } from "../fixtures/systemd/notify-listener";

const pod = (name: string, o: { priority?: number; trap: string }) => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  terminationGracePeriodSeconds: 30
${o.priority !== undefined ? `  priorityClassName: system-node-critical\n  priority: ${o.priority}\n` : ""}  containers:
    - name: main
      image: localhost/nodeagent/busybox:1.35
      command: ["sh", "-c", ${JSON.stringify(`trap '${o.trap}; exit 0' TERM; echo started > /marks/${name}.started; while true; do sleep 1 & wait $!; done`)}]
      volumeMounts: [{ name: marks, mountPath: /marks }]
  volumes:
    - name: marks
      hostPath: { path: MARKS, type: Directory }
`;

for (const version of ["1.6", "1.7"] as const) {
  describe(`graceful shutdown on SIGTERM, and sd_notify, on containerd ${version}`, () => {
    let node: TestNode;
    let agent: TestAgent;
    let listener: NotifyListener;
    let marks: string;

    beforeAll(async () => {
      node = await startNode(version);
      listener = await NotifyListener.start(`@nodeagent-e2e-notify-${process.pid}-${version}`);
      agent = new TestAgent(node, ["--shutdown-pods", "--shutdown-grace-period", "10s", "--shutdown-grace-period-critical-pods", "4s"], undefined, {
        env: { NOTIFY_SOCKET: listener.path },
      });
      marks = join(agent.dir, "marks");
      mkdirSync(marks, { recursive: true });
      await agent.start();
    });
    afterAll(async () => {
      if (agent?.proc.proc.exitCode === null) await agent.stop().catch(() => {});
      await listener?.stop();
      await node?.stop();
      agent?.cleanup();
    });

    test("READY=1 once running; on SIGTERM the normal pod stops first, then the critical one, both TERMed; NotReady and NodeShutdown meanwhile; STOPPING=1 and exit 0", async () => {
      await eventually("READY=1 on the notify socket", async () => listener.received.includes("READY=1"), 30_000, 100);
      const unavailable = agent.proc.stderr.split("\n").find((l) => l.includes("graceful node shutdown via logind is unavailable"));
      expect(unavailable && JSON.parse(unavailable)).toMatchObject({ reason: "no system bus at /run/dbus/system_bus_socket" });
      // The normal pod's trap takes a second, then says it finished; the critical one records whether
      // the normal one had finished when its own TERM came, then takes 2 s.
      agent.writeManifest("normal.yaml", pod("normal", { trap: "sleep 1; echo done > /marks/normal.term" }).replace("MARKS", marks));
      agent.writeManifest(
        "critical.yaml",
        pod("critical", {
          priority: 2000001000,
          trap: "if [ -f /marks/normal.term ]; then echo after-normal; else echo before-normal; fi > /marks/critical.term; sleep 2",
        }).replace("MARKS", marks),
      );
      await agent.waitPod("normal", "running", running, 60_000);
      await agent.waitPod("critical", "running", running, 60_000);
      await eventually("both traps set", async () => existsSync(join(marks, "normal.started")) && existsSync(join(marks, "critical.started")));
      expect(listener.received.filter((m) => m === "READY=1")).toHaveLength(1);

      agent.proc.proc.kill("SIGTERM");
      // While the critical pod's trap runs, the agent still serves its API.
      const normal = await agent.waitPod("normal", "stopped by the shutdown", (p) => p.status?.phase === "Failed", 15_000);
      expect(normal.status).toMatchObject({ phase: "Failed", reason: "Terminated", message: "Pod was terminated in response to imminent node shutdown." });
      const node_ = (await (await agent.fetch("/node")).json()) as Node;
      const ready = node_.status?.conditions?.find((c) => c.type === "Ready");
      expect(ready).toMatchObject({ status: "False", reason: "KubeletNotReady" });
      expect(ready?.message).toContain("node is shutting down");
      const push = await agent.fetch("/pods", { method: "POST", body: pod("late", { trap: "true" }).replace("MARKS", marks) });
      expect(push.status).toBe(403);
      expect(((await push.json()) as { message: string }).message).toBe("NodeShutdown: Pod was rejected as the node is shutting down.");

      const code = await agent.proc.proc.exited;
      expect(code).toBe(0);
      // Both got their TERM, the critical one only after the normal one had finished its trap.
      expect(readFileSync(join(marks, "normal.term"), "utf8").trim()).toBe("done");
      expect(readFileSync(join(marks, "critical.term"), "utf8").trim()).toBe("after-normal");
      const log = agent.proc.stderr;
      expect(log).toContain("Shutdown: Shutdown manager detected shutdown event");
      expect(log).toContain("nodeagent stopped after the node shutdown stopped its pods");
      const normalStop = log.indexOf('"msg":"shutdown: stopping pod","pod":"default/normal-e2e-node","gracePeriod":"6s"');
      expect(normalStop).toBeGreaterThan(-1);
      expect(log.indexOf('"msg":"shutdown: stopping pod","pod":"default/critical-e2e-node","gracePeriod":"4s"')).toBeGreaterThan(normalStop);
      // Their containers have stopped; the runtime has them exited, nothing running.
      const containers = await node.client.listContainers({});
      expect(containers.filter((c) => c.metadata?.name === "main" && c.state === "CONTAINER_RUNNING")).toEqual([]);
      await eventually("STOPPING=1", async () => listener.received.includes("STOPPING=1"), 5_000, 50);
      expect(listener.received.indexOf("STOPPING=1")).toBeGreaterThan(listener.received.indexOf("READY=1"));
    }, 180_000);
  });
}
