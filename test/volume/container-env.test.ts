import { describe, expect, test } from "bun:test";
import type { Container, EnvVarSource, Pod } from "kubernetes-types/core/v1";
import { ContainerConfigError, makeEnvironmentVariables } from "../../src/volume/container-env";
import { FakeObjectSource } from "../fakes/object-source";

const pod: Pod = { metadata: { name: "web", namespace: "shop", uid: "uid-1" }, spec: { containers: [] } };
const downward = (s: EnvVarSource) => (s.fieldRef ? `field:${s.fieldRef.fieldPath}` : `resource:${s.resourceFieldRef?.resource}`);

function container(c: Partial<Container>): Container {
  return { name: "app", image: "busybox", ...c };
}

async function env(objects: FakeObjectSource, c: Partial<Container>) {
  return makeEnvironmentVariables(pod, container(c), objects, downward);
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
      { reason: "InvalidEnvironmentVariableNames", message: "Keys [..dots, 1st, has space] from the EnvFrom configMap shop/cfg were skipped since they are considered invalid environment variable names." },
      { reason: "InvalidEnvironmentVariableNames", message: "Keys [P_bad=name] from the EnvFrom secret shop/creds were skipped since they are considered invalid environment variable names." },
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
    const r = await makeEnvironmentVariables({ metadata: { name: "p" }, spec: { containers: [] } }, container({ envFrom: [{ configMapRef: { name: "cfg" } }] }), o, downward);
    expect(r.env).toEqual([{ key: "A", value: "1" }]);
  });
});
