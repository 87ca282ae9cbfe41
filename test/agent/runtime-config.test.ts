import { expect, test } from "bun:test";
import type { Pod } from "kubernetes-types/core/v1";
import { expandVars } from "../../src/api/expansion";
import { containerConfig, containerEnv, linuxResources, sandboxConfig, type RuntimeConfigOptions } from "../../src/agent/runtime-config";
import { CONTAINER_HASH, CONTAINER_RESTART_COUNT, containerHash } from "../../src/agent/labels";

const o: RuntimeConfigOptions = {
  podLogsRoot: "/var/log/pods",
  podsDir: "/var/lib/nodeagent/pods",
  cgroupRoot: "/nodeagent",
  nodeName: "node1",
  hostIP: "192.0.2.10",
};
const pod = (): Pod => ({
  metadata: { name: "web-node1", namespace: "prod", uid: "u-1", labels: { app: "web" } },
  spec: {
    nodeName: "node1",
    containers: [
      {
        name: "app",
        image: "localhost/nodeagent/busybox:1.35",
        command: ["sh", "-c", "echo $(GREETING)"],
        args: ["$(POD)", "$$(POD)", "$(MISSING)"],
        env: [
          { name: "POD", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
          { name: "GREETING", value: "hello $(POD)" },
          { name: "IP", valueFrom: { fieldRef: { fieldPath: "status.podIP" } } },
          { name: "APP", valueFrom: { fieldRef: { fieldPath: "metadata.labels['app']" } } },
          { name: "MEM", valueFrom: { resourceFieldRef: { resource: "limits.memory", divisor: "1Mi" } } },
        ],
        ports: [{ containerPort: 8080, hostPort: 18080 }],
        resources: { requests: { cpu: "250m" }, limits: { cpu: "500m", memory: "64Mi" } },
        securityContext: {
          runAsUser: 1000,
          readOnlyRootFilesystem: true,
          allowPrivilegeEscalation: false,
          capabilities: { add: ["NET_ADMIN"], drop: ["ALL"] },
        },
        volumeMounts: [
          { name: "data", mountPath: "/data" },
          { name: "host", mountPath: "/host", readOnly: true },
        ],
      },
    ],
    volumes: [
      { name: "data", emptyDir: {} },
      { name: "host", hostPath: { path: "/etc/hosts" } },
    ],
  },
});

test("sandbox: metadata, kubelet labels, log dir, cgroup parent, ports, namespaces", () => {
  const s = sandboxConfig(pod(), 2, o);
  expect(s.metadata).toEqual({ name: "web-node1", namespace: "prod", uid: "u-1", attempt: 2 });
  expect(s.hostname).toBe("web-node1");
  expect(s.logDirectory).toBe("/var/log/pods/prod_web-node1_u-1");
  expect(s.labels).toMatchObject({ app: "web", "io.kubernetes.pod.name": "web-node1", "io.kubernetes.pod.namespace": "prod", "io.kubernetes.pod.uid": "u-1" });
  expect(s.linux!.cgroupParent).toBe("/nodeagent/podu-1");
  expect(s.portMappings).toEqual([{ protocol: "TCP", containerPort: 8080, hostPort: 18080, hostIp: "" }]);
  expect(s.linux!.securityContext!.namespaceOptions).toEqual({ network: "POD", pid: "CONTAINER", ipc: "POD" });
});

test("a host-network sandbox sets no hostname", () => {
  const p = pod();
  p.spec!.hostNetwork = true;
  const s = sandboxConfig(p, 0, o);
  expect(s.hostname).toBe("");
  expect(s.linux!.securityContext!.namespaceOptions!.network).toBe("NODE");
});

test("env: downward API, resource fields and $(VAR) expansion in order", () => {
  expect(containerEnv(pod(), pod().spec!.containers[0]!, o, "10.88.0.7")).toEqual([
    { key: "POD", value: "web-node1" },
    { key: "GREETING", value: "hello web-node1" },
    { key: "IP", value: "10.88.0.7" },
    { key: "APP", value: "web" },
    { key: "MEM", value: "64" },
  ]);
  expect(expandVars("$(A) $$(A) $(B)", new Map([["A", "x"]]))).toBe("x $(A) $(B)");
});

test("container: a volumeMount whose volume was not made is an error, never dropped", () => {
  const p = pod();
  expect(() =>
    containerConfig({
      pod: p,
      container: p.spec!.containers[0]!,
      init: false,
      restartCount: 0,
      podIP: "",
      imageRef: "x",
      options: o,
      volumePath: () => undefined,
    }),
  ).toThrow('volumeMount "data" of container "app" names no volume the pod has made');
});

test("container: mountPropagation as the kubelet's translateMountPropagation, never dropped to private", () => {
  const p = pod();
  const c = p.spec!.containers[0]!;
  c.securityContext = { privileged: true };
  c.volumeMounts = [
    { name: "data", mountPath: "/a" },
    { name: "data", mountPath: "/b", mountPropagation: "None" },
    { name: "data", mountPath: "/c", mountPropagation: "HostToContainer" },
    { name: "data", mountPath: "/d", mountPropagation: "Bidirectional" },
  ];
  const cfg = containerConfig({ pod: p, container: c, init: false, restartCount: 0, podIP: "", imageRef: "x", options: o, volumePath: (name) => `/v/${name}` });
  expect(cfg.mounts!.slice(0, 4).map((m) => m.propagation)).toEqual([
    "PROPAGATION_PRIVATE",
    "PROPAGATION_PRIVATE",
    "PROPAGATION_HOST_TO_CONTAINER",
    "PROPAGATION_BIDIRECTIONAL",
  ]);
});

test("container: recursiveReadOnly Enabled is refused (containerd 1.6/1.7 cannot), IfPossible is a plain read-only mount", () => {
  const p = pod();
  const c = p.spec!.containers[0]!;
  c.volumeMounts = [{ name: "data", mountPath: "/a", readOnly: true, recursiveReadOnly: "IfPossible" }];
  const cfg = containerConfig({ pod: p, container: c, init: false, restartCount: 0, podIP: "", imageRef: "x", options: o, volumePath: (name) => `/v/${name}` });
  expect(cfg.mounts![0]).toMatchObject({ containerPath: "/a", readonly: true });
  c.volumeMounts = [{ name: "data", mountPath: "/a", readOnly: true, recursiveReadOnly: "Enabled" }];
  expect(() =>
    containerConfig({ pod: p, container: c, init: false, restartCount: 0, podIP: "", imageRef: "x", options: o, volumePath: (name) => `/v/${name}` }),
  ).toThrow('failed to resolve recursive read-only mode: volume "data" requested recursive read-only mode, but it is not supported by the runtime');
});

test("container: command and args expanded, mounts, labels, hash and restart count, log path", () => {
  const p = pod();
  const volumePath = (name: string, subPath: string) =>
    ({ data: "/var/lib/nodeagent/pods/u-1/volumes/kubernetes.io~empty-dir/data", host: "/etc/hosts" })[name] + (subPath ? `/${subPath}` : "");
  const c = containerConfig({
    pod: p,
    container: p.spec!.containers[0]!,
    init: false,
    restartCount: 3,
    podIP: "10.88.0.7",
    imageRef: "sha256:abc",
    options: o,
    volumePath,
  });
  expect(c.command).toEqual(["sh", "-c", "echo hello web-node1"]);
  expect(c.args).toEqual(["web-node1", "$(POD)", "$(MISSING)"]);
  expect(c.image).toEqual({ image: "sha256:abc" });
  expect(c.logPath).toBe("app/3.log");
  expect(c.mounts!.slice(0, 2)).toEqual([
    {
      containerPath: "/data",
      hostPath: "/var/lib/nodeagent/pods/u-1/volumes/kubernetes.io~empty-dir/data",
      readonly: false,
      propagation: "PROPAGATION_PRIVATE",
    },
    { containerPath: "/host", hostPath: "/etc/hosts", readonly: true, propagation: "PROPAGATION_PRIVATE" },
  ]);
  expect(c.labels).toMatchObject({ "io.kubernetes.container.name": "app", "io.kubernetes.pod.uid": "u-1" });
  expect(c.annotations![CONTAINER_HASH]).toBe(containerHash(p.spec!.containers[0]!));
  expect(c.annotations![CONTAINER_RESTART_COUNT]).toBe("3");
  const sc = c.linux!.securityContext!;
  expect(sc.runAsUser).toEqual({ value: 1000 });
  expect(sc.readonlyRootfs).toBe(true);
  expect(sc.noNewPrivs).toBe(true);
  expect(sc.capabilities).toEqual({ addCapabilities: ["NET_ADMIN"], dropCapabilities: ["ALL"] });
});

test("resources → cgroup values as the kubelet computes them", () => {
  const GiB = 2 ** 30;
  const p = pod();
  // Burstable: the memory request (defaulted to the 64Mi limit) is 64Mi of 16Gi → 1000 − 3.
  expect(linuxResources(p, p.spec!.containers[0]!, 16 * GiB)).toEqual({
    cpuShares: 256,
    cpuPeriod: 100000,
    cpuQuota: 50000,
    memoryLimitInBytes: 67108864,
    oomScoreAdj: 997,
  });
  // The period is always sent (cpuCFSQuota on), the quota only with a limit.
  const bestEffort = { name: "x" };
  expect(linuxResources({ spec: { containers: [bestEffort] } }, bestEffort, 16 * GiB)).toEqual({
    cpuShares: 2,
    cpuPeriod: 100000,
    cpuQuota: 0,
    memoryLimitInBytes: 0,
    oomScoreAdj: 1000,
  });
  const g = { name: "g", resources: { limits: { cpu: "1", memory: "1Gi" } } };
  expect(linuxResources({ spec: { containers: [g] } }, g, 16 * GiB)).toEqual({
    cpuShares: 1024,
    cpuPeriod: 100000,
    cpuQuota: 100000,
    memoryLimitInBytes: GiB,
    oomScoreAdj: -997,
  });
  // Only a limit: the shares follow it; more than 256 cpus is capped at the kernel's maximum.
  const big = { name: "b", resources: { limits: { cpu: "300" } } };
  expect(linuxResources({ spec: { containers: [big] } }, big, 16 * GiB).cpuShares).toBe(262144);
});

test("the spec hash ignores probes and resources, and changes with the command", () => {
  const c = pod().spec!.containers[0]!;
  const h = containerHash(c);
  expect(containerHash({ ...c, resources: {}, readinessProbe: { exec: { command: ["true"] } } })).toBe(h);
  expect(containerHash({ ...c, command: ["sh"] })).not.toBe(h);
});

test("container: configMap, secret, downwardAPI and projected mounts are read-only whatever the volumeMount says; emptyDir as written", () => {
  const p = pod();
  p.spec!.volumes = [
    { name: "cm", configMap: { name: "c" } },
    { name: "sec", secret: { secretName: "s" } },
    { name: "info", downwardAPI: { items: [] } },
    { name: "token", projected: { sources: [] } },
    { name: "data", emptyDir: {} },
  ];
  const c = {
    ...p.spec!.containers[0]!,
    volumeMounts: ["cm", "sec", "info", "token", "data"].map((name) => ({ name, mountPath: `/m/${name}`, readOnly: false })),
  };
  const cfg = containerConfig({ pod: p, container: c, init: false, restartCount: 0, podIP: "", imageRef: "x", options: o, volumePath: (name) => `/v/${name}` });
  expect(cfg.mounts!.filter((m) => (m.containerPath ?? "").startsWith("/m/")).map((m) => [m.containerPath, m.readonly])).toEqual([
    ["/m/cm", true],
    ["/m/sec", true],
    ["/m/info", true],
    ["/m/token", true],
    ["/m/data", false],
  ]);
});

test("fsGroup joins the supplementary groups, first, in the sandbox and every container; supplementalGroupsPolicy passed only when set", () => {
  const p = pod();
  p.spec!.securityContext = { fsGroup: 1001, supplementalGroups: [5000, 5001] };
  const cfg = (q: Pod) =>
    containerConfig({
      pod: q,
      container: q.spec!.containers[0]!,
      init: false,
      restartCount: 0,
      podIP: "",
      imageRef: "x",
      options: o,
      volumePath: (n) => `/v/${n}`,
    });
  expect(cfg(p).linux!.securityContext!.supplementalGroups).toEqual([1001, 5000, 5001]);
  expect(sandboxConfig(p, 0, o).linux!.securityContext!.supplementalGroups).toEqual([1001, 5000, 5001]);
  expect(cfg(p).linux!.securityContext!.supplementalGroupsPolicy).toBeUndefined();
  expect(sandboxConfig(p, 0, o).linux!.securityContext!.supplementalGroupsPolicy).toBeUndefined();
  // fsGroup alone; neither: no groups.
  p.spec!.securityContext = { fsGroup: 123 };
  expect(cfg(p).linux!.securityContext!.supplementalGroups).toEqual([123]);
  p.spec!.securityContext = {};
  expect(cfg(p).linux!.securityContext!.supplementalGroups).toEqual([]);
  for (const policy of ["Merge", "Strict"]) {
    p.spec!.securityContext = { fsGroup: 123, supplementalGroupsPolicy: policy } as NonNullable<Pod["spec"]>["securityContext"];
    expect(cfg(p).linux!.securityContext!.supplementalGroupsPolicy).toBe(policy as "Merge");
    expect(sandboxConfig(p, 0, o).linux!.securityContext!.supplementalGroupsPolicy).toBe(policy as "Merge");
  }
  p.spec!.securityContext = { supplementalGroupsPolicy: "Loose" } as NonNullable<Pod["spec"]>["securityContext"];
  expect(() => sandboxConfig(p, 0, o)).toThrow("unsupported supplementalGroupsPolicy: Loose");
});
