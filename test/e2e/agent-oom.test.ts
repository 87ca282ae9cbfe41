// OOM kills on real containerd 1.6 and 1.7: a container that allocates past its memory limit is killed
// by the kernel's OOM killer inside its cgroup; the agent shows the runtime's reason, OOMKilled, in the
// container's last state (the kubelet takes it from ContainerStatus), restarts it by its policy, and
// its OOM watcher (src/oom, reading /dev/kmsg) counts the kill as a container one on /metrics — never as
// a system OOM, which would mean the node itself ran out of memory.
import { beforeAll, describe, expect, test } from "bun:test";
import { useAgent, type TestAgent } from "./agent-harness";
import { eventually } from "./proc";

// busybox's sh keeps doubling a string in memory until the 16Mi limit stops it.
const hog = `apiVersion: v1
kind: Pod
metadata:
  name: hog
spec:
  terminationGracePeriodSeconds: 1
  containers:
    - name: main
      image: localhost/nodeagent/busybox:1.35
      command: ["sh", "-c", "x=0123456789abcdef; while true; do x=$x$x; done"]
      resources:
        limits: { memory: 16Mi, cpu: 500m }
`;

async function oomKills(agent: TestAgent): Promise<{ container: number; system: number }> {
  const text = await (await agent.fetch("/metrics")).text();
  const read = (scope: string) => Number(text.match(new RegExp(`nodeagent_oom_kills_total\\{scope="${scope}"\\} (\\d+)`))?.[1] ?? NaN);
  return { container: read("container"), system: read("system") };
}

for (const version of ["1.6", "1.7"] as const) {
  describe(`OOM kills on containerd ${version}`, () => {
    const env = useAgent(version);
    let agent: TestAgent;
    beforeAll(() => {
      agent = env.agent();
    });

    test("a container over its memory limit shows OOMKilled (exit 137), is restarted, and is counted as a container OOM kill", async () => {
      agent.writeManifest("hog.yaml", hog);
      const p = await agent.waitPod("hog", "its container OOM-killed once", (p) => !!p.status?.containerStatuses?.[0]?.lastState?.terminated, 60_000);
      const cs = p.status!.containerStatuses![0]!;
      expect(cs.lastState!.terminated).toMatchObject({ reason: "OOMKilled", exitCode: 137 });
      expect(cs.restartCount).toBeGreaterThanOrEqual(1);
      // The kernel's log is the machine's: other containers' kills may be in it too, so the watcher's
      // line for this container (its cgroup ends in the container's ID) is what proves it saw this one.
      const id = cs.lastState!.terminated!.containerID!.replace(/^\w+:\/\//, "");
      const line = await eventually("the OOM watcher to log this container's kill", async () => {
        const all = agent.proc.lines.join("\n") + agent.proc.stderr;
        return all.split("\n").find((l) => l.includes("OOM kill in a container's cgroup") && l.includes(`/${id}`));
      });
      expect(line).toContain(`/pod${p.metadata!.uid}`);
      const after = await oomKills(agent);
      expect(after.container).toBeGreaterThanOrEqual(1);
      expect(after.system).toBe(0);
      agent.removeManifest("hog.yaml");
      await eventually("the pod to leave /pods", async () => !(await agent.pod("hog")));
    }, 120_000);
  });
}
