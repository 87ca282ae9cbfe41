// The kubelet-managed /etc/hosts through dist/nodeagent on containerd 1.6 and 1.7 (issue 26; upstream's
// [NodeConformance] "KubeletManagedEtcHosts" and the two hostAliases tests of kubelet.go):
// - a pod on the bridge network sees, in its init and app containers, the managed file: the header,
//   the localhost lines, its IP with "<hostname>.<subdomain>.<namespace>.svc.cluster.local" and the
//   hostname, then its hostAliases; with setHostnameAsFQDN its hostname is the FQDN;
// - a host-network pod sees the node's /etc/hosts under the host-network header, then its hostAliases;
// - a container that mounts its own file at /etc/hosts keeps it, while its neighbour gets the managed one.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NODE_NAME, running, useAgent, type TestAgent } from "./agent-harness";
import { eventually } from "./proc";

const BUSYBOX = "localhost/nodeagent/busybox:1.35";
const END = "=== end";

const LOCAL =
  "# Kubernetes-managed hosts file.\n" +
  "127.0.0.1\tlocalhost\n" +
  "::1\tlocalhost ip6-localhost ip6-loopback\n" +
  "fe00::0\tip6-localnet\n" +
  "fe00::0\tip6-mcastprefix\n" +
  "fe00::1\tip6-allnodes\n" +
  "fe00::2\tip6-allrouters\n";
const ALIASES = "\n# Entries added by HostAliases.\n123.45.67.89\tfoo\tbar\n10.0.0.1\tdb\n";

const bridgePod = `apiVersion: v1
kind: Pod
metadata:
  name: fqdn
spec:
  terminationGracePeriodSeconds: 1
  hostname: web
  subdomain: db
  setHostnameAsFQDN: true
  hostAliases:
    - { ip: 123.45.67.89, hostnames: [foo, bar] }
    - { ip: 10.0.0.1, hostnames: [db] }
  initContainers:
    - name: init
      image: ${BUSYBOX}
      command: ["sh", "-c", "cat /etc/hosts > /work/init-hosts"]
      volumeMounts: [{ name: work, mountPath: /work }]
  containers:
    - name: main
      image: ${BUSYBOX}
      command: ["sh", "-c", "cat /etc/hosts; echo '=== init'; cat /work/init-hosts; echo '=== hostname'; hostname; echo '${END}'; sleep 3600"]
      volumeMounts: [{ name: work, mountPath: /work }]
  volumes: [{ name: work, emptyDir: {} }]
`;

const hostNetworkPod = `apiVersion: v1
kind: Pod
metadata:
  name: hostnet
spec:
  terminationGracePeriodSeconds: 1
  hostNetwork: true
  hostAliases:
    - { ip: 123.45.67.89, hostnames: [foo, bar] }
    - { ip: 10.0.0.1, hostnames: [db] }
  containers:
    - name: main
      image: ${BUSYBOX}
      command: ["sh", "-c", "cat /etc/hosts; echo '${END}'; sleep 3600"]
`;

const ownHostsPod = (file: string) => `apiVersion: v1
kind: Pod
metadata:
  name: own
spec:
  terminationGracePeriodSeconds: 1
  containers:
    - name: managed
      image: ${BUSYBOX}
      command: ["sh", "-c", "cat /etc/hosts; echo '${END}'; sleep 3600"]
    - name: main
      image: ${BUSYBOX}
      command: ["sh", "-c", "cat /etc/hosts; echo '${END}'; sleep 3600"]
      volumeMounts: [{ name: hosts, mountPath: /etc/hosts }]
  volumes: [{ name: hosts, hostPath: { path: ${file}, type: File } }]
`;

for (const version of ["1.6", "1.7"] as const) {
  describe(`the managed /etc/hosts on containerd ${version}`, () => {
    const env = useAgent(version);
    let agent: TestAgent;
    let scratch: string;
    beforeAll(() => {
      agent = env.agent();
      scratch = mkdtempSync(join(tmpdir(), "nodeagent-e2e-etc-hosts-"));
    });
    afterAll(() => rmSync(scratch, { recursive: true, force: true }));

    /** The container's log once it has printed everything, up to the end marker. */
    const output = async (pod: string, container = "main") =>
      eventually(`${pod}/${container}'s output`, async () => {
        const r = await agent.fetch(`/containerLogs/default/${pod}-${NODE_NAME}/${container}`);
        const text = r.ok ? await r.text() : "";
        return text.includes(`${END}\n`) ? text.slice(0, text.indexOf(`${END}\n`)) : undefined;
      });
    const remove = async (name: string) => {
      agent.removeManifest(`${name}.yaml`);
      await eventually(`pod ${name} to leave /pods`, async () => !(await agent.pod(name)), 30_000);
    };

    test("a bridge-network pod: its IP, FQDN and hostname, then its hostAliases, in init and app containers; the hostname is the FQDN", async () => {
      agent.writeManifest("fqdn.yaml", bridgePod);
      const p = await agent.waitPod("fqdn", "running", running, 60_000);
      const ip = p.status!.podIP!;
      expect(ip).toMatch(/^10\.\d+\.\d+\.\d+$/);
      const managed = `${LOCAL}${ip}\tweb.db.default.svc.cluster.local\tweb\n${ALIASES}`;
      expect(await output("fqdn")).toBe(`${managed}=== init\n${managed}=== hostname\nweb.db.default.svc.cluster.local\n`);
      await remove("fqdn");
    }, 120_000);

    test("a host-network pod: the node's /etc/hosts under the host-network header, then its hostAliases", async () => {
      agent.writeManifest("hostnet.yaml", hostNetworkPod);
      await agent.waitPod("hostnet", "running", running, 60_000);
      expect(await output("hostnet")).toBe(`# Kubernetes-managed hosts file (host network).\n${readFileSync("/etc/hosts", "utf8")}${ALIASES}`);
      await remove("hostnet");
    }, 120_000);

    test("a container that mounts its own /etc/hosts keeps it; its neighbour gets the managed file", async () => {
      const file = join(scratch, "own-hosts");
      writeFileSync(file, "# the container's own hosts file\n192.0.2.99\town-name\n");
      agent.writeManifest("own.yaml", ownHostsPod(file));
      const p = await agent.waitPod("own", "running", running, 60_000);
      expect(await output("own")).toBe("# the container's own hosts file\n192.0.2.99\town-name\n");
      expect(await output("own", "managed")).toBe(`${LOCAL}${p.status!.podIP}\town-${NODE_NAME}\n`);
      await remove("own");
    }, 120_000);
  });
}
