// resolveAgentConfig, subsystem by subsystem: eviction, cgroups, sysctls, garbage collection and log
// rotation, graceful node shutdown — the kubelet's defaults, flags over file fields, the mistakes.
import { afterAll, describe, expect, test } from "bun:test";
import { kubeletConfigz } from "../../src/agent/configz";
import { agentConfigFixture, errorOf } from "./agent-config-fixture";

const { kubeadm, resolve, cleanup } = agentConfigFixture();
afterAll(cleanup);

describe("eviction settings", () => {
  test("the kubelet's defaults: four hard thresholds, a 5m transition period, soft grace cap 0", () => {
    const c = resolve({});
    expect(c.eviction.thresholds.map((t) => t.signal)).toEqual(["memory.available", "nodefs.available", "nodefs.inodesFree", "imagefs.available"]);
    expect(c.eviction.thresholds.every((t) => t.gracePeriodMs === 0)).toBe(true);
    expect(c.eviction.pressureTransitionPeriodMs).toBe(300_000);
    expect(c.eviction.maxPodGracePeriodSeconds).toBe(0);
  });

  test("a given --eviction-hard replaces the whole default map; an empty one leaves no threshold", () => {
    expect(resolve({ "eviction-hard": "memory.available<1Gi" }).eviction.thresholds).toEqual([
      { signal: "memory.available", value: { quantity: 2 ** 30 }, gracePeriodMs: 0 },
    ]);
    expect(resolve({ "eviction-hard": "" }).eviction.thresholds).toEqual([]);
  });

  test("soft thresholds with their grace periods, minimum reclaim, transition period and grace cap from flags", () => {
    const c = resolve({
      "eviction-soft": "memory.available<2Gi",
      "eviction-soft-grace-period": "memory.available=1m",
      "eviction-minimum-reclaim": "memory.available=256Mi",
      "eviction-pressure-transition-period": "30s",
      "eviction-max-pod-grace-period": "-1",
    });
    expect(c.eviction.thresholds.find((t) => t.gracePeriodMs > 0)).toEqual({
      signal: "memory.available",
      value: { quantity: 2 * 2 ** 30 },
      gracePeriodMs: 60_000,
      minReclaim: { quantity: 256 * 2 ** 20 },
    });
    expect(c.eviction.pressureTransitionPeriodMs).toBe(30_000);
    expect(c.eviction.maxPodGracePeriodSeconds).toBe(-1);
  });

  test("the KubeletConfiguration fields, a flag winning over its field", () => {
    const text = `apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
evictionHard: {memory.available: 300Mi}
evictionSoft: {nodefs.available: 20%}
evictionSoftGracePeriod: {nodefs.available: 2m}
evictionMinimumReclaim: {nodefs.available: 1Gi}
evictionPressureTransitionPeriod: 1m
evictionMaxPodGracePeriod: 60
`;
    const c = resolve({}, text);
    expect(c.eviction.thresholds).toEqual([
      { signal: "memory.available", value: { quantity: 300 * 2 ** 20 }, gracePeriodMs: 0 },
      { signal: "nodefs.available", value: { percentage: Math.fround(0.2) }, gracePeriodMs: 120_000, minReclaim: { quantity: 2 ** 30 } },
    ]);
    expect(c.eviction.pressureTransitionPeriodMs).toBe(60_000);
    expect(c.eviction.maxPodGracePeriodSeconds).toBe(60);
    expect(c.warnings).toEqual([]);
    expect(resolve({ "eviction-hard": "memory.available<1Gi" }, text).eviction.thresholds[0]!.value).toEqual({ quantity: 2 ** 30 });
    expect(kubeletConfigz(c).kubeletconfig).toMatchObject({
      evictionHard: { "memory.available": "300Mi" },
      evictionSoft: { "nodefs.available": "20%" },
      evictionSoftGracePeriod: { "nodefs.available": "2m" },
      evictionPressureTransitionPeriod: "1m0s",
      evictionMaxPodGracePeriod: 60,
    });
  });

  test("mistakes name the flag or the file's field, and the entry", () => {
    expect(errorOf(() => resolve({ "eviction-hard": "memory.available<1Gi,memory.free<1Gi" })).message).toBe(
      '--eviction-hard: "memory.free<1Gi": unsupported eviction signal memory.free',
    );
    expect(errorOf(() => resolve({ "eviction-hard": "memory.available=1Gi" })).message).toBe(
      '--eviction-hard "memory.available=1Gi": malformed pair "memory.available=1Gi", expect string<string',
    );
    expect(errorOf(() => resolve({ "eviction-soft": "memory.available<1Gi" })).message).toBe(
      '--eviction-soft: "memory.available": grace period must be specified for the soft eviction threshold memory.available',
    );
    expect(errorOf(() => resolve({ "eviction-minimum-reclaim": "nodefs.available=-1Gi" })).message).toBe(
      '--eviction-minimum-reclaim: "nodefs.available=-1Gi": negative eviction minimum reclaim specified for nodefs.available',
    );
    expect(errorOf(() => resolve({ "eviction-pressure-transition-period": "0s" })).message).toBe(
      '--eviction-pressure-transition-period "0s": must be longer than 0',
    );
    expect(errorOf(() => resolve({ "eviction-max-pod-grace-period": "1m" })).message).toContain("--eviction-max-pod-grace-period");
    const file = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nevictionHard:\n  nodefs.available: 150%\n";
    expect(errorOf(() => resolve({}, file)).message).toBe(
      '/var/lib/kubelet/config.yaml:3:1: evictionHard: "nodefs.available<150%": eviction percentage threshold nodefs.available must be <= 100%: 150%',
    );
  });
});

