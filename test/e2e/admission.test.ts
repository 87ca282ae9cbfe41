// Admission on the node (issue 12 finding 7, issue 17), by the compiled agent on containerd 1.6 and
// 1.7: a static pod the node cannot take is rejected as the kubelet's rejectPod does it (phase Failed,
// the handler's reason, "Pod was rejected: …", nothing created in the runtime) — over --max-pods
// (OutOfpods, and a push over it is refused with 403 before it is kept), asking for more cpu than the
// node has (OutOfcpu), a nodeSelector the node's labels do not match (NodeAffinity), a hostPort another
// pod holds (NodePorts), a sysctl outside the safe set and --allowed-unsafe-sysctls (SysctlForbidden);
// an allowed unsafe sysctl reaches the pod's kernel namespace.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Node, Pod } from "kubernetes-types/core/v1";
import { parseQuantity } from "../../src/api/quantity";
import { POD_NAME } from "../../src/cri/labels";
import { NODE_NAME, manifest, running, useAgent, type TestAgent } from "./agent-harness";
import type { TestNode } from "./node";
import { eventually } from "./proc";

const TOKEN = "admission-token";
const BUSYBOX = "localhost/nodeagent/busybox:1.35";
// A host port nothing else on this machine uses: portmap only adds iptables rules, it binds nothing.
const HOST_PORT = 20_000 + (process.pid % 10_000);

/** A static pod manifest (JSON is YAML) running `command` in busybox, with `spec` merged in. */
function podManifest(name: string, command: string, spec: Partial<NonNullable<Pod["spec"]>> = {}, container: Record<string, unknown> = {}): string {
  const pod: Pod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name },
    spec: { terminationGracePeriodSeconds: 2, containers: [{ name: "main", image: BUSYBOX, command: ["sh", "-c", command], ...container }], ...spec },
  };
  return JSON.stringify(pod);
}

/** Nothing of the pod was ever created in the runtime. */
async function noSandbox(node: TestNode, name: string): Promise<void> {
  const sandboxes = await node.client.listPodSandbox();
  expect(sandboxes.filter((s) => s.labels[POD_NAME] === `${name}-${NODE_NAME}`)).toEqual([]);
}

/** Removes the manifests and waits until the agent no longer lists their pods. */
async function removePods(a: TestAgent, ...names: string[]): Promise<void> {
  for (const n of names) a.removeManifest(`${n}.yaml`);
  await eventually(
    `pods ${names.join(", ")} gone`,
    async () => {
      const left = await Promise.all(names.map((n) => a.pod(n)));
      return left.every((p) => p === undefined) || undefined;
    },
    30_000,
    200,
  );
}

