import { beforeEach, expect, test } from "bun:test";
import type { Pod } from "kubernetes-types/core/v1";
import { FakeClock } from "../../src/util/clock";
import { configMapPayload } from "../../src/volume/configmap";
import { makePayload, MissingKeyError } from "../../src/volume/payload";
import { podServiceAccountName } from "../../src/api/pod-references";
import { ProjectedVolumeError, projectedPayload, tokenRequest } from "../../src/volume/projected";
import { secretPayload } from "../../src/volume/secret";
import { ObjectNotFoundError, ObjectSourceError } from "../../src/objects/types";
import type { Payload } from "../../src/volume/types";
import { FakeObjectSource } from "../fakes/object-source";

const pod = (): Pod => ({ metadata: { name: "web", namespace: "prod", uid: "u-1" }, spec: { serviceAccountName: "builder", containers: [{ name: "app" }] } });
const b64 = (s: string) => Buffer.from(s).toString("base64");
const files = (p: Payload) => Object.fromEntries([...p].map(([k, v]) => [k, [new TextDecoder().decode(v.data), v.mode.toString(8)]]));

let clock: FakeClock;
let objects: FakeObjectSource;
beforeEach(() => {
  clock = new FakeClock(Date.UTC(2026, 0, 1));
  objects = new FakeObjectSource(clock);
  objects.setConfigMap({
    metadata: { namespace: "prod", name: "cfg" },
    data: { "app.conf": "port=80", mode: "fast" },
    binaryData: { "logo.bin": b64("\x00\x01PNG") },
  });
  objects.setSecret({ metadata: { namespace: "prod", name: "creds" }, data: { user: b64("admin"), pass: b64("s3cr3t") } });
});

test("makePayload: all keys with defaultMode, or the listed items at their path with their mode", () => {
  const data = new Map([
    ["a", new Uint8Array([1])],
    ["b", new Uint8Array([2])],
  ]);
  expect([...makePayload(data, undefined, 0o644, false, (k) => k).keys()]).toEqual(["a", "b"]);
  const p = makePayload(
    data,
    [
      { key: "b", path: "dir/bee", mode: 0o400 },
      { key: "a", path: "a" },
    ],
    0o640,
    false,
    (k) => k,
  );
  expect([...p].map(([k, v]) => [k, v.mode])).toEqual([
    ["dir/bee", 0o400],
    ["a", 0o640],
  ]);
  expect(() => makePayload(data, [{ key: "c", path: "c" }], 0o644, false, (k) => `no ${k}`)).toThrow(new MissingKeyError("no c"));
  expect([
    ...makePayload(
      data,
      [
        { key: "c", path: "c" },
        { key: "a", path: "x" },
      ],
      0o644,
      true,
      (k) => k,
    ).keys(),
  ]).toEqual(["x"]);
});

test("configMap volume: data and binaryData, default mode 0644, defaultMode and item modes", async () => {
  expect(files(await configMapPayload(pod(), { name: "cfg" }, objects))).toEqual({
    "app.conf": ["port=80", "644"],
    mode: ["fast", "644"],
    "logo.bin": ["\x00\x01PNG", "644"],
  });
  const p = await configMapPayload(
    pod(),
    {
      name: "cfg",
      defaultMode: 0o600,
      items: [
        { key: "logo.bin", path: "img/logo" },
        { key: "mode", path: "m", mode: 0o444 },
      ],
    },
    objects,
  );
  expect(files(p)).toEqual({ "img/logo": ["\x00\x01PNG", "600"], m: ["fast", "444"] });
  expect(objects.calls).toContain("getConfigMap prod/cfg");
});

test("configMap volume: missing key and missing object, with and without optional", async () => {
  await expect(configMapPayload(pod(), { name: "cfg", items: [{ key: "nope", path: "x" }] }, objects)).rejects.toThrow(
    "configmap references non-existent config key: nope",
  );
  expect(
    files(
      await configMapPayload(
        pod(),
        {
          name: "cfg",
          optional: true,
          items: [
            { key: "nope", path: "x" },
            { key: "mode", path: "m" },
          ],
        },
        objects,
      ),
    ),
  ).toEqual({ m: ["fast", "644"] });
  const missing = configMapPayload(pod(), { name: "gone" }, objects);
  await expect(missing).rejects.toBeInstanceOf(ObjectNotFoundError);
  await expect(configMapPayload(pod(), { name: "gone" }, objects)).rejects.toThrow('configmap "gone" not found');
  expect((await configMapPayload(pod(), { name: "gone", optional: true }, objects)).size).toBe(0);
  // Only NotFound is forgiven by optional: a forbidden read still fails.
  objects.failures.set("ConfigMap/prod/gone", 'configmaps "gone" is forbidden');
  await expect(configMapPayload(pod(), { name: "gone", optional: true }, objects)).rejects.toBeInstanceOf(ObjectSourceError);
});

