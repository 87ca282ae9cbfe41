// runAsNonRoot as the kubelet's verifyRunAsNonRoot: the effective runAsUser (container over pod), else
// the image's user from ImageStatus; a refusal is CreateContainerConfigError, no container, a retry.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Container, Pod } from "kubernetes-types/core/v1";
import { Backoff } from "../../src/agent/backoff";
import { PodSyncer } from "../../src/agent/pod-sync";
import { imageUser, runAsNonRootProblem } from "../../src/agent/run-as-non-root";
import type { RuntimeConfigOptions } from "../../src/agent/runtime-config";
import type { ContainerConfigInput } from "../../src/cri/types";
import { FakeClock } from "../../src/util/clock";
import { createLogger } from "../../src/util/log";
import { FakeRuntime } from "../fakes/runtime";
import { volumesFor } from "../fakes/volumes";
import { relistFake } from "./fixtures";

const IMAGE = "localhost/nodeagent/busybox:1.35";
const WHO = '(pod: "web_shop(uid-nonroot)", container: app)';

function podWith(container: Partial<Container>, podRunAs: NonNullable<Pod["spec"]>["securityContext"] = undefined): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web", namespace: "shop", uid: "uid-nonroot" },
    spec: { restartPolicy: "Always", securityContext: podRunAs, containers: [{ name: "app", image: IMAGE, ...container }] },
  };
}
const app = (p: Pod) => p.spec!.containers[0]!;

describe("runAsNonRootProblem", () => {
  test("without runAsNonRoot nothing is checked, whatever the user", () => {
    const p = podWith({ securityContext: { runAsUser: 0 } });
    expect(runAsNonRootProblem(p, app(p), { uid: 0 })).toBeUndefined();
  });

  test("an explicit runAsUser 0 breaks the policy; the container's runAsUser wins over the pod's", () => {
    const p = podWith({ securityContext: { runAsNonRoot: true, runAsUser: 0 } }, { runAsUser: 1000 });
    expect(runAsNonRootProblem(p, app(p), { uid: 1000 })).toBe(`container's runAsUser breaks non-root policy ${WHO}`);
    const q = podWith({ securityContext: { runAsUser: 1000 } }, { runAsNonRoot: true, runAsUser: 0 });
    expect(runAsNonRootProblem(q, app(q), { uid: 0 })).toBeUndefined();
  });

  test("runAsNonRoot from the pod applies to the container", () => {
    const p = podWith({}, { runAsNonRoot: true, runAsUser: 0 });
    expect(runAsNonRootProblem(p, app(p), undefined)).toBe(`container's runAsUser breaks non-root policy ${WHO}`);
  });

  test("a container's runAsNonRoot: false overrides the pod's true", () => {
    const p = podWith({ securityContext: { runAsNonRoot: false } }, { runAsNonRoot: true });
    expect(runAsNonRootProblem(p, app(p), { uid: 0 })).toBeUndefined();
  });

  test("no runAsUser: the image's user decides (root, a name, a non-root uid, an invalid uid)", () => {
    const p = podWith({ securityContext: { runAsNonRoot: true } });
    expect(runAsNonRootProblem(p, app(p), { uid: 0 })).toBe(`container has runAsNonRoot and image will run as root ${WHO}`);
    expect(runAsNonRootProblem(p, app(p), { username: "nginx" })).toBe(
      `container has runAsNonRoot and image has non-numeric user (nginx), cannot verify user is non-root ${WHO}`,
    );
    expect(runAsNonRootProblem(p, app(p), { uid: 65532 })).toBeUndefined();
    expect(runAsNonRootProblem(p, app(p), { uid: 2 ** 31 })).toStartWith(
      "container has runAsNonRoot and image has an invalid user id (2147483648). (Must be 1-(2147483647)): ",
    );
  });

  test("imageUser: the uid, else the name, else root (no user configured, or no image)", () => {
    expect(imageUser({ uid: { value: 1000 }, username: "" } as never)).toEqual({ uid: 1000 });
    expect(imageUser({ uid: null, username: "nginx" } as never)).toEqual({ username: "nginx" });
    expect(imageUser({ uid: null, username: "" } as never)).toEqual({ uid: 0 });
    expect(imageUser(null)).toEqual({ uid: 0 });
  });
});

const base = mkdtempSync(join(tmpdir(), "nodeagent-run-as-non-root-"));
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
  const syncer = new PodSyncer({
    runtime: rt,
    clock,
    crashBackoff: new Backoff(clock),
    imageBackoff: new Backoff(clock),
    config: opts,
    log,
    volumes: volumesFor(opts, clock, log),
  });
  return { rt, syncer };
}

const created = (rt: FakeRuntime) => rt.calls.filter((c) => c.method === "createContainer").map((c) => (c.arg as { config: ContainerConfigInput }).config);

describe("PodSyncer: runAsNonRoot before the container is created", () => {
  test("runAsUser 0: CreateContainerConfigError with the kubelet's message, no container, retried at the next sync", async () => {
    const { rt, syncer } = setup();
    const p = podWith({ securityContext: { runAsNonRoot: true, runAsUser: 0 } });
    const r = await syncer.syncPod(p, undefined);
    expect(r.waiting.get("app")).toEqual({ reason: "CreateContainerConfigError", message: `container's runAsUser breaks non-root policy ${WHO}` });
    expect(r.errors).toEqual([`app: CreateContainerConfigError: container's runAsUser breaks non-root policy ${WHO}`]);
    expect(created(rt)).toEqual([]);
    const again = await syncer.syncPod(p, await relistFake(rt, p));
    expect(again.waiting.get("app")?.reason).toBe("CreateContainerConfigError");
    expect(rt.containers.size).toBe(0);
  });

  test("no runAsUser on an image with no user (root): refused; the image's user is read from ImageStatus", async () => {
    const { rt, syncer } = setup();
    const p = podWith({ securityContext: { runAsNonRoot: true } });
    const r = await syncer.syncPod(p, undefined);
    expect(r.waiting.get("app")).toEqual({ reason: "CreateContainerConfigError", message: `container has runAsNonRoot and image will run as root ${WHO}` });
    expect(created(rt)).toEqual([]);
  });

  test("no runAsUser on an image whose user is a uid other than 0: created", async () => {
    const { rt, syncer } = setup();
    rt.addImage(IMAGE).uid = { value: 65532 };
    const p = podWith({ securityContext: { runAsNonRoot: true } });
    const r = await syncer.syncPod(p, undefined);
    expect(r.waiting.get("app")).toBeUndefined();
    expect(created(rt)).toHaveLength(1);
  });

  test("runAsUser 1000: created, running as 1000", async () => {
    const { rt, syncer } = setup();
    const p = podWith({ securityContext: { runAsNonRoot: true, runAsUser: 1000 } });
    const r = await syncer.syncPod(p, undefined);
    expect(r.errors).toEqual([]);
    expect(created(rt)[0]?.linux?.securityContext?.runAsUser).toEqual({ value: 1000 });
  });
});
