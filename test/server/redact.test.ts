import { describe, expect, test } from "bun:test";
import type { Container, Pod } from "kubernetes-types/core/v1";
import { LAST_APPLIED_ANNOTATION, REDACTED, redactPod } from "../../src/server/redact";

function container(name: string, secret: string): Container {
  return {
    name,
    image: "busybox",
    command: ["sh", "-c", "run --verbose"],
    args: ["--port", "8080"],
    env: [
      { name: "PASSWORD", value: secret },
      { name: "EMPTY", value: "" },
      { name: "FROM_SECRET", valueFrom: { secretKeyRef: { name: "db", key: "password" } } },
    ],
    envFrom: [{ secretRef: { name: "all" } }],
    livenessProbe: { httpGet: { port: 8080, path: "/live", httpHeaders: [{ name: "Authorization", value: `Bearer ${secret}` }] } },
    readinessProbe: { exec: { command: ["cat", "/tmp/ready"] } },
    startupProbe: { httpGet: { port: 8080, httpHeaders: [{ name: "X-Api-Key", value: secret }] } },
    lifecycle: {
      postStart: { httpGet: { port: 8080, httpHeaders: [{ name: "Cookie", value: secret }] } },
      preStop: { exec: { command: ["sh", "-c", "sleep 1"] } },
    },
  };
}

function secretPod(): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: "app",
      namespace: "default",
      labels: { app: "web" },
      annotations: {
        [LAST_APPLIED_ANNOTATION]: '{"spec":{"containers":[{"env":[{"name":"PASSWORD","value":"SECRET-1"}]}]}}',
        "kubernetes.io/config.source": "file",
      },
    },
    spec: {
      initContainers: [container("init", "SECRET-2")],
      containers: [container("main", "SECRET-1")],
      ephemeralContainers: [{ ...container("debug", "SECRET-3"), targetContainerName: "main" }],
      volumes: [
        { name: "csi", csi: { driver: "secrets.example", volumeAttributes: { token: "SECRET-4", empty: "" } } },
        { name: "flex", flexVolume: { driver: "example/flex", options: { password: "SECRET-5" } } },
        { name: "git", gitRepo: { repository: "https://user:SECRET-6@git.example/repo.git" } },
        { name: "data", hostPath: { path: "/srv/data" } },
      ],
    },
    status: {
      phase: "Failed",
      containerStatuses: [
        {
          name: "main",
          image: "busybox",
          imageID: "",
          ready: false,
          restartCount: 1,
          state: { terminated: { exitCode: 1, reason: "Error", message: "bad config" } },
        },
      ],
    },
  };
}

describe("redactPod", () => {
  test("no secret value is left anywhere in the pod", () => {
    const text = JSON.stringify(redactPod(secretPod()));
    expect(text).not.toContain("SECRET-");
    expect(JSON.stringify(secretPod())).toContain("SECRET-6");
  });

  test("env values of containers, initContainers and ephemeralContainers; references and empty values stay", () => {
    const r = redactPod(secretPod());
    for (const c of [r.spec!.containers[0]!, r.spec!.initContainers![0]!, r.spec!.ephemeralContainers![0]!]) {
      expect(c.env).toEqual([
        { name: "PASSWORD", value: REDACTED },
        { name: "EMPTY", value: "" },
        { name: "FROM_SECRET", valueFrom: { secretKeyRef: { name: "db", key: "password" } } },
      ]);
      expect(c.envFrom).toEqual([{ secretRef: { name: "all" } }]);
    }
  });

  test("HTTP header values of probes and hooks; exec commands, command and args stay", () => {
    const c = redactPod(secretPod()).spec!.containers[0]!;
    expect(c.livenessProbe?.httpGet?.httpHeaders).toEqual([{ name: "Authorization", value: REDACTED }]);
    expect(c.startupProbe?.httpGet?.httpHeaders).toEqual([{ name: "X-Api-Key", value: REDACTED }]);
    expect(c.lifecycle?.postStart?.httpGet?.httpHeaders).toEqual([{ name: "Cookie", value: REDACTED }]);
    expect(c.livenessProbe?.httpGet?.path).toBe("/live");
    expect(c.readinessProbe?.exec?.command).toEqual(["cat", "/tmp/ready"]);
    expect(c.lifecycle?.preStop?.exec?.command).toEqual(["sh", "-c", "sleep 1"]);
    expect(c.command).toEqual(["sh", "-c", "run --verbose"]);
    expect(c.args).toEqual(["--port", "8080"]);
  });

  test("the last-applied annotation, volume driver options and gitRepo URLs; other metadata and volumes stay", () => {
    const r = redactPod(secretPod());
    expect(r.metadata?.annotations).toEqual({ [LAST_APPLIED_ANNOTATION]: REDACTED, "kubernetes.io/config.source": "file" });
    expect(r.metadata?.labels).toEqual({ app: "web" });
    expect(r.spec!.volumes).toEqual([
      { name: "csi", csi: { driver: "secrets.example", volumeAttributes: { token: REDACTED, empty: "" } } },
      { name: "flex", flexVolume: { driver: "example/flex", options: { password: REDACTED } } },
      { name: "git", gitRepo: { repository: REDACTED } },
      { name: "data", hostPath: { path: "/srv/data" } },
    ]);
  });

  test("the status, which explains the pod, is kept", () => {
    expect(redactPod(secretPod()).status).toEqual(secretPod().status);
  });

  test("the pod given is not modified", () => {
    const p = secretPod();
    redactPod(p);
    expect(p).toEqual(secretPod());
  });

  test("only what changes is copied: a pod with nothing to redact shares its spec, a redacted pod shares its unchanged parts", () => {
    const plain: Pod = {
      metadata: { name: "plain", annotations: { a: "b" } },
      spec: { containers: [{ name: "c", image: "busybox", env: [{ name: "E", value: "" }] }], volumes: [{ name: "data", emptyDir: {} }] },
      status: { phase: "Running" },
    };
    const r = redactPod(plain);
    expect(r).not.toBe(plain);
    expect(r).toEqual(plain);
    expect(r.spec).toBe(plain.spec!);
    expect(r.metadata).toBe(plain.metadata!);
    const p = secretPod();
    const s = redactPod(p);
    expect(s.status).toBe(p.status!);
    expect(s.metadata!.labels).toBe(p.metadata!.labels!);
    expect(s.spec!.volumes![3]).toBe(p.spec!.volumes![3]!);
    expect(s.spec!.containers[0]!.readinessProbe).toBe(p.spec!.containers[0]!.readinessProbe!);
  });

  test("a pod without a spec or metadata", () => {
    expect(redactPod({ apiVersion: "v1", kind: "Pod" })).toEqual({ apiVersion: "v1", kind: "Pod" });
  });
});
