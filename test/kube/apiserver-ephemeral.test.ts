// The test API server's pods/<name>/ephemeralcontainers subresource, as the 1.36 kube-apiserver answers
// it (EphemeralContainersREST, ValidatePodEphemeralContainersUpdate): GET, PUT and PATCH, only
// additions, names unique across the pod, the fields an ephemeral container may not set, the
// generation and resourceVersion raised so that watches see the change.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Pod } from "kubernetes-types/core/v1";
import { TestApiServer } from "../fakes/apiserver";

let api: TestApiServer;

beforeAll(async () => {
  api = await TestApiServer.start();
});
afterAll(() => api.stop());

async function answer(path: string, init: RequestInit = {}): Promise<{ code: number; body: any }> {
  const resp = await fetch(api.url + path, {
    ...init,
    headers: { Authorization: `Bearer ${api.adminToken}`, "Content-Type": "application/json", ...(init.headers ?? {}) },
    tls: { ca: api.caPem },
  } as RequestInit);
  return { code: resp.status, body: await resp.json() };
}

const PODS = "/api/v1/namespaces/default/pods";
const sub = (name: string) => `${PODS}/${name}/ephemeralcontainers`;
const strategic = (body: unknown) => ({ method: "PATCH", body: JSON.stringify(body), headers: { "Content-Type": "application/strategic-merge-patch+json" } });
const put = (body: unknown) => ({ method: "PUT", body: JSON.stringify(body) });
const debug = (name: string, over: Record<string, unknown> = {}) => ({ name, image: "busybox:1.35", stdin: true, tty: true, ...over });

async function makePod(name: string, annotations?: Record<string, string>): Promise<Pod> {
  const r = await answer(PODS, {
    method: "POST",
    body: JSON.stringify({
      metadata: { name, annotations },
      spec: { nodeName: "node-a", initContainers: [{ name: "setup", image: "busybox" }], containers: [{ name: "app", image: "busybox" }] },
    }),
  });
  expect(r.code).toBe(201);
  return r.body;
}

