// The CRI codec against what it replaces: @grpc/proto-loader's serializers over the same descriptor,
// with the same options. Every request the agent sends must reach the runtime as proto-loader's
// would, and every answer must decode to the very object proto-loader made of it.
import { describe, expect, test } from "bun:test";
import * as protoLoader from "@grpc/proto-loader";
import type { INamespace } from "protobufjs";
import descriptor from "../../src/cri/generated/descriptor.json" with { type: "json" };
import { decodeMessage } from "../../src/cri/proto-decode";
import { encodeMessage } from "../../src/cri/proto-encode";
import { CodecError, methodInfo, messageSchema } from "../../src/cri/proto-schema";
import { LOADER_OPTIONS } from "../../src/cri/proto-options";
import { containerConfig, sandboxConfig, type RuntimeConfigOptions } from "../../src/agent/runtime-config";
import { loadStaticPods } from "../../src/manifest/load";

const definition = protoLoader.fromJSON(descriptor as INamespace, LOADER_OPTIONS);
type Method = protoLoader.MethodDefinition<object, object>;
const reference = (service: string, method: string) => (definition[`runtime.v1.${service}`] as Record<string, Method>)[method]!;

/** A pod with most of what a manifest can say, through the agent's own config builders. */
function agentRequests(): { sandbox: object; container: object } {
  const yaml = `apiVersion: v1
kind: Pod
metadata: { name: full, labels: { app: web }, annotations: { note: "ünïcode ✓" } }
spec:
  hostNetwork: false
  securityContext: { runAsUser: 1000, runAsGroup: 3000, supplementalGroups: [4, 5, 4294967296], fsGroup: 2000 }
  containers:
    - name: main
      image: localhost/nodeagent/busybox:1.35
      command: ["sh", "-c", "sleep 1"]
      env: [{ name: A, value: "1" }, { name: B, value: "x=y" }]
      ports: [{ containerPort: 80, hostPort: 8080, protocol: UDP }]
      resources: { limits: { cpu: "1500m", memory: 256Mi }, requests: { cpu: 250m, memory: 64Mi } }
      securityContext: { readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { add: [NET_ADMIN], drop: [ALL] } }
      volumeMounts: [{ name: work, mountPath: /work, readOnly: true }]
  volumes: [{ name: work, emptyDir: {} }]
`;
  const loaded = loadStaticPods(yaml, { source: "file", location: "/m/full.yaml", nodeName: "n1" });
  if (!loaded.ok) throw new Error(loaded.errors.map((e) => e.message).join("; "));
  const pod = loaded.pods[0]!;
  const options: RuntimeConfigOptions = {
    podLogsRoot: "/var/log/pods",
    podsDir: "/var/lib/nodeagent/pods",
    cgroupRoot: "/kubepods",
    nodeName: "n1",
    hostIP: "10.0.0.1",
  };
  const sb = sandboxConfig(pod, 1, options);
  const config = containerConfig({
    pod,
    container: pod.spec!.containers[0]!,
    init: false,
    restartCount: 2,
    podIP: "10.88.0.5",
    imageRef: "sha256:abc",
    options,
    volumePath: (name) => `/var/lib/nodeagent/pods/u/volumes/kubernetes.io~empty-dir/${name}`,
  });
  return { sandbox: { config: sb, runtimeHandler: "" }, container: { podSandboxId: "sb1", config, sandboxConfig: sb } };
}

const NS = 1_700_000_000_123_456_789; // a nanosecond timestamp, beyond 2^53 as the runtime's are

const containerStatus = {
  id: "c1",
  metadata: { name: "main", attempt: 3 },
  state: "CONTAINER_EXITED",
  createdAt: NS,
  startedAt: NS + 1000,
  finishedAt: NS + 2000,
  exitCode: -1,
  image: { image: "busybox", annotations: { a: "b" } },
  imageRef: "sha256:abc",
  reason: "Error",
  message: "boom",
  labels: { "io.kubernetes.pod.uid": "u1", "io.kubernetes.container.name": "main" },
  annotations: { "io.kubernetes.container.hash": "1234" },
  mounts: [{ containerPath: "/work", hostPath: "/var/lib/x", readonly: true, propagation: "PROPAGATION_BIDIRECTIONAL" }],
  logPath: "main/3.log",
  resources: { linux: { cpuPeriod: 100000, cpuQuota: 150000, memoryLimitInBytes: 268435456, unified: { "memory.high": "1" } } },
};
const sandboxStatus = {
  id: "sb1",
  metadata: { name: "full", uid: "u1", namespace: "default", attempt: 1 },
  state: "SANDBOX_READY",
  createdAt: NS,
  network: { ip: "10.88.0.5", additionalIps: [{ ip: "fd00::5" }] },
  linux: { namespaces: { options: { network: "NODE", pid: "CONTAINER", ipc: "POD", targetId: "", usernsOptions: null } } },
  labels: { app: "web" },
  annotations: { note: "ünïcode ✓" },
  runtimeHandler: "",
};

