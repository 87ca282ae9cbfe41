import { describe, expect, test } from "bun:test";
import type { Container, EnvVarSource, Pod } from "kubernetes-types/core/v1";
import { ContainerConfigError, makeEnvironmentVariables } from "../../src/objects/container-env";
import { NoServiceLister } from "../../src/objects/no-service-lister";
import { FakeObjectSource } from "../fakes/object-source";
import { FakeServiceLister } from "../fakes/service-lister";

const pod: Pod = { metadata: { name: "web", namespace: "shop", uid: "uid-1" }, spec: { containers: [] } };
const downward = (s: EnvVarSource) => (s.fieldRef ? `field:${s.fieldRef.fieldPath}` : `resource:${s.resourceFieldRef?.resource}`);

function container(c: Partial<Container>): Container {
  return { name: "app", image: "busybox", ...c };
}

async function env(objects: FakeObjectSource, c: Partial<Container>) {
  return makeEnvironmentVariables(pod, container(c), objects, downward, new FakeServiceLister());
}

async function failure(objects: FakeObjectSource, c: Partial<Container>): Promise<ContainerConfigError> {
  try {
    await env(objects, c);
  } catch (err) {
    if (err instanceof ContainerConfigError) return err;
    throw err;
  }
  throw new Error("expected a ContainerConfigError");
}