test("secret volume: base64 data decoded, modes, missing key message, optional", async () => {
  expect(files(await secretPayload(pod(), { secretName: "creds", defaultMode: 0o400 }, objects))).toEqual({ user: ["admin", "400"], pass: ["s3cr3t", "400"] });
  expect(files(await secretPayload(pod(), { secretName: "creds", items: [{ key: "pass", path: "p", mode: 0o440 }] }, objects))).toEqual({
    p: ["s3cr3t", "440"],
  });
  await expect(secretPayload(pod(), { secretName: "creds", items: [{ key: "token", path: "t" }] }, objects)).rejects.toThrow(
    "references non-existent secret key: token",
  );
  await expect(secretPayload(pod(), { secretName: "absent" }, objects)).rejects.toThrow('secret "absent" not found');
  expect((await secretPayload(pod(), { secretName: "absent", optional: true }, objects)).size).toBe(0);
});

test("projected: token, configMap, secret and downwardAPI in one payload with the projected defaultMode", async () => {
  const p = await projectedPayload(
    pod(),
    {
      defaultMode: 0o640,
      sources: [
        { serviceAccountToken: { path: "token", audience: "vault", expirationSeconds: 7200 } },
        { configMap: { name: "cfg", items: [{ key: "mode", path: "mode" }] } },
        { secret: { name: "creds", items: [{ key: "user", path: "creds/user", mode: 0o400 }] } },
        { downwardAPI: { items: [{ path: "namespace", fieldRef: { fieldPath: "metadata.namespace" } }] } },
      ],
    },
    objects,
  );
  expect(files(p)).toEqual({ token: ["token-1", "640"], mode: ["fast", "640"], "creds/user": ["admin", "400"], namespace: ["prod", "640"] });
  expect(objects.issued).toHaveLength(1);
  expect(objects.issued[0]!.request).toEqual({ serviceAccountName: "builder", audience: "vault", expirationSeconds: 7200 });
  expect(objects.issued[0]!.podUID).toBe("u-1");
  expect(objects.issued[0]!.token.expirationTimestamp).toBe("2026-01-01T02:00:00Z");
});

test("projected: the kube-api-access volume as ServiceAccount admission writes it", async () => {
  objects.setConfigMap({ metadata: { namespace: "prod", name: "kube-root-ca.crt" }, data: { "ca.crt": "-----BEGIN CERTIFICATE-----" } });
  const p = await projectedPayload(
    pod(),
    {
      defaultMode: 0o644,
      sources: [
        { serviceAccountToken: { path: "token", expirationSeconds: 3607 } },
        { configMap: { name: "kube-root-ca.crt", items: [{ key: "ca.crt", path: "ca.crt" }] } },
        { downwardAPI: { items: [{ path: "namespace", fieldRef: { apiVersion: "v1", fieldPath: "metadata.namespace" } }] } },
      ],
    },
    objects,
  );
  expect(files(p)).toEqual({ token: ["token-1", "644"], "ca.crt": ["-----BEGIN CERTIFICATE-----", "644"], namespace: ["prod", "644"] });
  expect(objects.issued[0]!.request).toEqual({ serviceAccountName: "builder", audience: "", expirationSeconds: 3607 });
});

test("projected token: default expiration 3600, minimum 600, 0600 with an fsGroup, 'default' service account", async () => {
  const p = pod();
  expect(tokenRequest(p, { path: "t" })).toEqual({ serviceAccountName: "builder", audience: "", expirationSeconds: 3600 });
  expect(() => tokenRequest(p, { path: "t", expirationSeconds: 599 })).toThrow("may not specify a duration less than 10 minutes");
  expect(tokenRequest(p, { path: "t", expirationSeconds: 600 }).expirationSeconds).toBe(600);
  expect(podServiceAccountName({ metadata: {}, spec: { containers: [] } })).toBe("default");
  p.spec!.securityContext = { fsGroup: 2000 };
  expect(files(await projectedPayload(p, { sources: [{ serviceAccountToken: { path: "t" } }] }, objects))).toEqual({ t: ["token-1", "600"] });
});

test("projected: every failing source is reported, as the kubelet's aggregate error, optional ones forgiven", async () => {
  const sources = [
    { configMap: { name: "gone" } },
    { secret: { name: "absent", optional: true } },
    { secret: { name: "creds", items: [{ key: "token", path: "t" }] } },
    { serviceAccountToken: { path: "token" } },
  ];
  objects.failures.set("ServiceAccount/prod/builder", 'serviceaccounts "builder" is forbidden');
  const err = await projectedPayload(pod(), { sources }, objects).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ProjectedVolumeError);
  expect((err as Error).message).toBe('[configmap "gone" not found, references non-existent secret key: token, serviceaccounts "builder" is forbidden]');
  await expect(projectedPayload(pod(), { sources: [{ configMap: { name: "gone" } }] }, objects)).rejects.toThrow(/^configmap "gone" not found$/);
});

test("projected: a clusterTrustBundle source is refused with a reason, never silently skipped", async () => {
  await expect(projectedPayload(pod(), { sources: [{ clusterTrustBundle: { name: "ca", path: "ca.pem" } }] }, objects)).rejects.toThrow(
    'clusterTrustBundle projections are not supported by nodeagent (path "ca.pem")',
  );
});