describe("the node's cgroups: --cgroup-driver, --cgroups-per-qos, --enforce-node-allocatable", () => {
  test("the kubelet's defaults: cgroupfs, the QoS hierarchy, pods enforced; kube- and system-reserved kept apart", () => {
    const c = resolve({ "kube-reserved": "cpu=500m,memory=1Gi", "system-reserved": "memory=512Mi" });
    expect(c.cgroups).toEqual({ driver: "cgroupfs", perQOS: true, enforceNodeAllocatable: ["pods"] });
    expect(c.node.kubeReserved).toEqual({ cpu: "500m", memory: String(2 ** 30) });
    expect(c.node.systemReserved).toEqual({ memory: String(2 ** 29) });
    expect(c.node.reserved).toEqual({ cpu: "500m", memory: String(2 ** 30 + 2 ** 29) });
  });

  test("flags: systemd, the flat layout with nothing enforced, the reserved cgroups", () => {
    expect(resolve({ "cgroup-driver": "systemd" }).cgroups.driver).toBe("systemd");
    expect(resolve({ "cgroups-per-qos": "false", "enforce-node-allocatable": "" }).cgroups).toEqual({
      driver: "cgroupfs",
      perQOS: false,
      enforceNodeAllocatable: [],
    });
    // As the command line gives a boolean flag (--cgroups-per-qos=false, --no-cgroups-per-qos), as pflag's.
    expect(resolve({ "cgroups-per-qos": false, "enforce-node-allocatable": "" }).cgroups.perQOS).toBe(false);
    expect(resolve({ "enforce-node-allocatable": "none" }).cgroups.enforceNodeAllocatable).toEqual([]);
    const c = resolve({
      "enforce-node-allocatable": "pods,system-reserved,kube-reserved",
      "system-reserved-cgroup": "/system.slice",
      "kube-reserved-cgroup": "/kube.slice",
    });
    expect(c.cgroups).toEqual({
      driver: "cgroupfs",
      perQOS: true,
      enforceNodeAllocatable: ["pods", "system-reserved", "kube-reserved"],
      systemReservedCgroup: "/system.slice",
      kubeReservedCgroup: "/kube.slice",
    });
  });

  test("the file's fields; an explicit false and an explicit empty list are not the defaults", () => {
    const file = (body: string) => `apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n${body}`;
    expect(resolve({}, file("cgroupDriver: systemd\ncgroupsPerQOS: false\nenforceNodeAllocatable: []\n")).cgroups).toEqual({
      driver: "systemd",
      perQOS: false,
      enforceNodeAllocatable: [],
    });
    expect(resolve({}, file("enforceNodeAllocatable: [pods, kube-reserved]\nkubeReservedCgroup: /kube.slice\n")).cgroups).toMatchObject({
      perQOS: true,
      enforceNodeAllocatable: ["pods", "kube-reserved"],
      kubeReservedCgroup: "/kube.slice",
    });
    expect(errorOf(() => resolve({}, file('cgroupsPerQOS: "no"\n'))).message).toContain("cgroupsPerQOS: expected true or false");
  });

  test("mistakes, with what to do", () => {
    expect(errorOf(() => resolve({ "cgroup-driver": "systemD" })).message).toBe(`--cgroup-driver "systemD": use cgroupfs, systemd`);
    expect(errorOf(() => resolve({ "cgroups-per-qos": "yes" })).message).toBe(`--cgroups-per-qos "yes": use true or false`);
    expect(errorOf(() => resolve({ "enforce-node-allocatable": "pods,memory" })).message).toContain(
      `--enforce-node-allocatable "pods,memory": invalid option "memory": valid options are "pods", "system-reserved", "kube-reserved", "none"`,
    );
    expect(errorOf(() => resolve({ "enforce-node-allocatable": "none,pods" })).message).toContain(
      `may not contain additional enforcements when "none" is specified`,
    );
    expect(errorOf(() => resolve({ "cgroups-per-qos": "false" })).message).toBe(
      "--enforce-node-allocatable is not supported unless --cgroups-per-qos is turned on: give --enforce-node-allocatable= (empty) with --cgroups-per-qos=false",
    );
    expect(errorOf(() => resolve({ "enforce-node-allocatable": "pods,system-reserved" })).message).toStartWith(
      `--system-reserved-cgroup must be specified when "system-reserved" is in --enforce-node-allocatable`,
    );
    expect(errorOf(() => resolve({ "enforce-node-allocatable": "kube-reserved" })).message).toStartWith(
      `--kube-reserved-cgroup must be specified when "kube-reserved" is in --enforce-node-allocatable`,
    );
  });
});

