// The pod sync with API objects (issue 15): a container's env from configMaps and secrets, and the
// pod's imagePullSecrets on the image pull — on the fake runtime, with a fake ObjectSource.
import { volumesFor } from "../fakes/volumes";
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod } from "kubernetes-types/core/v1";
import { Backoff } from "../../src/agent/backoff";
import { PodSyncer } from "../../src/agent/pod-sync";
import type { RuntimeConfigOptions } from "../../src/agent/runtime-config";
import type { AuthConfigInput, ContainerConfigInput, ImageSpecInput, PodSandboxConfigInput } from "../../src/cri/types";
import { FakeClock } from "../../src/util/clock";
import { createLogger, type LogFields, type Logger, textFields } from "../../src/util/log";
import type { ObjectSource } from "../../src/objects/types";
import { grpcStatusError } from "../fakes/grpc";
import { FakeObjectSource } from "../fakes/object-source";
import { FakeRuntime } from "../fakes/runtime";
import { relistFake } from "./fixtures";
import { FakeServiceLister } from "../fakes/service-lister";

const base = mkdtempSync(join(tmpdir(), "nodeagent-pod-sync-objects-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

let n = 0;
function options(): RuntimeConfigOptions {
  const root = join(base, String(++n));
  return { podLogsRoot: join(root, "logs"), podsDir: join(root, "pods"), cgroupRoot: "nodeagent-unit-test", nodeName: "node-a", hostIP: "192.0.2.10" };
}

function recordingLog(): { log: Logger; warnings: string[] } {
  const warnings: string[] = [];
  const quiet = createLogger("text", -999);
  return { log: { ...quiet, warn: (m: string, f?: LogFields) => void warnings.push(m + textFields(f)) } as Logger, warnings };
}

/** A runtime that records the AuthConfig of every pull and refuses the credentials a test names. */
class RegistryRuntime extends FakeRuntime {
  readonly pulls: { image: string; auth: AuthConfigInput | undefined }[] = [];
  refuse = (_auth: AuthConfigInput | undefined): boolean => false;

  override async pullImage(image: ImageSpecInput, auth?: unknown, sandboxConfig?: PodSandboxConfigInput): Promise<string> {
    const a = auth as AuthConfigInput | undefined;
    this.pulls.push({ image: image.image ?? "", auth: a });
    if (this.refuse(a)) throw grpcStatusError("PullImage", 2, `failed to pull and unpack image "${image.image}": 401 Unauthorized`);
    return super.pullImage(image, auth, sandboxConfig);
  }
}

function setup(objects?: ObjectSource, services?: FakeServiceLister) {
  const clock = new FakeClock();
  const rt = new RegistryRuntime(clock);
  const { log, warnings } = recordingLog();
  const syncer = new PodSyncer({
    runtime: rt,
    clock,
    crashBackoff: new Backoff(clock),
    imageBackoff: new Backoff(clock),
    config: options(),
    log,
    volumes: volumesFor(options(), clock, log, { objects }),
    objects,
    services,
  });
  return { clock, rt, syncer, warnings };
}

const relist = relistFake;

function createdConfigs(rt: FakeRuntime): ContainerConfigInput[] {
  return rt.calls.filter((c) => c.method === "createContainer").map((c) => (c.arg as { config: ContainerConfigInput }).config);
}

function envPod(): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web", namespace: "shop", uid: "uid-env" },
    spec: {
      restartPolicy: "Always",
      containers: [
        {
          name: "app",
          image: "localhost/nodeagent/busybox:1.35",
          command: ["sh", "-c", "echo $(LEVEL)"],
          envFrom: [{ prefix: "DB_", secretRef: { name: "db" } }],
          env: [
            { name: "LEVEL", valueFrom: { configMapKeyRef: { name: "settings", key: "level" } } },
            { name: "DSN", value: "$(DB_user)@$(LEVEL)" },
            { name: "POD", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
          ],
        },
      ],
    },
  };
}

describe("PodSyncer: env from configMaps and secrets", () => {
  test("a missing required configMap: CreateContainerConfigError with the kubelet's message, no container, and a retry", async () => {
    const objects = new FakeObjectSource();
    objects.putSecret("shop", "db", { user: "alice" });
    const { rt, syncer } = setup(objects);
    const pod = envPod();
    const r = await syncer.syncPod(pod, undefined);
    expect(r.waiting.get("app")).toEqual({ reason: "CreateContainerConfigError", message: 'configmap "settings" not found' });
    expect(createdConfigs(rt)).toEqual([]);
    expect(rt.containers.size).toBe(0);
    // The sandbox is made and kept; the sync reports an error, which the pod worker retries with backoff.
    expect(rt.sandboxes.size).toBe(1);
    expect(r.errors).toEqual(['app: CreateContainerConfigError: configmap "settings" not found']);
    expect(r.retryAt).toBeUndefined();

    // Still missing at the next sync: the same wait, still no container, the same sandbox.
    const again = await syncer.syncPod(pod, await relist(rt, pod));
    expect(again.waiting.get("app")?.reason).toBe("CreateContainerConfigError");
    expect(rt.containers.size).toBe(0);
    expect(rt.sandboxes.size).toBe(1);
  });

  test("the object appears: the next sync starts the container with the resolved env", async () => {
    const objects = new FakeObjectSource();
    objects.putSecret("shop", "db", { user: "alice" });
    const { rt, syncer } = setup(objects);
    const pod = envPod();
    await syncer.syncPod(pod, undefined);
    expect(rt.containers.size).toBe(0);

    objects.putConfigMap("shop", "settings", { level: "debug" });
    const r = await syncer.syncPod(pod, await relist(rt, pod));
    expect(r.waiting.size).toBe(0);
    expect(r.errors).toEqual([]);
    const [config] = createdConfigs(rt);
    expect(config?.envs).toEqual([
      { key: "DB_user", value: "alice" },
      { key: "LEVEL", value: "debug" },
      { key: "DSN", value: "alice@debug" },
      { key: "POD", value: "web" },
    ]);
    // The command's $(VAR) expands against the resolved env, as the kubelet's expandContainerCommandAndArgs.
    expect(config?.command).toEqual(["sh", "-c", "echo debug"]);
    expect([...rt.containers.values()].map((c) => c.state)).toEqual(["CONTAINER_RUNNING"]);
    expect(rt.sandboxes.size).toBe(1);
  });

  test("a missing key of an existing configMap names the key and the object", async () => {
    const objects = new FakeObjectSource();
    objects.putSecret("shop", "db", { user: "alice" });
    objects.putConfigMap("shop", "settings", { other: "x" });
    const { rt, syncer } = setup(objects);
    const r = await syncer.syncPod(envPod(), undefined);
    expect(r.waiting.get("app")).toEqual({ reason: "CreateContainerConfigError", message: "couldn't find key level in ConfigMap shop/settings" });
    expect(rt.containers.size).toBe(0);
  });

  test("without an object source, env refs fail as the kubelet without a kubeClient", async () => {
    const { rt, syncer } = setup();
    const r = await syncer.syncPod(envPod(), undefined);
    expect(r.waiting.get("app")).toEqual({ reason: "CreateContainerConfigError", message: "couldn't get secret shop/db, no kubeClient defined" });
    expect(rt.containers.size).toBe(0);
  });

  test("invalid envFrom keys are skipped and logged as InvalidEnvironmentVariableNames", async () => {
    const objects = new FakeObjectSource();
    objects.putSecret("shop", "db", { user: "alice", "bad key": "x" });
    objects.putConfigMap("shop", "settings", { level: "info" });
    const { rt, syncer, warnings } = setup(objects);
    await syncer.syncPod(envPod(), undefined);
    expect(createdConfigs(rt)[0]?.envs?.map((e) => e.key)).toEqual(["DB_user", "LEVEL", "DSN", "POD"]);
    expect(warnings).toContain(
      'InvalidEnvironmentVariableNames pod=shop/web container=app message="Keys [DB_bad key] from the EnvFrom secret shop/db were skipped since they are considered invalid environment variable names."',
    );
  });
});

function pullPod(secrets: string[]): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "private", namespace: "shop", uid: "uid-pull" },
    spec: {
      restartPolicy: "Always",
      imagePullSecrets: secrets.map((name) => ({ name })),
      containers: [{ name: "app", image: "registry.example.com/team/app:v1" }],
    },
  };
}

