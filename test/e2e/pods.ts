// Test pods made directly through the CRI, with the kubelet's labels: what the PLEG e2e tests watch.
import { randomUUID } from "node:crypto";
import type { CriClient } from "../../src/cri/client";
import { containerLabels, sandboxLabels } from "../../src/cri/labels";
import type { PodSandboxConfigInput } from "../../src/cri/types";
import { BUSYBOX_IMAGE, CGROUP_PARENT, type TestNode } from "./node";

export interface TestPod {
  uid: string;
  name: string;
  namespace: string;
  sandboxId: string;
  config: PodSandboxConfigInput;
}

export async function runSandbox(node: TestNode, name: string, opts: { hostNetwork?: boolean; namespace?: string } = {}): Promise<TestPod> {
  const uid = randomUUID();
  const namespace = opts.namespace ?? "e2e";
  const config: PodSandboxConfigInput = {
    metadata: { name, namespace, uid, attempt: 0 },
    // A host-network sandbox must not set a hostname (DESIGN.md).
    hostname: opts.hostNetwork ? "" : name,
    logDirectory: `${node.logDir}/${namespace}_${name}_${uid}`,
    labels: sandboxLabels({ name, namespace, uid }),
    linux: {
      cgroupParent: `${CGROUP_PARENT}/pod${uid}`,
      securityContext: { namespaceOptions: { network: opts.hostNetwork ? "NODE" : "POD", pid: "CONTAINER", ipc: "POD" } },
    },
  };
  const sandboxId = await node.client.runPodSandbox(config);
  return { uid, name, namespace, sandboxId, config };
}

export async function runContainer(client: CriClient, pod: TestPod, name: string, command: string[]): Promise<string> {
  const id = await client.createContainer(
    pod.sandboxId,
    {
      metadata: { name, attempt: 0 },
      image: { image: BUSYBOX_IMAGE },
      command,
      logPath: `${name}/0.log`,
      labels: containerLabels(pod, name),
      linux: { resources: {}, securityContext: {} },
    },
    pod.config,
  );
  await client.startContainer(id);
  return id;
}
