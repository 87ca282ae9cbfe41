// The pod events a sync records, with the kubelet's reasons and messages (k/k@1.24.1
// kuberuntime_container.go, kuberuntime_manager.go, images/image_manager.go), on the fake runtime.
import { volumesFor } from "../fakes/volumes";
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod } from "kubernetes-types/core/v1";
import { Backoff } from "../../src/agent/backoff";
import { PodSyncer } from "../../src/agent/pod-sync";
import type { RuntimeConfigOptions } from "../../src/agent/runtime-config";
import { FakeClock } from "../../src/util/clock";
import { createLogger } from "../../src/util/log";
import { FakeRecorder } from "../fakes/events";
import { grpcStatusError } from "../fakes/grpc";
import { FakeRuntime } from "../fakes/runtime";
import { relistFake } from "./fixtures";

const base = mkdtempSync(join(tmpdir(), "nodeagent-pod-sync-events-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

let n = 0;
function setup() {
  const root = join(base, String(++n));
  const opts: RuntimeConfigOptions = {
    podLogsRoot: join(root, "logs"),
    podsDir: join(root, "pods"),
    cgroupRoot: "nodeagent-unit-test",
    nodeName: "node-a",
    hostIP: "192.0.2.10",
  };
  const clock = new FakeClock();
  const rt = new FakeRuntime(clock);
  const log = createLogger("text", -999);
  const events = new FakeRecorder();
  const syncer = new PodSyncer({
    runtime: rt,
    clock,
    crashBackoff: new Backoff(clock),
    imageBackoff: new Backoff(clock),
    config: opts,
    log,
    volumes: volumesFor(opts, clock, log),
    events,
  });
  return { clock, rt, syncer, events };
}

const relist = relistFake;

function pod(over: Partial<Pod["spec"]> = {}): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web", namespace: "shop", uid: "uid-1" },
    spec: { containers: [{ name: "app", image: "busybox:1.35" }], ...over },
  };
}

describe("PodSyncer events", () => {
  test("a new pod: Pulling, Pulled in <duration>, Created, Started, each on spec.containers{app}", async () => {
    const { rt, clock, syncer, events } = setup();
    const release = rt.hold("pullImage");
    const sync = syncer.syncPod(pod(), undefined);
    await clock.advance(1234);
    release();
    await sync;
    expect(events.lines()).toEqual([
      'Normal Pulling: Pulling image "busybox:1.35"',
      'Normal Pulled: Successfully pulled image "busybox:1.35" in 1.234s',
      "Normal Created: Created container app",
      "Normal Started: Started container app",
    ]);
    expect(events.events[0]!.ref).toEqual({ kind: "Pod", apiVersion: "v1", namespace: "shop", name: "web", uid: "uid-1", fieldPath: "spec.containers{app}" });
  });

  test("an image already there: Pulled 'already present on machine'", async () => {
    const { rt, syncer, events } = setup();
    rt.addImage("busybox:1.35");
    await syncer.syncPod(pod(), undefined);
    expect(events.lines()[0]).toBe('Normal Pulled: Container image "busybox:1.35" already present on machine');
  });

  test("a failed pull: Failed with the error, then Failed 'Error: ErrImagePull'; during the backoff BackOff and 'Error: ImagePullBackOff'", async () => {
    const { rt, syncer, events } = setup();
    rt.failNext.set("pullImage", [grpcStatusError("PullImage", 5, 'failed to resolve reference "busybox:1.35": not found')]);
    const p = pod();
    await syncer.syncPod(p, undefined);
    expect(events.lines().slice(1)).toEqual([
      'Warning Failed: Failed to pull image "busybox:1.35": rpc error: code = NotFound desc = failed to resolve reference "busybox:1.35": not found',
      "Warning Failed: Error: ErrImagePull",
    ]);
    events.events.length = 0;
    await syncer.syncPod(p, await relist(rt, p));
    expect(events.lines()).toEqual(['Normal BackOff: Back-off pulling image "busybox:1.35"', "Warning Failed: Error: ImagePullBackOff"]);
  });

  test("a crash-looping container: Warning BackOff 'Back-off restarting failed container' at each sync in the backoff", async () => {
    const { rt, syncer, events, clock } = setup();
    const p = pod();
    await syncer.syncPod(p, undefined);
    const [c] = rt.containersNamed("app");
    rt.exit(c!.id, 1);
    await syncer.syncPod(p, await relist(rt, p)); // the first restart is at once
    rt.exit(rt.containersNamed("app").at(-1)!.id, 1);
    await clock.advance(1000);
    events.events.length = 0;
    await syncer.syncPod(p, await relist(rt, p));
    await syncer.syncPod(p, await relist(rt, p));
    expect(events.lines()).toEqual(["Warning BackOff: Back-off restarting failed container", "Warning BackOff: Back-off restarting failed container"]);
    expect(events.events[0]!.ref.fieldPath).toBe("spec.containers{app}");
  });

  test("killing a pod: Killing 'Stopping container app'", async () => {
    const { rt, syncer, events } = setup();
    const p = pod();
    await syncer.syncPod(p, undefined);
    events.events.length = 0;
    await syncer.killPod(p, await relist(rt, p), 0);
    expect(events.lines()).toEqual(["Normal Killing: Stopping container app"]);
  });

  test("a failed liveness probe: Killing says so and that it will be restarted", async () => {
    const { rt, syncer, events } = setup();
    const p = pod();
    await syncer.syncPod(p, undefined);
    events.events.length = 0;
    await syncer.syncPod(p, await relist(rt, p), () => "liveness");
    expect(events.lines()[0]).toBe("Normal Killing: Container app failed liveness probe, will be restarted");
  });

  test("a sandbox that died: SandboxChanged before the new one", async () => {
    const { rt, syncer, events } = setup();
    const p = pod();
    await syncer.syncPod(p, undefined);
    rt.stopSandbox([...rt.sandboxes.keys()][0]!);
    events.events.length = 0;
    await syncer.syncPod(p, await relist(rt, p));
    expect(events.lines()[0]).toBe("Normal SandboxChanged: Pod sandbox changed, it will be killed and re-created.");
  });

  test("a sandbox that cannot be made: FailedCreatePodSandBox", async () => {
    const { rt, syncer, events } = setup();
    rt.failNext.set("runPodSandbox", [new Error("failed to setup network for sandbox")]);
    await syncer.syncPod(pod(), undefined);
    expect(events.lines()).toEqual(["Warning FailedCreatePodSandBox: Failed to create pod sandbox: failed to setup network for sandbox"]);
  });
});
