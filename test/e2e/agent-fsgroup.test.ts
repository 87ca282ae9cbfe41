// fsGroup on real containerd 1.6 and 1.7, through the compiled binary, as the upstream [NodeConformance]
// tests of configMap, secret, projected and emptyDir volumes check it: a container running as uid 1000
// in a pod with fsGroup 1001 has 1001 among its groups (`id -G`), reads the configMap, secret and
// projected files made 0440 by defaultMode (group 1001), writes into an emptyDir subPath that did not
// exist (made with the volume's mode: setgid, sticky on tmpfs, group 1001), and fsGroupChangePolicy
// OnRootMismatch changes nothing for these volume types (the kubelet gives them no policy). A pod
// asking for supplementalGroupsPolicy Strict is refused (SupplementalGroupsPolicyNotSupported):
// containerd 1.6 and 1.7 report no such feature, and running it as Merge would hand it the image's groups.
import { beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NODE_NAME, useAgent, type TestAgent } from "./agent-harness";
import { eventually } from "./proc";

const OBJECTS = `apiVersion: v1
kind: ConfigMap
metadata: { name: cfg, namespace: default }
data: { data-1: value-1 }
---
apiVersion: v1
kind: Secret
metadata: { name: creds, namespace: default }
stringData: { data-1: value-1 }
`;

/** What the container prints: one `key=value` line each, checked by the test. */
const REPORT = [
  'echo "groups=$(id -G)"',
  "echo \"cm=$(cat /etc/cm/data-1) $(stat -L -c '%a %g' /etc/cm/data-1)\"",
  "echo \"sec=$(cat /etc/sec/data-1) $(stat -L -c '%a %g' /etc/sec/data-1)\"",
  "echo \"proj=$(cat /etc/proj/data-1) $(cat /etc/proj/podname) $(stat -L -c '%a %g' /etc/proj/podname)\"",
  "echo \"sub=$(stat -c '%A %u %g' /sub)\"",
  "echo written > /sub/new && echo \"subwrite=$(cat /sub/new) $(stat -c '%g' /sub/new)\"",
  "echo \"disk=$(stat -c '%A %g' /disk)\"",
  "echo hi > /disk/f && echo \"diskwrite=$(stat -c '%g' /disk/f)\"",
].join("; ");

const FSGROUP_POD = `apiVersion: v1
kind: Pod
metadata:
  name: fsgroup
spec:
  terminationGracePeriodSeconds: 1
  restartPolicy: Never
  securityContext:
    runAsUser: 1000
    fsGroup: 1001
    fsGroupChangePolicy: OnRootMismatch
  containers:
    - name: main
      image: localhost/nodeagent/busybox:1.35
      command: ["sh", "-c", ${JSON.stringify(REPORT)}]
      volumeMounts:
        - { name: cm, mountPath: /etc/cm }
        - { name: sec, mountPath: /etc/sec }
        - { name: proj, mountPath: /etc/proj }
        - { name: scratch, mountPath: /sub, subPath: test-sub }
        - { name: disk, mountPath: /disk }
  volumes:
    - name: cm
      configMap: { name: cfg, defaultMode: 0440 }
    - name: sec
      secret: { secretName: creds, defaultMode: 0440 }
    - name: proj
      projected:
        defaultMode: 0440
        sources:
          - configMap: { name: cfg }
          - downwardAPI: { items: [{ path: podname, fieldRef: { fieldPath: metadata.name } }] }
    - name: scratch
      emptyDir: { medium: Memory }
    - name: disk
      emptyDir: {}
`;

const STRICT_POD = `apiVersion: v1
kind: Pod
metadata:
  name: strict
spec:
  terminationGracePeriodSeconds: 1
  restartPolicy: Never
  securityContext:
    runAsUser: 1000
    fsGroup: 1001
    supplementalGroupsPolicy: Strict
  containers:
    - name: main
      image: localhost/nodeagent/busybox:1.35
      command: ["sh", "-c", "id -G"]
`;

for (const version of ["1.6", "1.7"] as const) {
  describe(`fsGroup on containerd ${version}`, () => {
    const env = useAgent(version, () => {
      const dir = mkdtempSync(join(tmpdir(), "nodeagent-e2e-fsgroup-objects-"));
      writeFileSync(join(dir, "objects.yaml"), OBJECTS);
      return ["--local-objects", dir];
    });
    let agent: TestAgent;
    beforeAll(() => {
      agent = env.agent();
    });

    test("uid 1000 with fsGroup 1001: in group 1001, reads 0440 configMap/secret/projected files, writes into a new emptyDir subPath", async () => {
      agent.writeManifest("fsgroup.yaml", FSGROUP_POD);
      const p = await agent.waitPod("fsgroup", "finished", (x) => x.status?.phase === "Succeeded" || x.status?.phase === "Failed", 90_000);
      const r = await agent.fetch(`/containerLogs/default/fsgroup-${NODE_NAME}/main`);
      const log = await r.text();
      const line = (key: string) =>
        log
          .split("\n")
          .find((l) => l.startsWith(`${key}=`))
          ?.slice(key.length + 1);
      expect({ phase: p.status?.phase, log }).toMatchObject({ phase: "Succeeded" });
      expect(line("groups")!.split(" ")).toContain("1001");
      expect(line("cm")).toBe("value-1 440 1001");
      expect(line("sec")).toBe("value-1 440 1001");
      expect(line("proj")).toBe(`value-1 fsgroup-${NODE_NAME} 440 1001`);
      // The subPath made with the tmpfs root's mode after fsGroup: 1777 | setgid, group 1001, owner root
      // (upstream: "perms -rwxrwxrwx", "owner GID 123", "mode dgtrwxrwxrwx").
      expect(line("sub")).toBe("drwxrwsrwt 0 1001");
      expect(line("subwrite")).toBe("written 1001");
      expect(line("disk")).toBe("drwxrwsrwx 1001");
      expect(line("diskwrite")).toBe("1001");
      agent.removeManifest("fsgroup.yaml");
      await eventually("the pod to leave /pods", async () => !(await agent.pod("fsgroup")), 30_000);
    }, 120_000);

    test("supplementalGroupsPolicy Strict: refused at admission, the runtime cannot do it", async () => {
      agent.writeManifest("strict.yaml", STRICT_POD);
      const p = await agent.waitPod("strict", "refused", (x) => x.status?.phase === "Failed", 30_000);
      expect(p.status).toMatchObject({
        reason: "SupplementalGroupsPolicyNotSupported",
        message: "Pod was rejected: SupplementalGroupsPolicy=Strict is not supported in this node",
      });
      expect(p.status?.containerStatuses?.some((c) => c.state?.running || c.state?.terminated?.exitCode === 0) ?? false).toBe(false);
      agent.removeManifest("strict.yaml");
      await eventually("the pod to leave /pods", async () => !(await agent.pod("strict")), 30_000);
    }, 60_000);
  });
}