const dockerconfigjson = (auths: Record<string, unknown>) => ({ ".dockerconfigjson": JSON.stringify({ auths }) });

describe("PodSyncer: imagePullSecrets", () => {
  test("the pull carries the matching secret's AuthConfig; refused credentials give way to the next", async () => {
    const objects = new FakeObjectSource();
    objects.putSecret(
      "shop",
      "team",
      dockerconfigjson({ "registry.example.com/team": { auth: Buffer.from("team:t0ken").toString("base64") } }),
      "kubernetes.io/dockerconfigjson",
    );
    objects.putSecret(
      "shop",
      "host",
      dockerconfigjson({ "https://registry.example.com": { username: "robot", password: "pw" } }),
      "kubernetes.io/dockerconfigjson",
    );
    const { rt, syncer } = setup(objects);
    rt.refuse = (auth) => auth?.username === "team";
    const r = await syncer.syncPod(pullPod(["host", "team"]), undefined);
    expect(r.waiting.size).toBe(0);
    expect(rt.pulls).toEqual([
      { image: "registry.example.com/team/app:v1", auth: { username: "team", password: "t0ken" } },
      { image: "registry.example.com/team/app:v1", auth: { username: "robot", password: "pw" } },
    ]);
    expect([...rt.containers.values()].map((c) => c.state)).toEqual(["CONTAINER_RUNNING"]);
  });

  test("every credential refused: ErrImagePull with the runtime's error", async () => {
    const objects = new FakeObjectSource();
    objects.putSecret("shop", "host", dockerconfigjson({ "registry.example.com": { username: "robot", password: "bad" } }), "kubernetes.io/dockerconfigjson");
    const { rt, syncer } = setup(objects);
    rt.refuse = () => true;
    const r = await syncer.syncPod(pullPod(["host"]), undefined);
    expect(r.waiting.get("app")?.reason).toBe("ErrImagePull");
    // The kubelet's status message: the runtime's error as Go's gRPC client prints it.
    expect(r.waiting.get("app")?.message).toMatch(/^rpc error: code = \w+ desc = /);
    expect(r.waiting.get("app")?.message).toContain("401 Unauthorized");
    expect(rt.pulls.map((p) => p.auth)).toEqual([{ username: "robot", password: "bad" }]);
  });

  test("a missing pull secret is logged and the pull goes on without auth", async () => {
    const objects = new FakeObjectSource();
    const { rt, syncer, warnings } = setup(objects);
    const r = await syncer.syncPod(pullPod(["gone"]), undefined);
    expect(r.waiting.size).toBe(0);
    expect(rt.pulls).toEqual([{ image: "registry.example.com/team/app:v1", auth: undefined }]);
    expect(warnings).toEqual([
      'Unable to retrieve pull secret, the image pull may not succeed. pod=shop/private secret=shop/gone err="secret \\"gone\\" not found"',
    ]);
  });

  test("pull secrets are not read when no image is pulled", async () => {
    const objects = new FakeObjectSource();
    const { rt, syncer } = setup(objects);
    rt.addImage("registry.example.com/team/app:v1");
    await syncer.syncPod(pullPod(["gone"]), undefined);
    expect(rt.pulls).toEqual([]);
    expect(objects.reads).toEqual([]);
    expect(rt.containers.size).toBe(1);
  });
});