for (const version of ["1.6", "1.7"] as const) {
  describe(`admission on containerd ${version}`, () => {
    const { node, agent } = useAgent(version, (n) => {
      const file = join(n.rootDir, "push-token");
      writeFileSync(file, TOKEN, { mode: 0o600 });
      return ["--max-pods", "2", "--push-token-file", file, "--allowed-unsafe-sysctls", "kernel.msg*"];
    });

    test("a pod over --max-pods is Failed with OutOfpods and never reaches the runtime; a push over it is a 403", async () => {
      const a = agent();
      a.writeManifest("one.yaml", manifest("one", "exec sleep 3600"));
      a.writeManifest("two.yaml", manifest("two", "exec sleep 3600"));
      await a.waitPod("one", "running", running);
      await a.waitPod("two", "running", running);
      a.writeManifest("three.yaml", manifest("three", "exec sleep 3600"));
      const rejected = await a.waitPod("three", "rejected", (p) => p.status?.phase === "Failed");
      expect(rejected.status).toEqual({
        phase: "Failed",
        reason: "OutOfpods",
        message: "Pod was rejected: Node didn't have enough resource: pods, requested: 1, used: 2, capacity: 2",
        qosClass: "BestEffort",
      });
      const sandboxes = await node().client.listPodSandbox();
      expect(sandboxes.filter((s) => s.labels[POD_NAME] === `three-${NODE_NAME}`)).toEqual([]);

      const push = await fetch(`${a.url}/pods`, { method: "POST", headers: { authorization: `Bearer ${TOKEN}` }, body: manifest("pushed", "exec sleep 3600") });
      expect(push.status).toBe(403);
      expect(((await push.json()) as { message: string }).message).toBe(
        "OutOfpods: Node didn't have enough resource: pods, requested: 1, used: 2, capacity: 2",
      );
      expect(await a.pod("pushed")).toBeUndefined();
      // The running pods were never touched.
      expect(running((await a.pod("one"))!)).toBe(true);
      expect(running((await a.pod("two"))!)).toBe(true);
      await removePods(a, "one", "two", "three");
    }, 90_000);

    test("a static pod asking for more cpu than the node has is Failed with OutOfcpu and the kubelet's message, never in the runtime", async () => {
      const a = agent();
      const n = (await (await a.fetch("/node")).json()) as Node;
      const capacity = parseQuantity(n.status!.allocatable!.cpu!).milli();
      a.writeManifest("hungry.yaml", podManifest("hungry", "exec sleep 3600", {}, { resources: { requests: { cpu: "1000" } } }));
      const rejected = await a.waitPod("hungry", "rejected", (p) => p.status?.phase === "Failed");
      expect(rejected.status).toEqual({
        phase: "Failed",
        reason: "OutOfcpu",
        message: `Pod was rejected: Node didn't have enough resource: cpu, requested: 1000000, used: 0, capacity: ${capacity}`,
        qosClass: "Burstable",
      });
      await noSandbox(node(), "hungry");
      // A push the node cannot take is refused before it is kept, with admission's reason.
      const push = await a.fetch("/pods", {
        method: "POST",
        body: podManifest("pushed-hungry", "exec sleep 3600", {}, { resources: { requests: { cpu: "1000" } } }),
      });
      expect(push.status).toBe(403);
      expect(((await push.json()) as { message: string }).message).toBe(
        `OutOfcpu: Node didn't have enough resource: cpu, requested: 1000000, used: 0, capacity: ${capacity}`,
      );
      expect(await a.pod("pushed-hungry")).toBeUndefined();
      await removePods(a, "hungry");
    }, 60_000);

    test("a pod whose nodeSelector the node's labels do not match is Failed with NodeAffinity", async () => {
      const a = agent();
      a.writeManifest("picky.yaml", podManifest("picky", "exec sleep 3600", { nodeSelector: { disktype: "ssd" } }));
      const rejected = await a.waitPod("picky", "rejected", (p) => p.status?.phase === "Failed");
      expect(rejected.status).toEqual({
        phase: "Failed",
        reason: "NodeAffinity",
        message: "Pod was rejected: Predicate NodeAffinity failed",
        qosClass: "BestEffort",
      });
      await noSandbox(node(), "picky");
      await removePods(a, "picky");
    }, 60_000);

    test("a second pod taking a hostPort another pod holds is Failed with NodePorts; the first runs on", async () => {
      const a = agent();
      const ports = { ports: [{ containerPort: 8080, hostPort: HOST_PORT }] };
      a.writeManifest("port-a.yaml", podManifest("port-a", "exec sleep 3600", {}, ports));
      await a.waitPod("port-a", "running", running);
      a.writeManifest("port-b.yaml", podManifest("port-b", "exec sleep 3600", {}, ports));
      const rejected = await a.waitPod("port-b", "rejected", (p) => p.status?.phase === "Failed");
      expect(rejected.status).toEqual({
        phase: "Failed",
        reason: "NodePorts",
        message: "Pod was rejected: Predicate NodePorts failed",
        qosClass: "BestEffort",
      });
      await noSandbox(node(), "port-b");
      expect(running((await a.pod("port-a"))!)).toBe(true);
      await removePods(a, "port-a", "port-b");
    }, 60_000);

    test("a sysctl outside the safe set and --allowed-unsafe-sysctls is Failed with SysctlForbidden; an allowed one is set in the pod", async () => {
      const a = agent();
      const sysctl = (name: string, value: string) => ({ securityContext: { sysctls: [{ name, value }] } });
      a.writeManifest("shm.yaml", podManifest("shm", "exec sleep 3600", sysctl("kernel.shmmax", "65536")));
      const rejected = await a.waitPod("shm", "rejected", (p) => p.status?.phase === "Failed");
      expect(rejected.status).toEqual({
        phase: "Failed",
        reason: "SysctlForbidden",
        message: 'Pod was rejected: forbidden sysctl: "kernel.shmmax" not allowlisted',
        qosClass: "BestEffort",
      });
      await noSandbox(node(), "shm");

      a.writeManifest("msg.yaml", podManifest("msg", "cat /proc/sys/kernel/msgmax; exec sleep 3600", sysctl("kernel.msgmax", "12345")));
      await a.waitPod("msg", "running", running);
      const log = await eventually("the container's output", async () => {
        const r = await a.fetch(`/containerLogs/default/msg-${NODE_NAME}/main`);
        const text = await r.text();
        return r.ok && text.trim() ? text : undefined;
      });
      expect(log.trim()).toBe("12345");
      await removePods(a, "shm", "msg");
    }, 60_000);
  });
}