describe("makeEnvironmentVariables", () => {
  test("envFrom first in list order with prefixes, env overrides it, $(VAR) sees both", async () => {
    const o = new FakeObjectSource();
    o.putConfigMap("shop", "cfg", { MODE: "prod", HOST: "db" });
    o.putSecret("shop", "creds", { PASSWORD: "s3cret", MODE: "from-secret" });
    const r = await env(o, {
      envFrom: [{ configMapRef: { name: "cfg" } }, { secretRef: { name: "creds" } }, { prefix: "CFG_", configMapRef: { name: "cfg" } }],
      env: [
        { name: "HOST", value: "override-$(MODE)" },
        { name: "URL", value: "postgres://$(HOST):$(PASSWORD)@$(CFG_HOST)/$(NOPE)$$(MODE)" },
        { name: "POD", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
        { name: "CPU", valueFrom: { resourceFieldRef: { resource: "limits.cpu" } } },
        { name: "EMPTY", value: "" },
      ],
    });
    expect(r.env).toEqual([
      { key: "MODE", value: "from-secret" },
      { key: "HOST", value: "override-from-secret" },
      { key: "PASSWORD", value: "s3cret" },
      { key: "CFG_MODE", value: "prod" },
      { key: "CFG_HOST", value: "db" },
      { key: "URL", value: "postgres://override-from-secret:s3cret@db/$(NOPE)$(MODE)" },
      { key: "POD", value: "field:metadata.name" },
      { key: "CPU", value: "resource:limits.cpu" },
      { key: "EMPTY", value: "" },
    ]);
    expect(r.warnings).toEqual([]);
  });

  test("configMapKeyRef and secretKeyRef read the key; a secret's stringData wins over data", async () => {
    const o = new FakeObjectSource();
    o.putConfigMap("shop", "cfg", { level: "debug" });
    o.putSecret("shop", "creds", { token: "abc" });
    o.secrets.get("shop/creds")!.stringData = { extra: "plain" };
    const r = await env(o, {
      env: [
        { name: "LEVEL", valueFrom: { configMapKeyRef: { name: "cfg", key: "level" } } },
        { name: "TOKEN", valueFrom: { secretKeyRef: { name: "creds", key: "token" } } },
        { name: "EXTRA", valueFrom: { secretKeyRef: { name: "creds", key: "extra" } } },
      ],
    });
    expect(r.env).toEqual([
      { key: "LEVEL", value: "debug" },
      { key: "TOKEN", value: "abc" },
      { key: "EXTRA", value: "plain" },
    ]);
    // Each object is read once per resolution, as the kubelet keeps them in a map for the call.
    expect(o.reads).toEqual(["ConfigMap/shop/cfg", "Secret/shop/creds"]);
  });

  test("envFrom keys that are not valid env var names are skipped, one warning per source, sorted", async () => {
    const o = new FakeObjectSource();
    o.putConfigMap("shop", "cfg", { "1st": "a", good: "b", "has space": "c", "..dots": "d" });
    o.putSecret("shop", "creds", { "bad=name": "x" });
    const r = await env(o, { envFrom: [{ configMapRef: { name: "cfg" } }, { prefix: "P_", secretRef: { name: "creds" } }] });
    expect(r.env).toEqual([{ key: "good", value: "b" }]);
    expect(r.warnings).toEqual([
      {
        reason: "InvalidEnvironmentVariableNames",
        message: "Keys [..dots, 1st, has space] from the EnvFrom configMap shop/cfg were skipped since they are considered invalid environment variable names.",
      },
      {
        reason: "InvalidEnvironmentVariableNames",
        message: "Keys [P_bad=name] from the EnvFrom secret shop/creds were skipped since they are considered invalid environment variable names.",
      },
    ]);
  });

  test("a prefix can make a key valid", async () => {
    const o = new FakeObjectSource();
    o.putConfigMap("shop", "cfg", { "1st": "a" });
    const r = await env(o, { envFrom: [{ prefix: "X_", configMapRef: { name: "cfg" } }] });
    expect(r.env).toEqual([{ key: "X_1st", value: "a" }]);
  });

  test("a missing required object or key fails with the kubelet's message and reason", async () => {
    const o = new FakeObjectSource();
    o.putConfigMap("shop", "cfg", { a: "1" });
    o.putSecret("shop", "creds", { b: "2" });
    const cases: [Partial<Container>, string][] = [
      [{ envFrom: [{ configMapRef: { name: "missing" } }] }, 'configmap "missing" not found'],
      [{ envFrom: [{ secretRef: { name: "missing" } }] }, 'secret "missing" not found'],
      [{ env: [{ name: "A", valueFrom: { configMapKeyRef: { name: "missing", key: "a" } } }] }, 'configmap "missing" not found'],
      [{ env: [{ name: "A", valueFrom: { configMapKeyRef: { name: "cfg", key: "nope" } } }] }, "couldn't find key nope in ConfigMap shop/cfg"],
      [{ env: [{ name: "B", valueFrom: { secretKeyRef: { name: "missing", key: "b" } } }] }, 'secret "missing" not found'],
      [{ env: [{ name: "B", valueFrom: { secretKeyRef: { name: "creds", key: "nope" } } }] }, "couldn't find key nope in Secret shop/creds"],
    ];
    for (const [c, message] of cases) {
      const err = await failure(o, c);
      expect(err.message).toBe(message);
      expect(err.reason).toBe("CreateContainerConfigError");
    }
  });

  test("optional: a missing object adds nothing, a missing key leaves what envFrom set", async () => {
    const o = new FakeObjectSource();
    o.putConfigMap("shop", "cfg", { A: "from-envFrom" });
    const r = await env(o, {
      envFrom: [{ configMapRef: { name: "cfg" } }, { configMapRef: { name: "gone", optional: true } }, { secretRef: { name: "gone", optional: true } }],
      env: [
        { name: "A", valueFrom: { configMapKeyRef: { name: "cfg", key: "nope", optional: true } } },
        { name: "B", valueFrom: { configMapKeyRef: { name: "gone", key: "x", optional: true } } },
        { name: "C", valueFrom: { secretKeyRef: { name: "gone", key: "x", optional: true } } },
      ],
    });
    expect(r.env).toEqual([{ key: "A", value: "from-envFrom" }]);
  });

  test("an object named optional once and required later still fails the required entry", async () => {
    const o = new FakeObjectSource();
    const err = await failure(o, {
      envFrom: [{ configMapRef: { name: "gone", optional: true } }],
      env: [{ name: "X", valueFrom: { configMapKeyRef: { name: "gone", key: "k" } } }],
    });
    expect(err.message).toBe('configmap "gone" not found');
  });

  test("optional forgives NotFound only: a source failure fails the container with its message", async () => {
    const o = new FakeObjectSource();
    o.failures.set("ConfigMap/shop/cfg", "configmaps \"cfg\" is forbidden: no relationship found between node 'n1' and this object");
    const err = await failure(o, { envFrom: [{ configMapRef: { name: "cfg", optional: true } }] });
    expect(err.message).toBe("configmaps \"cfg\" is forbidden: no relationship found between node 'n1' and this object");
    expect(err.reason).toBe("CreateContainerConfigError");
  });

  test("the pod's namespace names the objects (default when unset)", async () => {
    const o = new FakeObjectSource();
    o.putConfigMap("default", "cfg", { A: "1" });
    const r = await makeEnvironmentVariables(
      { metadata: { name: "p" }, spec: { containers: [] } },
      container({ envFrom: [{ configMapRef: { name: "cfg" } }] }),
      o,
      downward,
      new FakeServiceLister(),
    );
    expect(r.env).toEqual([{ key: "A", value: "1" }]);
  });
});

describe("makeEnvironmentVariables: service-link variables", () => {
  /** The API server's master service, the way kube-apiserver makes it (kubeadm's service CIDR). */
  const master = (services: FakeServiceLister) =>
    services.put("default", "kubernetes", "10.96.0.1", [{ name: "https", port: 443, protocol: "TCP", targetPort: 6443 }]);
  const apiPod = (p: Partial<Pod["spec"]> = {}, namespace = "shop"): Pod => ({
    metadata: { name: "web", namespace, uid: "uid-1", annotations: { "kubernetes.io/config.source": "api" } },
    spec: { containers: [], enableServiceLinks: true, ...p },
  });
  const resolve = (p: Pod, services: FakeServiceLister, c: Partial<Container> = {}, objects = new FakeObjectSource()) =>
    makeEnvironmentVariables(p, container(c), objects, downward, services);
  const asRecord = (env: { key: string; value: string }[]) => Object.fromEntries(env.map((e) => [e.key, e.value]));

  test("the master service gives KUBERNETES_SERVICE_HOST/PORT and its docker-link variables, exactly as FromServices", async () => {
    const services = new FakeServiceLister();
    master(services);
    const r = await resolve(apiPod(), services);
    expect(r.env).toEqual([
      { key: "KUBERNETES_SERVICE_HOST", value: "10.96.0.1" },
      { key: "KUBERNETES_SERVICE_PORT", value: "443" },
      { key: "KUBERNETES_SERVICE_PORT_HTTPS", value: "443" },
      { key: "KUBERNETES_PORT", value: "tcp://10.96.0.1:443" },
      { key: "KUBERNETES_PORT_443_TCP", value: "tcp://10.96.0.1:443" },
      { key: "KUBERNETES_PORT_443_TCP_PROTO", value: "tcp" },
      { key: "KUBERNETES_PORT_443_TCP_PORT", value: "443" },
      { key: "KUBERNETES_PORT_443_TCP_ADDR", value: "10.96.0.1" },
    ]);
  });

  test("a service of the pod's namespace with several named ports, one UDP; headless and ExternalName give nothing; other namespaces neither", async () => {
    const services = new FakeServiceLister();
    master(services);
    services.put("shop", "redis-primary", "10.96.7.8", [
      { name: "client", port: 6379, protocol: "TCP" },
      { name: "gossip-udp", port: 7946, protocol: "UDP" },
      { name: "metrics", port: 9121 }, // protocol defaults to TCP
    ]);
    services.put("shop", "headless", "None", [{ port: 80 }]);
    services.put("shop", "external", "", [{ port: 80 }]);
    services.put("other", "elsewhere", "10.96.9.9", [{ port: 80 }]);
    const env = asRecord((await resolve(apiPod(), services)).env);
    const redis = Object.fromEntries(Object.entries(env).filter(([k]) => k.startsWith("REDIS_PRIMARY_")));
    expect(redis).toEqual({
      REDIS_PRIMARY_SERVICE_HOST: "10.96.7.8",
      REDIS_PRIMARY_SERVICE_PORT: "6379",
      REDIS_PRIMARY_SERVICE_PORT_CLIENT: "6379",
      REDIS_PRIMARY_SERVICE_PORT_GOSSIP_UDP: "7946",
      REDIS_PRIMARY_SERVICE_PORT_METRICS: "9121",
      REDIS_PRIMARY_PORT: "tcp://10.96.7.8:6379",
      REDIS_PRIMARY_PORT_6379_TCP: "tcp://10.96.7.8:6379",
      REDIS_PRIMARY_PORT_6379_TCP_PROTO: "tcp",
      REDIS_PRIMARY_PORT_6379_TCP_PORT: "6379",
      REDIS_PRIMARY_PORT_6379_TCP_ADDR: "10.96.7.8",
      REDIS_PRIMARY_PORT_7946_UDP: "udp://10.96.7.8:7946",
      REDIS_PRIMARY_PORT_7946_UDP_PROTO: "udp",
      REDIS_PRIMARY_PORT_7946_UDP_PORT: "7946",
      REDIS_PRIMARY_PORT_7946_UDP_ADDR: "10.96.7.8",
      REDIS_PRIMARY_PORT_9121_TCP: "tcp://10.96.7.8:9121",
      REDIS_PRIMARY_PORT_9121_TCP_PROTO: "tcp",
      REDIS_PRIMARY_PORT_9121_TCP_PORT: "9121",
      REDIS_PRIMARY_PORT_9121_TCP_ADDR: "10.96.7.8",
    });
    expect(env.KUBERNETES_SERVICE_HOST).toBe("10.96.0.1");
    expect(Object.keys(env).filter((k) => /HEADLESS|EXTERNAL|ELSEWHERE/.test(k))).toEqual([]);
  });

  test("an IPv6 cluster IP is bracketed in the URLs, not in _ADDR or _HOST", async () => {
    const services = new FakeServiceLister();
    services.put("shop", "v6", "fd00:10:96::a", [{ port: 8080 }]);
    const env = asRecord((await resolve(apiPod(), services)).env);
    expect(env.V6_SERVICE_HOST).toBe("fd00:10:96::a");
    expect(env.V6_PORT).toBe("tcp://[fd00:10:96::a]:8080");
    expect(env.V6_PORT_8080_TCP_ADDR).toBe("fd00:10:96::a");
  });

  test("enableServiceLinks false: only the master service", async () => {
    const services = new FakeServiceLister();
    master(services);
    services.put("shop", "db", "10.96.1.2", [{ port: 5432 }]);
    const env = asRecord((await resolve(apiPod({ enableServiceLinks: false }), services)).env);
    expect(env.KUBERNETES_SERVICE_HOST).toBe("10.96.0.1");
    expect(env.DB_SERVICE_HOST).toBeUndefined();
    // Unset means true, as the API server defaults it.
    const defaulted = apiPod();
    delete defaulted.spec!.enableServiceLinks;
    expect(asRecord((await resolve(defaulted, services)).env).DB_SERVICE_HOST).toBe("10.96.1.2");
  });

  test("a pod in default sees every service there; a `kubernetes` service of the pod's own namespace wins over the master one", async () => {
    const services = new FakeServiceLister();
    master(services);
    services.put("default", "web", "10.96.3.3", [{ port: 80 }]);
    services.put("zoo", "kubernetes", "10.96.4.4", [{ port: 8443 }]);
    services.put("aaa", "kubernetes", "10.96.5.5", [{ port: 9443 }]);
    const inDefault = asRecord((await resolve(apiPod({}, "default"), services)).env);
    expect([inDefault.KUBERNETES_SERVICE_HOST, inDefault.WEB_SERVICE_HOST]).toEqual(["10.96.0.1", "10.96.3.3"]);
    // Whichever side of "default" the namespace sorts, its own service is the one.
    expect(asRecord((await resolve(apiPod({}, "zoo"), services)).env).KUBERNETES_SERVICE_PORT).toBe("8443");
    expect(asRecord((await resolve(apiPod({}, "aaa"), services)).env).KUBERNETES_SERVICE_PORT).toBe("9443");
    // …and with links off, the master one.
    expect(asRecord((await resolve(apiPod({ enableServiceLinks: false }, "zoo"), services)).env).KUBERNETES_SERVICE_PORT).toBe("443");
  });

  test("service variables are the lowest: envFrom and env win, and $(VAR) can reference them", async () => {
    const services = new FakeServiceLister();
    master(services);
    services.put("shop", "db", "10.96.1.2", [{ port: 5432 }]);
    const objects = new FakeObjectSource();
    objects.putConfigMap("shop", "cfg", { DB_SERVICE_HOST: "db.example", OTHER: "x" });
    const r = await resolve(
      apiPod(),
      services,
      {
        envFrom: [{ configMapRef: { name: "cfg" } }],
        env: [
          { name: "KUBERNETES_SERVICE_PORT", value: "6443" },
          { name: "URL", value: "postgres://$(DB_SERVICE_HOST):$(DB_SERVICE_PORT)/$(KUBERNETES_SERVICE_PORT)@$(KUBERNETES_SERVICE_HOST)" },
        ],
      },
      objects,
    );
    const env = asRecord(r.env);
    expect(env.DB_SERVICE_HOST).toBe("db.example");
    expect(env.KUBERNETES_SERVICE_PORT).toBe("6443");
    // A container's own variables first, then the services': envFrom's host, the service's port.
    expect(env.URL).toBe("postgres://db.example:5432/6443@10.96.0.1");
    // Each name once; the container's own variables first, in their order, then the services'.
    expect(r.env.map((e) => e.key).slice(0, 4)).toEqual(["DB_SERVICE_HOST", "OTHER", "KUBERNETES_SERVICE_PORT", "URL"]);
    expect(new Set(r.env.map((e) => e.key)).size).toBe(r.env.length);
  });

  test("before the services have been listed once, an API pod's env fails with the kubelet's message; a static pod does not wait", async () => {
    const services = new FakeServiceLister({ synced: false });
    master(services);
    const objects = new FakeObjectSource();
    objects.putConfigMap("shop", "cfg", { A: "1" });
    let err: unknown;
    try {
      await resolve(apiPod(), services, { envFrom: [{ configMapRef: { name: "cfg" } }] }, objects);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ContainerConfigError);
    expect((err as ContainerConfigError).message).toBe("services have not yet been read at least once, cannot construct envvars");
    expect((err as ContainerConfigError).reason).toBe("CreateContainerConfigError");
    expect(objects.reads).toEqual([]);
    // A pod without a source annotation is treated as the API's too (the kubelet's IsStaticPod is false).
    await expect(resolve({ ...apiPod(), metadata: { name: "web", namespace: "shop" } }, services)).rejects.toThrow("services have not yet been read");
    // A static pod (file, URL or pushed) does not wait: it gets what is known.
    const staticPod = apiPod();
    staticPod.metadata!.annotations = { "kubernetes.io/config.source": "file" };
    expect(asRecord((await resolve(staticPod, services)).env).KUBERNETES_SERVICE_HOST).toBe("10.96.0.1");
    // Once listed, the API pod's env is made.
    services.synced = true;
    expect(asRecord((await resolve(apiPod(), services, { envFrom: [{ configMapRef: { name: "cfg" } }] }, objects)).env)).toMatchObject({
      A: "1",
      KUBERNETES_SERVICE_HOST: "10.96.0.1",
    });
  });

  test("standalone (NoServiceLister): synced, and no service variables at all", async () => {
    const lister = new NoServiceLister();
    const r = await makeEnvironmentVariables(
      apiPod(),
      container({ env: [{ name: "A", value: "$(KUBERNETES_SERVICE_HOST)" }] }),
      new FakeObjectSource(),
      downward,
      lister,
    );
    expect(r.env).toEqual([{ key: "A", value: "$(KUBERNETES_SERVICE_HOST)" }]);
  });
});