describe("pods/ephemeralcontainers", () => {
  test("a strategic merge patch adds one: defaulted, generation 2, a new resourceVersion, a MODIFIED event; GET shows it", async () => {
    const pod = await makePod("p1");
    const events: Array<{ type: string; object: Pod }> = [];
    const stop = api.store.watch({
      resource: "pods",
      namespace: "default",
      match: (o) => o.metadata?.name === "p1",
      from: Number(pod.metadata!.resourceVersion),
      send: (type, object) => events.push({ type, object: object as Pod }),
    });
    const r = await answer(sub("p1"), strategic({ spec: { ephemeralContainers: [debug("debugger", { targetContainerName: "app" })] } }));
    stop();
    expect(r.code).toBe(200);
    expect(r.body.kind).toBe("Pod");
    expect(r.body.metadata.generation).toBe(2);
    expect(Number(r.body.metadata.resourceVersion)).toBeGreaterThan(Number(pod.metadata!.resourceVersion));
    expect(r.body.spec.ephemeralContainers).toEqual([
      {
        ...debug("debugger", { targetContainerName: "app" }),
        imagePullPolicy: "IfNotPresent",
        terminationMessagePath: "/dev/termination-log",
        terminationMessagePolicy: "File",
      },
    ]);
    expect(r.body.spec.containers).toEqual(pod.spec!.containers);
    expect(events.map((e) => [e.type, e.object.spec?.ephemeralContainers?.[0]?.name])).toEqual([["MODIFIED", "debugger"]]);
    const got = await answer(sub("p1"));
    expect(got.code).toBe(200);
    expect(got.body.spec.ephemeralContainers.map((c: { name: string }) => c.name)).toEqual(["debugger"]);
  });

  test("PUT adds a second; only spec.ephemeralContainers of the body counts", async () => {
    await makePod("p2");
    await answer(sub("p2"), strategic({ spec: { ephemeralContainers: [debug("one")] } }));
    const current = (await answer(`${PODS}/p2`)).body as Pod;
    const body = structuredClone(current);
    body.spec!.ephemeralContainers!.push(debug("two"));
    body.spec!.containers[0]!.image = "other";
    body.metadata!.labels = { changed: "yes" };
    const r = await answer(sub("p2"), put(body));
    expect(r.code).toBe(200);
    expect(r.body.spec.ephemeralContainers.map((c: { name: string }) => c.name)).toEqual(["one", "two"]);
    expect(r.body.spec.containers[0].image).toBe("busybox");
    expect(r.body.metadata.labels).toBeUndefined();
    expect(r.body.metadata.generation).toBe(3);
    // A stale resourceVersion is a conflict, as on the pod itself.
    const stale = await answer(sub("p2"), put(current));
    expect(stale.code).toBe(409);
  });

  test("the same name again: Duplicate (PUT) or may not be changed (PATCH); removal refused; 422 Invalid", async () => {
    await makePod("p3");
    expect((await answer(sub("p3"), strategic({ spec: { ephemeralContainers: [debug("debugger")] } }))).code).toBe(200);
    const current = (await answer(`${PODS}/p3`)).body as Pod;
    const dup = structuredClone(current);
    dup.spec!.ephemeralContainers!.push(dup.spec!.ephemeralContainers![0]!);
    const r1 = await answer(sub("p3"), put(dup));
    expect(r1.code).toBe(422);
    expect(r1.body).toMatchObject({ reason: "Invalid", message: 'Pod "p3" is invalid: spec.ephemeralContainers[1].name: Duplicate value: "debugger"' });
    expect(r1.body.details.causes).toEqual([
      { reason: "FieldValueDuplicate", message: 'Duplicate value: "debugger"', field: "spec.ephemeralContainers[1].name" },
    ]);
    const r2 = await answer(sub("p3"), strategic({ spec: { ephemeralContainers: [debug("debugger", { image: "agnhost:2.40" })] } }));
    expect(r2.code).toBe(422);
    expect(r2.body.message).toStartWith(
      'Pod "p3" is invalid: spec.ephemeralContainers: Forbidden: existing ephemeral containers "debugger" may not be changed\n',
    );
    const gone = structuredClone(current);
    gone.spec!.ephemeralContainers = [];
    const r3 = await answer(sub("p3"), put(gone));
    expect(r3.code).toBe(422);
    expect(r3.body.message).toBe('Pod "p3" is invalid: spec.ephemeralContainers: Forbidden: existing ephemeral containers "debugger" may not be removed\n');
    // A name of an app or init container is a duplicate too.
    const r4 = await answer(sub("p3"), strategic({ spec: { ephemeralContainers: [debug("setup")] } }));
    expect(r4.body.details.causes.map((c: { field: string; reason: string }) => `${c.field} ${c.reason}`)).toEqual([
      "spec.ephemeralContainers[1].name FieldValueDuplicate",
    ]);
  });

  test("fields an ephemeral container may not set, subPath, an unknown target: each its cause", async () => {
    await makePod("p4");
    const r = await answer(
      sub("p4"),
      strategic({
        spec: {
          ephemeralContainers: [
            debug("d", {
              targetContainerName: "nope",
              ports: [{ containerPort: 80 }],
              resources: { limits: { cpu: "1" } },
              readinessProbe: { exec: { command: ["true"] } },
              lifecycle: { preStop: { exec: { command: ["true"] } } },
              volumeMounts: [{ name: "v", mountPath: "/v", subPath: "x" }],
            }),
          ],
        },
      }),
    );
    expect(r.code).toBe(422);
    expect(r.body.details.causes.map((c: { field: string; message: string }) => `${c.field}: ${c.message}`)).toEqual([
      'spec.ephemeralContainers[0].volumeMounts[0].name: Not found: "v"',
      'spec.ephemeralContainers[0].targetContainerName: Not found: "nope"',
      "spec.ephemeralContainers[0].ports: Forbidden: cannot be set for an Ephemeral Container",
      "spec.ephemeralContainers[0].resources: Forbidden: cannot be set for an Ephemeral Container",
      "spec.ephemeralContainers[0].readinessProbe: Forbidden: cannot be set for an Ephemeral Container",
      "spec.ephemeralContainers[0].lifecycle: Forbidden: cannot be set for an Ephemeral Container",
      "spec.ephemeralContainers[0].volumeMounts[0].subPath: Forbidden: cannot be set for an Ephemeral Container",
    ]);
    // Nothing was written.
    expect((await answer(`${PODS}/p4`)).body.spec.ephemeralContainers).toBeUndefined();
  });

  test("a mirror pod: static pods do not support ephemeral containers", async () => {
    await makePod("p5", { "kubernetes.io/config.mirror": "abc" });
    const r = await answer(sub("p5"), strategic({ spec: { ephemeralContainers: [debug("d")] } }));
    expect(r.code).toBe(422);
    expect(r.body.message).toBe('Pod "p5" is invalid: : Forbidden: static pods do not support ephemeral containers');
  });

  test("the pod's own endpoint may not change them; a missing pod is 404", async () => {
    const pod = await makePod("p6");
    pod.spec!.ephemeralContainers = [debug("d")];
    expect((await answer(`${PODS}/p6`, put(pod))).code).toBe(422);
    expect((await answer(sub("missing"), strategic({ spec: { ephemeralContainers: [debug("d")] } }))).code).toBe(404);
  });
});