/** Request and response samples per method: proto-loader's view and ours must agree on each. */
const samples: Array<{ service: "RuntimeService" | "ImageService"; method: string; request: object; response: object }> = [
  {
    service: "RuntimeService",
    method: "Version",
    request: { version: "v1" },
    response: { version: "0.1.0", runtimeName: "containerd", runtimeVersion: "1.6.20", runtimeApiVersion: "v1" },
  },
  { service: "RuntimeService", method: "RunPodSandbox", request: agentRequests().sandbox, response: { podSandboxId: "sb1" } },
  { service: "RuntimeService", method: "CreateContainer", request: agentRequests().container, response: { containerId: "c1" } },
  {
    service: "RuntimeService",
    method: "ListPodSandbox",
    request: { filter: { labelSelector: { "io.kubernetes.pod.uid": "u1" }, state: { state: "SANDBOX_NOTREADY" } } },
    response: {
      items: [
        { id: "sb1", metadata: sandboxStatus.metadata, state: "SANDBOX_READY", createdAt: NS, labels: { a: "" }, annotations: {}, runtimeHandler: "" },
        { id: "sb2" },
      ],
    },
  },
  {
    service: "RuntimeService",
    method: "ListContainers",
    request: { filter: { podSandboxId: "sb1" } },
    response: {
      containers: [
        { id: "c1", podSandboxId: "sb1", metadata: { name: "main" }, state: "CONTAINER_RUNNING", createdAt: NS, labels: containerStatus.labels },
        {},
      ],
    },
  },
  {
    service: "RuntimeService",
    method: "ContainerStatus",
    request: { containerId: "c1", verbose: true },
    response: { status: containerStatus, info: { info: '{"pid": 42}' } },
  },
  {
    service: "RuntimeService",
    method: "PodSandboxStatus",
    request: { podSandboxId: "sb1" },
    response: { status: sandboxStatus, info: {}, containersStatuses: [containerStatus], timestamp: NS },
  },
  { service: "RuntimeService", method: "StopContainer", request: { containerId: "c1", timeout: 30 }, response: {} },
  {
    service: "RuntimeService",
    method: "ExecSync",
    request: { containerId: "c1", cmd: ["sh", "-c", "echo hi"], timeout: 1 },
    response: { stdout: Buffer.from("hi\n"), stderr: Buffer.from([0, 255, 128]), exitCode: 2 },
  },
  {
    service: "RuntimeService",
    method: "GetContainerEvents",
    request: {},
    response: {
      containerId: "c1",
      containerEventType: "CONTAINER_STOPPED_EVENT",
      createdAt: NS,
      podSandboxStatus: sandboxStatus,
      containersStatuses: [containerStatus],
    },
  },
  {
    service: "RuntimeService",
    method: "Status",
    request: { verbose: false },
    response: {
      status: {
        conditions: [
          { type: "RuntimeReady", status: true, reason: "", message: "" },
          { type: "NetworkReady", status: false, reason: "NetworkPluginNotReady", message: "cni" },
        ],
      },
      info: {},
    },
  },
  {
    service: "ImageService",
    method: "ImageStatus",
    request: { image: { image: "busybox" }, verbose: true },
    response: {
      image: { id: "sha256:abc", repoTags: ["busybox:1.35"], repoDigests: [], size: 4_500_000_000, uid: { value: 0 }, username: "", pinned: true },
      info: { x: "y" },
    },
  },
  {
    service: "ImageService",
    method: "PullImage",
    request: { image: { image: "busybox" }, auth: { username: "u", password: "p" } },
    response: { imageRef: "sha256:abc" },
  },
];