describe("--allowed-unsafe-sysctls / allowedUnsafeSysctls", () => {
  test("names and prefixes from the flag or the file, the flag winning; none by default; shown by /configz", () => {
    expect(resolve({}).allowedUnsafeSysctls).toEqual([]);
    expect(resolve({ "allowed-unsafe-sysctls": "kernel.msg*, net.core.somaxconn" }).allowedUnsafeSysctls).toEqual(["kernel.msg*", "net.core.somaxconn"]);
    const text = "kind: KubeletConfiguration\nallowedUnsafeSysctls:\n- net.*\n";
    expect(resolve({}, text).allowedUnsafeSysctls).toEqual(["net.*"]);
    expect(resolve({ "allowed-unsafe-sysctls": "kernel.sem" }, text).allowedUnsafeSysctls).toEqual(["kernel.sem"]);
    expect(kubeletConfigz(resolve({}, text)).kubeletconfig.allowedUnsafeSysctls).toEqual(["net.*"]);
  });

  test("a pattern the kubelet would refuse names the flag or the field", () => {
    expect(errorOf(() => resolve({ "allowed-unsafe-sysctls": "kernel.panic" })).message).toBe(
      `--allowed-unsafe-sysctls "kernel.panic": the sysctl "kernel.panic" are not known to be namespaced`,
    );
    expect(errorOf(() => resolve({}, "allowedUnsafeSysctls:\n- vm.*\n", "/etc/k.yaml")).message).toBe(
      `/etc/k.yaml:1:1: allowedUnsafeSysctls: the sysctls "vm.*" are not known to be namespaced`,
    );
  });
});

