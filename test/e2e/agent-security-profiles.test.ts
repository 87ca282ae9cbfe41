// The securityContext fields that confine a container, through dist/nodeagent on containerd 1.6 and
// 1.7 (issue 24: each was accepted and silently not applied):
// - seccompProfile: RuntimeDefault is seccomp mode 2 in the container (/proc/self/status "Seccomp: 2"),
//   Unconfined and unset are 0, the container's profile wins over the pod's, and a Localhost profile is
//   read from <root-dir>/seccomp (a profile that refuses mkdir makes mkdir fail).
// - appArmorProfile and the container.apparmor.security.beta.kubernetes.io annotation: on a host without
//   AppArmor (this one's kernel has none) the pod is refused at admission, as the kubelet's AppArmor
//   admit handler does, instead of running unconfined; Unconfined runs.
// - procMount: Default masks the kubelet's paths (/proc/keys, /proc/timer_list, /sys/firmware, … as this
//   kernel has them) and makes /proc/sys, /proc/bus, … read-only (the agent sent no paths, and
//   containerd then masked nothing); Unmasked is refused by validation, as it needs hostUsers: false.
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Pod } from "kubernetes-types/core/v1";
import { DEFAULT_MASKED_PATHS, DEFAULT_READONLY_PATHS } from "../../src/agent/security-context";
import { POD_UID } from "../../src/cri/labels";
import { NODE_NAME, running, useAgent, type TestAgent } from "./agent-harness";
import type { TestNode } from "./node";
import { eventually } from "./proc";

const BUSYBOX = "localhost/nodeagent/busybox:1.35";

function hostHasAppArmor(): boolean {
  try {
    return readFileSync("/sys/module/apparmor/parameters/enabled", "utf8").startsWith("Y");
  } catch {
    return false;
  }
}

/** A pod whose one container runs `script` then sleeps; `podSc`, `sc` and `annotations` are YAML flow mappings. */
function pod(name: string, script: string, o: { podSc?: string; sc?: string; annotations?: string } = {}): string {
  return `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  annotations: ${o.annotations ?? "{}"}
spec:
  terminationGracePeriodSeconds: 1
  securityContext: ${o.podSc ?? "{}"}
  containers:
    - name: main
      image: ${BUSYBOX}
      command: ["sh", "-c", ${JSON.stringify(`${script}; echo done; sleep 3600`)}]
      securityContext: ${o.sc ?? "{}"}
`;
}

const SECCOMP_LINE = "grep '^Seccomp:' /proc/self/status";