describe("codec against proto-loader", () => {
  for (const s of samples) {
    test(`${s.service}/${s.method}: requests encode, responses decode, as proto-loader's`, () => {
      const ref = reference(s.service, s.method);
      const ours = methodInfo(`runtime.v1.${s.service}`, s.method);
      expect(ours.path).toBe(ref.path);
      expect(ours.responseStream).toBe(ref.responseStream);
      // Our request bytes, read by proto-loader, are proto-loader's own request.
      const theirRequest = ref.requestDeserialize(ref.requestSerialize(s.request));
      expect(ref.requestDeserialize(encodeMessage(ours.request, s.request))).toEqual(theirRequest);
      // The runtime's answer (proto-loader's bytes) decodes to what proto-loader made of it.
      const bytes = ref.responseSerialize(s.response);
      expect(decodeMessage(ours.response, bytes)).toEqual(ref.responseDeserialize(bytes));
      // And our encoder agrees on the response types too.
      expect(ref.responseDeserialize(encodeMessage(ours.response, s.response))).toEqual(ref.responseDeserialize(bytes));
    });
  }

  test("an empty message decodes to every default: '' 0 false, the zero enum, [] {}, null messages, an empty Buffer", () => {
    const ref = reference("RuntimeService", "ContainerStatus");
    const empty = decodeMessage<Record<string, unknown>>(messageSchema("runtime.v1.ContainerStatus"), new Uint8Array(0));
    // proto-loader's view of an empty ContainerStatus: the status field of a response holding one.
    expect(empty).toEqual((ref.responseDeserialize(ref.responseSerialize({ status: {} })) as { status: Record<string, unknown> }).status);
    expect(empty).toMatchObject({ id: "", state: "CONTAINER_CREATED", exitCode: 0, metadata: null, labels: {}, mounts: [] });
    const exec = decodeMessage<{ stdout: Buffer }>(messageSchema("runtime.v1.ExecSyncResponse"), new Uint8Array(0));
    expect(Buffer.isBuffer(exec.stdout) && exec.stdout.length).toBe(0);
  });

  test("int64: negative and beyond 2^53 round-trip as proto-loader's numbers; repeated int64 are read packed or not", () => {
    const schema = messageSchema("runtime.v1.LinuxContainerSecurityContext");
    const ref = reference("RuntimeService", "CreateContainer");
    const groups = [0, 1, 2 ** 32, -5, 2 ** 53 + 2];
    const got = decodeMessage<{ supplementalGroups: number[] }>(schema, encodeMessage(schema, { supplementalGroups: groups }));
    expect(got.supplementalGroups).toEqual(groups);
    // Packed, each value one byte (the last one too), as proto-loader sends them.
    const packed = ref.requestSerialize({ config: { linux: { securityContext: { supplementalGroups: [1, 2, 3] } } } });
    const decoded = decodeMessage<{ config: { linux: { securityContext: { supplementalGroups: number[] } } } }>(
      methodInfo("runtime.v1.RuntimeService", "CreateContainer").request,
      packed,
    );
    expect(decoded.config.linux.securityContext.supplementalGroups).toEqual([1, 2, 3]);
    // Unpacked (one tag per value), as an older encoder may send: field 8, varint.
    const unpacked = Buffer.from([8 << 3, 7, 8 << 3, 9]);
    expect(decodeMessage<{ supplementalGroups: number[] }>(schema, unpacked).supplementalGroups).toEqual([7, 9]);
    // numeric strings and bigints are taken for int64 too, as proto-loader takes strings.
    const req = { podSandboxId: "x", config: { linux: { securityContext: { supplementalGroups: ["12", 13n] } } } };
    const ours = methodInfo("runtime.v1.RuntimeService", "CreateContainer");
    expect(
      (ref.requestDeserialize(encodeMessage(ours.request, req)) as { config: { linux: { securityContext: { supplementalGroups: number[] } } } }).config.linux
        .securityContext.supplementalGroups,
    ).toEqual([12, 13]);
  });

  test("unknown fields are skipped, an unknown enum number stays a number", () => {
    const schema = messageSchema("runtime.v1.ContainerMetadata");
    // name = "a" (1), then field 15 (varint 1), field 16 (bytes "zz"), attempt = 4 (2).
    const bytes = Buffer.from([0x0a, 1, 0x61, 15 << 3, 1, (16 << 3) | 2, 0x01, 2, 0x7a, 0x7a, 0x10, 4]);
    expect(decodeMessage(schema, bytes)).toEqual({ name: "a", attempt: 4 });
    const state = decodeMessage<{ state: unknown }>(messageSchema("runtime.v1.ContainerStatus"), Buffer.from([3 << 3, 9]));
    expect(state.state).toBe(9);
  });

  test("bad input is a CodecError naming the field; a truncated message is a CodecError", () => {
    const req = methodInfo("runtime.v1.RuntimeService", "ListContainers").request;
    expect(() => encodeMessage(req, { filter: { state: { state: "CONTAINER_NAPPING" } } })).toThrow(
      /runtime\.v1\.ContainerStateValue\.state: "CONTAINER_NAPPING" is not a value of runtime\.v1\.ContainerState/,
    );
    expect(() => encodeMessage(req, { filter: { labelSelector: "app=web" } })).toThrow(CodecError);
    expect(() => encodeMessage(req, { filter: { id: "x", podSandboxId: "y", labelSelector: {}, state: null } })).not.toThrow();
    const bytes = encodeMessage(messageSchema("runtime.v1.ContainerMetadata"), { name: "main", attempt: 1 });
    expect(() => decodeMessage(messageSchema("runtime.v1.ContainerMetadata"), bytes.subarray(0, 3))).toThrow(CodecError);
  });
});
