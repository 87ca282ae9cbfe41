// `nodeagent pleg watch -o json` against real containerd 1.6 (no event stream: generic after fallback)
// and 1.7 (evented): a container that exits with code 3 produces its events in order.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startNode, type ContainerdVersion, type TestNode } from "./node";
import { runContainer, runSandbox } from "./pods";
import { BinaryProcess } from "./proc";

interface WatchLine {
  type: string;
  mode: string;
  previousMode?: string | null;
  reason?: string;
  pod?: { namespace: string; name: string; uid: string };
  container?: { name: string; id: string; sandbox?: boolean };
  exitCode?: number;
}

const expectedMode: Record<ContainerdVersion, string> = { "1.6": "generic", "1.7": "evented" };

for (const version of ["1.6", "1.7"] as const) {
  describe(`pleg watch on containerd ${version}`, () => {
    let node: TestNode;
    beforeAll(async () => {
      node = await startNode(version);
    });
    afterAll(async () => {
      await node?.stop();
    });

    test(`reports the mode, then a container's start, exit 3 and removal, in order (${expectedMode[version]})`, async () => {
      const watch = new BinaryProcess(["pleg", "watch", "-o", "json", "--runtime-endpoint", node.endpoint, "--namespace", "e2e"]);
      try {
        const mode = await watch.waitFor("the active mode", () => {
          const m = watch.json<WatchLine>().filter((l) => l.type === "ModeChanged");
          return m.at(-1)?.mode === expectedMode[version] ? m : undefined;
        });
        if (version === "1.6") {
          // auto tried the stream, containerd 1.6 answered UNIMPLEMENTED, and it says so.
          expect(mode).toHaveLength(1);
          expect(mode[0]!.reason).toContain("does not implement GetContainerEvents");
        } else {
          expect(mode.map((m) => m.mode)).toEqual(["evented"]);
        }

        const pod = await runSandbox(node, "exit3");
        const cid = await runContainer(node.client, pod, "main", ["sh", "-c", "sleep 2; exit 3"]);
        const forPod = () => watch.json<WatchLine>().filter((l) => l.pod?.uid === pod.uid);
        await watch.waitFor("ContainerDied of the container", () => forPod().find((l) => l.type === "ContainerDied" && l.container?.id === cid));
        await node.client.removeContainer(cid);
        await watch.waitFor("ContainerRemoved", () => forPod().find((l) => l.type === "ContainerRemoved" && l.container?.id === cid));

        const events = forPod();
        const ofContainer = events.filter((l) => l.container?.id === cid);
        expect(ofContainer.map((l) => l.type)).toEqual(["ContainerStarted", "ContainerDied", "ContainerRemoved"]);
        const died = ofContainer[1]!;
        expect(died.exitCode).toBe(3);
        expect(died).toMatchObject({ pod: { namespace: "e2e", name: "exit3", uid: pod.uid }, container: { name: "main", id: cid } });
        expect(events.find((l) => l.container?.id === pod.sandboxId)).toMatchObject({ type: "ContainerStarted", container: { sandbox: true } });
        expect(new Set(events.map((l) => l.mode))).toEqual(new Set([expectedMode[version]]));
      } finally {
        expect(await watch.interrupt()).toBe(0);
      }
    });
  });
}

describe("pleg watch without a runtime", () => {
  test("an unreachable runtime endpoint is exit 1 with the endpoint named", async () => {
    const endpoint = `unix:///tmp/nodeagent-no-runtime-${process.pid}.sock`;
    const watch = new BinaryProcess(["pleg", "watch", "--runtime-endpoint", endpoint]);
    expect(await watch.proc.exited).toBe(1);
    await watch.waitFor("the error naming the endpoint", () => watch.stderr.includes(`cannot reach the runtime endpoint=${endpoint} `) || undefined, 5_000);
  }, 30_000);
});