for (const version of ["1.6", "1.7"] as const) {
  describe(`security profiles on containerd ${version}`, () => {
    const env = useAgent(version);
    let node: TestNode;
    let agent: TestAgent;
    beforeAll(() => {
      node = env.node();
      agent = env.agent();
    });

    const logs = async (name: string) => (await agent.fetch(`/containerLogs/default/${name}-${NODE_NAME}/main`)).text();
    /** Runs the pod until its script has printed "done", and returns what it printed. */
    const output = async (name: string, text: string): Promise<string> => {
      agent.writeManifest(`${name}.yaml`, text);
      await agent.waitPod(name, "running", running, 60_000);
      return eventually(`${name}'s output`, async () => {
        const l = await logs(name);
        return l.includes("done") ? l : undefined;
      });
    };
    const remove = async (name: string) => {
      agent.removeManifest(`${name}.yaml`);
      await eventually(`pod ${name} to leave /pods`, async () => !(await agent.pod(name)), 30_000);
    };
    const seccompMode = (out: string) => /^Seccomp:\s+(\d)/m.exec(out)?.[1];

    test("seccompProfile RuntimeDefault: the container runs in seccomp filter mode (Seccomp: 2)", async () => {
      const out = await output("seccomp-default", pod("seccomp-default", SECCOMP_LINE, { sc: "{ seccompProfile: { type: RuntimeDefault } }" }));
      expect(seccompMode(out)).toBe("2");
      await remove("seccomp-default");
    }, 120_000);

    test("seccompProfile Unconfined on the container wins over the pod's RuntimeDefault (Seccomp: 0); unset is Unconfined", async () => {
      const out = await output(
        "seccomp-unconfined",
        pod("seccomp-unconfined", SECCOMP_LINE, { podSc: "{ seccompProfile: { type: RuntimeDefault } }", sc: "{ seccompProfile: { type: Unconfined } }" }),
      );
      expect(seccompMode(out)).toBe("0");
      await remove("seccomp-unconfined");
      const unset = await output("seccomp-unset", pod("seccomp-unset", SECCOMP_LINE));
      expect(seccompMode(unset)).toBe("0");
      await remove("seccomp-unset");
    }, 120_000);

    test("seccompProfile Localhost: the profile in <root-dir>/seccomp is applied (mkdir refused)", async () => {
      const dir = join(agent.dir, "root", "seccomp", "profiles");
      mkdirSync(dir, { recursive: true });
      writeFileSync(
        join(dir, "no-mkdir.json"),
        JSON.stringify({
          defaultAction: "SCMP_ACT_ALLOW",
          syscalls: [{ names: ["mkdir", "mkdirat"], action: "SCMP_ACT_ERRNO" }],
        }),
      );
      const out = await output(
        "seccomp-local",
        pod("seccomp-local", `${SECCOMP_LINE}; mkdir /tmp/x && echo made || echo refused`, {
          sc: "{ seccompProfile: { type: Localhost, localhostProfile: profiles/no-mkdir.json } }",
        }),
      );
      expect(seccompMode(out)).toBe("2");
      expect(out).toContain("refused");
      expect(out).not.toContain("made");
      await remove("seccomp-local");
    }, 120_000);

    test("procMount Default: the kubelet's masked paths are covered and its read-only paths are read-only", async () => {
      // Only the paths this kernel has (this VM's has no /proc/kcore nor /proc/sysrq-trigger): runc skips the others.
      const masked = DEFAULT_MASKED_PATHS.filter((p) => existsSync(p));
      const readonly = DEFAULT_READONLY_PATHS.filter((p) => existsSync(p));
      expect(masked).toContain("/proc/keys");
      expect(readonly).toContain("/proc/sys");
      const script = `awk '$5 ~ /^\\/(proc|sys)\\// {print "mount", $5, $6}' /proc/self/mountinfo`;
      const out = await output("procmount", pod("procmount", script, { sc: "{ procMount: Default }" }));
      const mounts = new Map([...out.matchAll(/^mount (\S+) (\S+)$/gm)].map((m) => [m[1]!, m[2]!.split(",")]));
      for (const p of masked) expect({ p, mounted: mounts.has(p) }).toEqual({ p, mounted: true });
      for (const p of readonly) expect({ p, options: mounts.get(p)?.includes("ro") }).toEqual({ p, options: true });
      await remove("procmount");
    }, 120_000);

    test("procMount Unmasked is refused by validation (it needs hostUsers: false)", async () => {
      const r = await agent.fetch("/pods", {
        method: "POST",
        headers: { "content-type": "application/yaml" },
        body: pod("unmasked", "true", { sc: "{ procMount: Unmasked }" }),
      });
      expect(r.status).toBe(422);
      expect(((await r.json()) as { message: string }).message).toContain(
        'spec.containers[0].securityContext.procMount: Invalid value: "Unmasked": `hostUsers` must be false to use `Unmasked`',
      );
      expect(await agent.pod("unmasked")).toBeUndefined();
    }, 60_000);

    if (hostHasAppArmor()) {
      test("appArmorProfile RuntimeDefault on a host with AppArmor: the container is confined", async () => {
        const out = await output("apparmor", pod("apparmor", "cat /proc/self/attr/current; echo", { sc: "{ appArmorProfile: { type: RuntimeDefault } }" }));
        expect(out).not.toContain("unconfined");
        await remove("apparmor");
      }, 120_000);
    } else {
      for (const [what, o] of [
        ["appArmorProfile RuntimeDefault", { sc: "{ appArmorProfile: { type: RuntimeDefault } }" }],
        ["the pod's appArmorProfile Localhost", { podSc: "{ appArmorProfile: { type: Localhost, localhostProfile: k8s-deny-write } }" }],
        ["the annotation runtime/default", { annotations: "{ container.apparmor.security.beta.kubernetes.io/main: runtime/default }" }],
      ] as const) {
        test(`${what} on a host without AppArmor: Failed with reason AppArmor at admission, no sandbox`, async () => {
          agent.writeManifest("apparmor.yaml", pod("apparmor", "true", o));
          const p: Pod = await agent.waitPod("apparmor", "Failed", (x) => x.status?.phase === "Failed", 60_000);
          expect(p.status!.reason).toBe("AppArmor");
          expect(p.status!.message).toBe("Pod was rejected: Cannot enforce AppArmor: AppArmor is not enabled on the host");
          expect(await node.client.listPodSandbox({ labelSelector: { [POD_UID]: p.metadata!.uid! } })).toHaveLength(0);
          await remove("apparmor");
        }, 90_000);
      }
    }

    test("appArmorProfile Unconfined runs on any host", async () => {
      const out = await output("apparmor-off", pod("apparmor-off", "echo ran", { sc: "{ appArmorProfile: { type: Unconfined } }" }));
      expect(out).toContain("ran");
      await remove("apparmor-off");
    }, 120_000);
  });
}
