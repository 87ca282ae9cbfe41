// `nodeagent agent` on real containerd 1.6 and 1.7: static pods from manifest to running pod and back.
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { POD_UID } from "../../src/cri/labels";
import { AGENT_CGROUP, manifest, running, useAgent, type TestAgent } from "./agent-harness";
import type { TestNode } from "./node";
import { eventually } from "./proc";

for (const version of ["1.6", "1.7"] as const) {
  describe(`agent on containerd ${version}`, () => {
    const env = useAgent(version, () => ["--cluster-dns", "10.96.0.10"]);
    let node: TestNode;
    let agent: TestAgent;
    beforeAll(() => {
      node = env.node();
      agent = env.agent();
    });

    test("add → running; edit → replaced; delete → gone and cleaned up", async () => {
      agent.writeManifest("web.yaml", manifest("web", "echo v1; sleep 3600"));
      const v1 = await agent.waitPod("web", "running", running);
      expect(v1.metadata!.name).toBe("web-e2e-node");
      expect(v1.metadata!.annotations!["kubernetes.io/config.source"]).toBe("file");
      const uid1 = v1.metadata!.uid!;
      // A BestEffort pod: its cgroup is in kubepods/besteffort (the kubelet's QoS hierarchy, src/cm).
      expect(existsSync(`/sys/fs/cgroup/memory${AGENT_CGROUP}/kubepods/besteffort/pod${uid1}`)).toBe(true);

      agent.writeManifest("web.yaml", manifest("web", "echo v2; sleep 3600"));
      const v2 = await agent.waitPod("web", "replaced by the edit", (p) => p.metadata!.uid !== uid1 && running(p));
      const uid2 = v2.metadata!.uid!;
      await eventually(
        "the old pod's sandboxes to be removed",
        async () => (await node.client.listPodSandbox({ labelSelector: { [POD_UID]: uid1 } })).length === 0,
      );
      expect(await node.client.listContainers({ labelSelector: { [POD_UID]: uid2 } })).toHaveLength(1);

      agent.removeManifest("web.yaml");
      await eventually("the pod to leave /pods", async () => !(await agent.pod("web")));
      await eventually("its sandbox to be removed", async () => (await node.client.listPodSandbox({ labelSelector: { [POD_UID]: uid2 } })).length === 0);
      expect(existsSync(`/sys/fs/cgroup/memory${AGENT_CGROUP}/kubepods/besteffort/pod${uid2}`)).toBe(false);
    }, 90_000);

    test("init containers run in order before the app container; logs are where the kubelet puts them", async () => {
      agent.writeManifest(
        "init.yaml",
        manifest("init", "cat /work/order; sleep 3600", {
          initContainers: ["echo one >> /work/order", "echo two >> /work/order"],
        }),
      );
      const p = await agent.waitPod("init", "running", running);
      expect(p.status!.initContainerStatuses!.map((c) => c.state?.terminated?.exitCode)).toEqual([0, 0]);
      expect(p.status!.conditions!.find((c) => c.type === "Initialized")!.status).toBe("True");
      const log = join(agent.dir, "logs", `default_init-e2e-node_${p.metadata!.uid}`, "main", "0.log");
      const text = await eventually("the app's log", async () => existsSync(log) && readFileSync(log, "utf8").includes("two") && readFileSync(log, "utf8"));
      expect(
        text
          .split("\n")
          .filter(Boolean)
          .map((l) => l.split(" ").slice(3).join(" ")),
      ).toEqual(["one", "two"]);
      agent.removeManifest("init.yaml");
    }, 60_000);

    test("while an init container fails, it backs off and the app container waits PodInitializing, as the kubelet shows it", async () => {
      agent.writeManifest("initfail.yaml", manifest("initfail", "sleep 3600", { initContainers: ["exit 1"] }));
      const p = await agent.waitPod(
        "initfail",
        "its init container backed off",
        (x) => x.status?.initContainerStatuses?.[0]?.state?.waiting?.reason === "CrashLoopBackOff",
      );
      expect(p.status?.phase).toBe("Pending");
      expect(p.status?.containerStatuses?.[0]?.state).toEqual({ waiting: { reason: "PodInitializing" } });
      agent.removeManifest("initfail.yaml");
    }, 60_000);

    test("resolv.conf as the kubelet writes it: ClusterFirst through --cluster-dns, None from dnsConfig", async () => {
      const resolvConf = async (name: string) => {
        const p = await agent.waitPod(name, "running", running);
        const log = join(agent.dir, "logs", `default_${name}-e2e-node_${p.metadata!.uid}`, "main", "0.log");
        const text = await eventually(
          `${name}'s resolv.conf in its log`,
          async () => existsSync(log) && readFileSync(log, "utf8").includes("nameserver") && readFileSync(log, "utf8"),
        );
        return text
          .split("\n")
          .filter(Boolean)
          .map((l) => l.split(" ").slice(3).join(" ").trim());
      };
      agent.writeManifest("dns1.yaml", manifest("dns1", "cat /etc/resolv.conf; sleep 3600"));
      agent.writeManifest(
        "dns2.yaml",
        manifest("dns2", "cat /etc/resolv.conf; sleep 3600").replace(
          "spec:\n",
          "spec:\n  dnsPolicy: None\n  dnsConfig: { nameservers: [192.0.2.1], searches: [e2e.example], options: [{ name: ndots, value: '2' }] }\n",
        ),
      );
      const first = await resolvConf("dns1");
      expect(first).toContain("nameserver 10.96.0.10");
      expect(
        first
          .find((l) => l.startsWith("search"))!
          .split(/\s+/)
          .slice(1, 4),
      ).toEqual(["default.svc.cluster.local", "svc.cluster.local", "cluster.local"]);
      expect(first).toContain("options ndots:5");
      const second = await resolvConf("dns2");
      expect(second.filter((l) => l.startsWith("nameserver"))).toEqual(["nameserver 192.0.2.1"]);
      expect(second).toContain("search e2e.example");
      expect(second).toContain("options ndots:2");
      agent.removeManifest("dns1.yaml");
      agent.removeManifest("dns2.yaml");
    }, 60_000);

    test("a crashing container goes into CrashLoopBackOff with growing delays", async () => {
      agent.writeManifest("crash.yaml", manifest("crash", "echo boom; exit 3"));
      const first = await agent.waitPod("crash", "back-off 10s", (p) => p.status?.containerStatuses?.[0]?.state?.waiting?.reason === "CrashLoopBackOff");
      const cs = first.status!.containerStatuses![0]!;
      expect(cs.state!.waiting!.message).toContain("back-off 10s restarting failed container=main");
      expect(cs.lastState!.terminated!.exitCode).toBe(3);
      expect(first.status!.phase).toBe("Running");
      const second = await agent.waitPod(
        "crash",
        "back-off 20s",
        (p) => (p.status?.containerStatuses?.[0]?.state?.waiting?.message ?? "").includes("back-off 20s"),
        40_000,
      );
      expect(second.status!.containerStatuses![0]!.restartCount).toBe(cs.restartCount + 1);
      // /metrics counts the restarts the agent made, the exited container and the relists.
      const metrics = await (await agent.fetch("/metrics")).text();
      const sample = (re: RegExp) => Number(re.exec(metrics)?.[1] ?? NaN);
      expect(sample(/^nodeagent_container_restarts_total\{namespace="default",pod="crash-e2e-node",container="main"\} (\d+)$/m)).toBeGreaterThanOrEqual(1);
      expect(sample(/^kubelet_running_containers\{container_state="exited"\} (\d+)$/m)).toBeGreaterThanOrEqual(1);
      expect(sample(/^kubelet_running_pods (\d+)$/m)).toBeGreaterThanOrEqual(1);
      expect(sample(/^kubelet_pleg_relist_duration_seconds_count (\d+)$/m)).toBeGreaterThanOrEqual(1);
      agent.removeManifest("crash.yaml");
    }, 90_000);

    test("an edit that makes the manifest invalid leaves the running pod as it is", async () => {
      agent.writeManifest("keep.yaml", manifest("keep", "sleep 3600"));
      const before = await agent.waitPod("keep", "running", running);
      agent.writeManifest("keep.yaml", 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: keep\nspec:\n  containers:\n    - name: main\n      image: ""\n');
      await agent.proc.waitFor("the error, with file and line", () => agent.proc.stderr.includes("keep.yaml:8"), 20_000);
      const after = await agent.pod("keep");
      expect(after!.metadata!.uid).toBe(before.metadata!.uid!);
      expect(running(after!)).toBe(true);
      agent.removeManifest("keep.yaml");
    }, 60_000);
  });
}

describe("agent restarts", () => {
  const env = useAgent("1.6");
  let node: TestNode;
  let agent: TestAgent;
  beforeAll(() => {
    node = env.node();
    agent = env.agent();
  });

  test("kill -9 mid-sync, then a restart: what runs is adopted, nothing started twice", async () => {
    for (let i = 0; i < 5; i++) agent.writeManifest(`p${i}.yaml`, manifest(`p${i}`, "sleep 3600"));
    // Kill while the pods are being created.
    await agent.proc.waitFor("the first sandbox", () => agent.proc.stderr.includes("created sandbox"), 20_000);
    await agent.crash();
    await agent.start();
    for (let i = 0; i < 5; i++) await agent.waitPod(`p${i}`, "running", running);
    const containers = await node.client.listContainers();
    const byPod = new Map<string, number>();
    for (const c of containers) if (c.state === "CONTAINER_RUNNING") byPod.set(c.labels[POD_UID]!, (byPod.get(c.labels[POD_UID]!) ?? 0) + 1);
    expect([...byPod.values()]).toEqual([1, 1, 1, 1, 1]);
    const sandboxes = (await node.client.listPodSandbox()).filter((s) => s.state === "SANDBOX_READY");
    expect(sandboxes).toHaveLength(5);
    // A clean restart does not restart anything either.
    const ids = containers.map((c) => c.id).sort();
    expect(await agent.stop()).toBe(0);
    await agent.start();
    for (let i = 0; i < 5; i++) await agent.waitPod(`p${i}`, "running", running);
    expect((await node.client.listContainers({ state: { state: "CONTAINER_RUNNING" } })).map((c) => c.id).sort()).toEqual(
      ids.filter((id) => containers.find((c) => c.id === id)?.state === "CONTAINER_RUNNING"),
    );
  }, 120_000);

  test("containerd restarted under a running agent: pods keep running, the agent carries on", async () => {
    const before = (await agent.pods()).map((p) => p.metadata!.uid).sort();
    await node.managed.stop();
    await node.managed.start();
    agent.writeManifest("after.yaml", manifest("after", "sleep 3600"));
    await agent.waitPod("after", "running", running, 60_000);
    for (const p of await agent.pods()) if (before.includes(p.metadata!.uid)) expect(running(p)).toBe(true);
  }, 120_000);
});
