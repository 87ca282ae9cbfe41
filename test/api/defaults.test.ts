import { describe, expect, test } from "bun:test";
import type { Pod } from "kubernetes-types/core/v1";
import { applyPodDefaults, defaultImagePullPolicy, parseImageReference } from "../../src/api/defaults";

function minimalPod(): Pod {
  return { apiVersion: "v1", kind: "Pod", metadata: { name: "web" }, spec: { containers: [{ name: "app", image: "busybox:1.36" }] } };
}

describe("applyPodDefaults", () => {
  test("pod spec defaults", () => {
    const pod = minimalPod();
    const out = applyPodDefaults(pod);
    expect(out).toBe(pod); // mutates and returns
    const spec = out.spec!;
    expect(spec.restartPolicy).toBe("Always");
    expect(spec.dnsPolicy).toBe("ClusterFirst");
    expect(spec.terminationGracePeriodSeconds).toBe(30);
    expect(spec.schedulerName).toBe("default-scheduler");
    expect(spec.securityContext).toEqual({});
    expect(spec.enableServiceLinks).toBe(true);
  });

  test("explicit values are kept", () => {
    const pod = minimalPod();
    Object.assign(pod.spec!, { restartPolicy: "Never", dnsPolicy: "Default", terminationGracePeriodSeconds: 0, enableServiceLinks: false });
    applyPodDefaults(pod);
    expect(pod.spec!.restartPolicy).toBe("Never");
    expect(pod.spec!.dnsPolicy).toBe("Default");
    expect(pod.spec!.terminationGracePeriodSeconds).toBe(0);
    expect(pod.spec!.enableServiceLinks).toBe(false);
  });

  test("a negative grace period becomes 1 (conversion since 1.27), not an error", () => {
    const pod = minimalPod();
    pod.spec!.terminationGracePeriodSeconds = -5;
    applyPodDefaults(pod);
    expect(pod.spec!.terminationGracePeriodSeconds).toBe(1);
  });

  test("container defaults for init and app containers", () => {
    const pod = minimalPod();
    pod.spec!.initContainers = [{ name: "init", image: "busybox" }];
    applyPodDefaults(pod);
    for (const c of [pod.spec!.initContainers[0]!, pod.spec!.containers[0]!]) {
      expect(c.terminationMessagePath).toBe("/dev/termination-log");
      expect(c.terminationMessagePolicy).toBe("File");
    }
    expect(pod.spec!.initContainers[0]!.imagePullPolicy).toBe("Always");
    expect(pod.spec!.containers[0]!.imagePullPolicy).toBe("IfNotPresent");
  });

  test("imagePullPolicy follows the tag", () => {
    expect(defaultImagePullPolicy("busybox")).toBe("Always");
    expect(defaultImagePullPolicy("busybox:latest")).toBe("Always");
    expect(defaultImagePullPolicy("busybox:1.36")).toBe("IfNotPresent");
    expect(defaultImagePullPolicy("localhost:5000/busybox")).toBe("Always");
    expect(defaultImagePullPolicy("localhost:5000/busybox:v1")).toBe("IfNotPresent");
    expect(defaultImagePullPolicy(`busybox@sha256:${"a".repeat(64)}`)).toBe("IfNotPresent");
    expect(defaultImagePullPolicy(`busybox:latest@sha256:${"a".repeat(64)}`)).toBe("Always");
    // Unparseable references are not "latest".
    expect(defaultImagePullPolicy("BusyBox")).toBe("IfNotPresent");
    expect(defaultImagePullPolicy("")).toBe("IfNotPresent");
    expect(parseImageReference("registry.k8s.io/etcd:3.5.15-0")).toEqual({ name: "registry.k8s.io/etcd", tag: "3.5.15-0", digest: "" });
  });

  test("ports, probes, env and lifecycle", () => {
    const pod = minimalPod();
    pod.spec!.containers[0] = {
      name: "app",
      image: "x:1",
      ports: [{ containerPort: 80 }, { containerPort: 53, protocol: "UDP" }],
      livenessProbe: { httpGet: { port: 80 } },
      readinessProbe: { grpc: { port: 9000 }, periodSeconds: 3 },
      env: [{ name: "NODE", valueFrom: { fieldRef: { fieldPath: "spec.nodeName" } } }],
      lifecycle: { preStop: { httpGet: { port: 80 } } },
    };
    applyPodDefaults(pod);
    const c = pod.spec!.containers[0]!;
    expect(c.ports!.map((p) => p.protocol)).toEqual(["TCP", "UDP"]);
    expect(c.ports![0]!.hostPort).toBeUndefined();
    expect(c.livenessProbe).toEqual({
      httpGet: { port: 80, path: "/", scheme: "HTTP" },
      timeoutSeconds: 1,
      periodSeconds: 10,
      successThreshold: 1,
      failureThreshold: 3,
    });
    expect(c.readinessProbe!.periodSeconds).toBe(3);
    expect(c.readinessProbe!.grpc!.service).toBe("");
    expect(c.env![0]!.valueFrom!.fieldRef!.apiVersion).toBe("v1");
    expect(c.lifecycle!.preStop!.httpGet).toEqual({ port: 80, path: "/", scheme: "HTTP" });
  });

  test("hostNetwork copies containerPort into an unset hostPort", () => {
    const pod = minimalPod();
    pod.spec!.hostNetwork = true;
    pod.spec!.containers[0]!.ports = [{ containerPort: 2379 }, { containerPort: 2380, hostPort: 2390 }];
    pod.spec!.initContainers = [{ name: "i", image: "x:1", ports: [{ containerPort: 7 }] }];
    applyPodDefaults(pod);
    expect(pod.spec!.containers[0]!.ports!.map((p) => p.hostPort)).toEqual([2379, 2390]);
    expect(pod.spec!.initContainers[0]!.ports![0]!.hostPort).toBe(7);
  });

  test("volumes: hostPath type, emptyDir for no source, modes", () => {
    const pod = minimalPod();
    pod.spec!.volumes = [
      { name: "h", hostPath: { path: "/etc" } },
      { name: "e" },
      { name: "d", downwardAPI: { items: [{ path: "n", fieldRef: { fieldPath: "metadata.name" } }] } },
      { name: "t", hostPath: { path: "/run", type: "Directory" } },
    ];
    applyPodDefaults(pod);
    const [h, e, d, t] = pod.spec!.volumes;
    expect(h!.hostPath).toEqual({ path: "/etc", type: "" });
    expect(e!.emptyDir).toEqual({});
    expect(d!.downwardAPI!.defaultMode).toBe(0o644);
    expect(d!.downwardAPI!.items![0]!.fieldRef!.apiVersion).toBe("v1");
    expect(t!.hostPath!.type).toBe("Directory");
  });

  test("requests default to limits, key by key", () => {
    const pod = minimalPod();
    pod.spec!.containers[0]!.resources = { limits: { cpu: "500m", memory: "128Mi" }, requests: { cpu: "100m" } };
    pod.spec!.initContainers = [{ name: "i", image: "x:1", resources: { limits: { memory: "1Gi" } } }];
    applyPodDefaults(pod);
    expect(pod.spec!.containers[0]!.resources!.requests).toEqual({ cpu: "100m", memory: "128Mi" });
    expect(pod.spec!.initContainers[0]!.resources!.requests).toEqual({ memory: "1Gi" });
  });

  test("a pod without spec gets one", () => {
    const pod: Pod = { metadata: { name: "x" } };
    applyPodDefaults(pod);
    expect(pod.spec!.containers).toEqual([]);
    expect(pod.spec!.restartPolicy).toBe("Always");
  });
});