describe("PodSyncer: service-link variables", () => {
  function apiPod(): Pod {
    return {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "web", namespace: "shop", uid: "uid-svc", annotations: { "kubernetes.io/config.source": "api" } },
      spec: {
        restartPolicy: "Always",
        enableServiceLinks: true,
        containers: [{ name: "app", image: "localhost/nodeagent/busybox:1.35", env: [{ name: "A", value: "$(KUBERNETES_SERVICE_HOST)" }] }],
      },
    };
  }

  test("services not yet listed: CreateContainerConfigError with the kubelet's message and no container; once listed, the container gets them", async () => {
    const services = new FakeServiceLister({ synced: false });
    services.put("default", "kubernetes", "10.96.0.1", [{ name: "https", port: 443 }]);
    services.put("shop", "db", "10.96.1.2", [{ port: 5432 }]);
    const { rt, syncer } = setup(new FakeObjectSource(), services);
    const pod = apiPod();
    const r = await syncer.syncPod(pod, undefined);
    expect(r.waiting.get("app")).toEqual({
      reason: "CreateContainerConfigError",
      message: "services have not yet been read at least once, cannot construct envvars",
    });
    expect(rt.containers.size).toBe(0);
    expect(r.errors).toEqual(["app: CreateContainerConfigError: services have not yet been read at least once, cannot construct envvars"]);

    services.synced = true;
    const again = await syncer.syncPod(pod, await relist(rt, pod));
    expect(again.waiting.get("app")).toBeUndefined();
    const [config] = createdConfigs(rt);
    const env = Object.fromEntries((config!.envs ?? []).map((e) => [e.key, e.value]));
    expect(env).toMatchObject({
      A: "10.96.0.1",
      KUBERNETES_SERVICE_HOST: "10.96.0.1",
      KUBERNETES_SERVICE_PORT: "443",
      DB_SERVICE_HOST: "10.96.1.2",
      DB_PORT: "tcp://10.96.1.2:5432",
    });
    // The container's own variables come first, the services' after them.
    expect(config!.envs![0]).toEqual({ key: "A", value: "10.96.0.1" });
  });
});
