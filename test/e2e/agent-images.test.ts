// Image pulls through the agent on real containerd 1.6: an image pulled from a local registry, and a
// missing image going ErrImagePull → ImagePullBackOff.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { TestAgent } from "./agent-harness";
import { REPO, startNode, type TestNode } from "./node";
import { TestRegistry } from "./registry";

const pod = (name: string, image: string, policy: string) => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  terminationGracePeriodSeconds: 1
  containers:
    - name: main
      image: ${image}
      imagePullPolicy: ${policy}
      command: ["sleep", "3600"]
`;

describe("agent image pulls on containerd 1.6", () => {
  let node: TestNode;
  let agent: TestAgent;
  let registry: TestRegistry;
  beforeAll(async () => {
    node = await startNode("1.6");
    registry = new TestRegistry(join(node.rootDir, "registry"));
    await registry.start();
    registry.push(join(process.env.NODEAGENT_IMAGES ?? join(REPO, ".cache/images"), "busybox.tar"), "e2e/busybox:pulled");
    agent = new TestAgent(node);
    await agent.start();
  });
  afterAll(async () => {
    if (agent) await agent.stop().catch(() => {});
    await registry?.stop();
    await node?.stop();
    agent?.cleanup();
  });

  test("imagePullPolicy Always pulls from the local registry through CRI PullImage", async () => {
    const image = `${registry.host}/e2e/busybox:pulled`;
    expect((await node.client.imageStatus({ image })).image).toBeNull();
    agent.writeManifest("pulled.yaml", pod("pulled", image, "Always"));
    const p = await agent.waitPod("pulled", "running", (x) => x.status?.containerStatuses?.[0]?.state?.running !== undefined, 60_000);
    // As with the kubelet, imageID is the digest reference the runtime resolved.
    expect(p.status!.containerStatuses![0]!.imageID).toMatch(new RegExp(`^${registry.host}/e2e/busybox@sha256:[0-9a-f]{64}$`));
    expect((await node.client.imageStatus({ image })).image?.repoTags).toContain(image);
  }, 90_000);

  test("a missing image: ErrImagePull, then ImagePullBackOff", async () => {
    const image = `${registry.host}/e2e/nothing:here`;
    agent.writeManifest("missing.yaml", pod("missing", image, "IfNotPresent"));
    const seen = new Set<string>();
    await agent.waitPod(
      "missing",
      "both pull errors",
      (x) => {
        const w = x.status?.containerStatuses?.[0]?.state?.waiting;
        if (w?.reason) seen.add(w.reason);
        return seen.has("ErrImagePull") && seen.has("ImagePullBackOff");
      },
      30_000,
    );
    const p = await agent.pod("missing");
    expect(p!.status!.phase).toBe("Pending");
    agent.removeManifest("missing.yaml");
  }, 60_000);

  test("imagePullPolicy Never with an image not on the node: ErrImageNeverPull", async () => {
    agent.writeManifest("never.yaml", pod("never", `${registry.host}/e2e/absent:1`, "Never"));
    const p = await agent.waitPod("never", "ErrImageNeverPull", (x) => x.status?.containerStatuses?.[0]?.state?.waiting?.reason === "ErrImageNeverPull");
    expect(p.status!.containerStatuses![0]!.state!.waiting!.message).toBe(
      `Container image "${registry.host}/e2e/absent:1" is not present with pull policy of Never`,
    );
    agent.removeManifest("never.yaml");
  }, 60_000);
});