describe("garbage collection and log rotation settings", () => {
  test("the kubelet's defaults; kubeadm's imageMinimumGCAge: 0s is its zero value, so the default", () => {
    for (const c of [resolve({}), resolve({}, kubeadm("kubeadm-config.yaml"))]) {
      expect(c.gc).toEqual({
        image: { highThresholdPercent: 85, lowThresholdPercent: 80, minAgeMs: 120_000 },
        imagePeriodMs: 300_000,
        container: { minAgeMs: 0, maxPerPodContainer: 1, maxContainers: -1 },
        containerPeriodMs: 60_000,
        containerLogs: { maxSizeBytes: 10 * 2 ** 20, maxFiles: 5 },
      });
    }
    expect(kubeletConfigz(resolve({})).kubeletconfig).toMatchObject({
      imageGCHighThresholdPercent: 85,
      imageGCLowThresholdPercent: 80,
      imageMinimumGCAge: "2m0s",
      containerLogMaxSize: "10Mi",
      containerLogMaxFiles: 5,
    });
  });

  test("flags, and the KubeletConfiguration fields (a flag wins over the file)", () => {
    const flags = resolve({
      "image-gc-high-threshold": "1",
      "image-gc-low-threshold": "0",
      "minimum-image-ttl-duration": "0s",
      "image-gc-period": "2s",
      "minimum-container-ttl-duration": "30s",
      "maximum-dead-containers-per-container": "2",
      "maximum-dead-containers": "100",
      "container-gc-period": "5s",
      "container-log-max-size": "10Ki",
      "container-log-max-files": "3",
    }).gc;
    expect(flags).toEqual({
      image: { highThresholdPercent: 1, lowThresholdPercent: 0, minAgeMs: 0 },
      imagePeriodMs: 2000,
      container: { minAgeMs: 30_000, maxPerPodContainer: 2, maxContainers: 100 },
      containerPeriodMs: 5000,
      containerLogs: { maxSizeBytes: 10 * 1024, maxFiles: 3 },
    });
    const file =
      "kind: KubeletConfiguration\nimageGCHighThresholdPercent: 90\nimageGCLowThresholdPercent: 70\nimageMinimumGCAge: 5m\ncontainerLogMaxSize: 50Mi\ncontainerLogMaxFiles: 2\n";
    expect(resolve({}, file).gc).toMatchObject({
      image: { highThresholdPercent: 90, lowThresholdPercent: 70, minAgeMs: 300_000 },
      containerLogs: { maxSizeBytes: 50 * 2 ** 20, maxFiles: 2 },
    });
    expect(resolve({ "container-log-max-files": "7" }, file).gc.containerLogs.maxFiles).toBe(7);
  });

  test("mistakes name the flag or the field", () => {
    const msg = (given: Record<string, string>, text?: string) => errorOf(() => resolve(given, text)).message;
    expect(msg({ "image-gc-high-threshold": "101" })).toBe('--image-gc-high-threshold "101": expected a whole number from 0 to 100');
    expect(msg({ "image-gc-low-threshold": "85" })).toBe(
      "--image-gc-low-threshold (imageGCLowThresholdPercent) 85 must be less than --image-gc-high-threshold (imageGCHighThresholdPercent) 85",
    );
    expect(msg({ "container-log-max-files": "1" })).toBe(
      "--container-log-max-files (containerLogMaxFiles) 1 must be greater than 1: the live log and at least one rotated file",
    );
    expect(msg({ "container-log-max-size": "ten" })).toStartWith('--container-log-max-size "ten": ');
    expect(msg({ "container-log-max-size": "0" })).toBe('--container-log-max-size "0": must be greater than 0');
    expect(msg({ "maximum-dead-containers": "-2" })).toBe('--maximum-dead-containers "-2": expected a whole number of at least -1');
    expect(msg({ "minimum-image-ttl-duration": "-1s" })).toStartWith('--minimum-image-ttl-duration "-1s": ');
    expect(msg({}, "kind: KubeletConfiguration\ncontainerLogMaxFiles: many\n")).toStartWith(
      "/var/lib/kubelet/config.yaml:2:1: containerLogMaxFiles: expected a whole number",
    );
  });
});

describe("graceful node shutdown settings", () => {
  const msg = (given: Record<string, string | boolean>, text?: string) => errorOf(() => resolve(given, text)).message;

  test("off by default; --shutdown-grace-period 10s with 4s for critical pods is the kubelet's two groups; SIGTERM leaves pods unless --shutdown-pods", () => {
    expect(resolve({}).shutdown).toEqual({ periods: [], gracePeriodMs: 0, criticalPodsMs: 0, byPodPriority: false, shutdownPods: false });
    const c = resolve({ "shutdown-grace-period": "10s", "shutdown-grace-period-critical-pods": "4s", "shutdown-pods": true });
    expect(c.shutdown).toEqual({
      periods: [
        { priority: 0, shutdownGracePeriodSeconds: 6 },
        { priority: 2_000_000_000, shutdownGracePeriodSeconds: 4 },
      ],
      gracePeriodMs: 10_000,
      criticalPodsMs: 4_000,
      byPodPriority: false,
      shutdownPods: true,
    });
    expect(kubeletConfigz(c).kubeletconfig).toMatchObject({ shutdownGracePeriod: "10s", shutdownGracePeriodCriticalPods: "4s" });
    expect(kubeletConfigz(c).kubeletconfig.shutdownGracePeriodByPodPriority).toBeUndefined();
  });

  test("the KubeletConfiguration fields: the pair (a flag wins), or shutdownGracePeriodByPodPriority", () => {
    const pair = "kind: KubeletConfiguration\nshutdownGracePeriod: 30s\nshutdownGracePeriodCriticalPods: 10s\n";
    expect(resolve({}, pair).shutdown.periods).toEqual([
      { priority: 0, shutdownGracePeriodSeconds: 20 },
      { priority: 2_000_000_000, shutdownGracePeriodSeconds: 10 },
    ]);
    expect(resolve({ "shutdown-grace-period": "60s" }, pair).shutdown.periods[0]).toEqual({ priority: 0, shutdownGracePeriodSeconds: 50 });
    const byPriority =
      "kind: KubeletConfiguration\nshutdownGracePeriodByPodPriority:\n- priority: 100000\n  shutdownGracePeriodSeconds: 20\n- priority: 0\n  shutdownGracePeriodSeconds: 5\n";
    const listed = resolve({}, byPriority);
    expect(listed.shutdown.periods).toEqual([
      { priority: 100_000, shutdownGracePeriodSeconds: 20 },
      { priority: 0, shutdownGracePeriodSeconds: 5 },
    ]);
    expect(kubeletConfigz(listed).kubeletconfig).toMatchObject({ shutdownGracePeriod: "0s", shutdownGracePeriodByPodPriority: listed.shutdown.periods });
    // kubeadm writes the pair at its zero value: off.
    expect(resolve({}, "kind: KubeletConfiguration\nshutdownGracePeriod: 0s\nshutdownGracePeriodCriticalPods: 0s\n").shutdown.periods).toEqual([]);
  });

  test("mistakes, as the kubelet's validation finds them, naming the flag or the field", () => {
    expect(msg({ "shutdown-grace-period": "10s", "shutdown-grace-period-critical-pods": "20s" })).toBe(
      "--shutdown-grace-period-critical-pods (shutdownGracePeriodCriticalPods) 20s must be <= --shutdown-grace-period (shutdownGracePeriod) 10s",
    );
    expect(msg({ "shutdown-grace-period": "500ms" })).toBe('--shutdown-grace-period "500ms": must be either zero or otherwise >= 1 sec');
    expect(msg({ "shutdown-grace-period": "soon" })).toStartWith('--shutdown-grace-period "soon": ');
    expect(msg({ "shutdown-pods": true })).toBe(
      "--shutdown-pods stops the pods within the graceful shutdown's budget: give --shutdown-grace-period (or shutdownGracePeriodByPodPriority in --config)",
    );
    expect(
      msg(
        { "shutdown-grace-period": "10s" },
        "kind: KubeletConfiguration\nshutdownGracePeriodByPodPriority:\n- priority: 0\n  shutdownGracePeriodSeconds: 5\n",
      ),
    ).toBe(
      "/var/lib/kubelet/config.yaml:2:1: shutdownGracePeriodByPodPriority: cannot be given with shutdownGracePeriod (--shutdown-grace-period) or shutdownGracePeriodCriticalPods at the same time",
    );
    expect(msg({}, "kind: KubeletConfiguration\nshutdownGracePeriodByPodPriority:\n- priority: high\n")).toBe(
      '/var/lib/kubelet/config.yaml:3:3: shutdownGracePeriodByPodPriority[0].priority: expected a whole number, got the string "high"',
    );
    expect(msg({}, "kind: KubeletConfiguration\nshutdownGracePeriod: 1\n")).toBe(
      '/var/lib/kubelet/config.yaml:2:1: shutdownGracePeriod: expected a duration such as "20s", got 1',
    );
  });
});
