// The built-in emptyDir and hostPath plugins, the objects a pod uses, and the standalone refusal.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, statSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod } from "kubernetes-types/core/v1";
import { EmptyDirPlugin, HostPathPlugin } from "../../src/volume/host-volumes";
import { NoObjectSource } from "../../src/volume/no-object-source";
import { podObjectRefs, usesObject } from "../../src/volume/object-refs";
import { ObjectSourceError } from "../../src/volume/types";

const base = mkdtempSync(join(tmpdir(), "nodeagent-volume-plugins-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));
const pod: Pod = { metadata: { name: "p", namespace: "ns", uid: "u" }, spec: { containers: [] } };

describe("emptyDir and hostPath", () => {
  test("emptyDir: a folder of mode 0777 whatever the umask, kept on a second set-up, removed on tear-down; medium Memory is not this plugin's", async () => {
    const p = new EmptyDirPlugin();
    const dir = join(base, "e", "work");
    const old = process.umask(0o022);
    try {
      expect(await p.setUp(pod, { name: "work", emptyDir: {} }, dir)).toBe(dir);
    } finally {
      process.umask(old);
    }
    expect(statSync(dir).mode & 0o777).toBe(0o777);
    await Bun.write(join(dir, "f"), "x");
    await p.setUp(pod, { name: "work", emptyDir: {} }, dir);
    expect(existsSync(join(dir, "f"))).toBe(true);
    await p.tearDown(dir);
    expect(existsSync(dir)).toBe(false);
    expect(p.canSupport({ name: "m", emptyDir: { medium: "Memory" } })).toBe(false);
  });

  test("hostPath: DirectoryOrCreate and FileOrCreate create; the other types are checked with the kubelet's message", async () => {
    const p = new HostPathPlugin();
    const d = join(base, "h", "dir");
    expect(await p.setUp(pod, { name: "h", hostPath: { path: d, type: "DirectoryOrCreate" } }, "/unused")).toBe(d);
    expect(statSync(d).isDirectory()).toBe(true);
    const f = join(base, "h", "file");
    await p.setUp(pod, { name: "h", hostPath: { path: f, type: "FileOrCreate" } }, "/unused");
    expect(statSync(f).isFile()).toBe(true);
    await expect(p.setUp(pod, { name: "h", hostPath: { path: f, type: "Directory" } }, "/unused")).rejects.toThrow(`hostPath type check failed: ${f} is not a directory`);
    await expect(p.setUp(pod, { name: "h", hostPath: { path: d, type: "File" } }, "/unused")).rejects.toThrow(`hostPath type check failed: ${d} is not a file`);
    await expect(p.setUp(pod, { name: "h", hostPath: { path: join(base, "none"), type: "Socket" } }, "/unused")).rejects.toThrow("is not a socket file");
    expect(await p.setUp(pod, { name: "h", hostPath: { path: join(base, "none") } }, "/unused")).toBe(join(base, "none"));
  });
});

describe("the objects a pod uses", () => {
  test("volumes (projected included, the token naming the service account), env, envFrom and pull secrets, once each", () => {
    const p: Pod = {
      metadata: { name: "p", namespace: "ns" },
      spec: {
        serviceAccountName: "robot",
        imagePullSecrets: [{ name: "regcred" }],
        volumes: [
          { name: "a", configMap: { name: "cm" } },
          { name: "b", secret: { secretName: "s" } },
          { name: "c", projected: { sources: [{ serviceAccountToken: { path: "token" } }, { configMap: { name: "kube-root-ca.crt" } }, { secret: { name: "s" } }] } },
        ],
        containers: [{ name: "x", envFrom: [{ configMapRef: { name: "env-cm" } }], env: [{ name: "K", valueFrom: { secretKeyRef: { name: "env-s", key: "k" } } }] }],
      },
    };
    expect(podObjectRefs(p).map((r) => `${r.kind}/${r.namespace}/${r.name}`)).toEqual([
      "ConfigMap/ns/cm", "Secret/ns/s", "ServiceAccount/ns/robot", "ConfigMap/ns/kube-root-ca.crt", "ConfigMap/ns/env-cm", "Secret/ns/env-s", "Secret/ns/regcred",
    ]);
    expect(usesObject(p, { kind: "Secret", namespace: "ns", name: "env-s" })).toBe(true);
    expect(usesObject(p, { kind: "Secret", namespace: "other", name: "env-s" })).toBe(false);
  });

  test("standalone without --local-objects: every read is refused with the kubelet's rule and the way out", async () => {
    const none = new NoObjectSource();
    const err = await none.getConfigMap("ns", "cm").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ObjectSourceError);
    expect((err as Error).message).toBe(`configmap "cm" cannot be read: without --kubeconfig there is no API server, and static and pushed pods may not use API objects (the kubelet's rule); start the agent with --local-objects DIR to serve ConfigMaps and Secrets from files`);
    await expect(none.getServiceAccountToken(pod, { serviceAccountName: "default", audience: "", expirationSeconds: 3600 })).rejects.toThrow(`a token for serviceaccount "default" cannot be read`);
  });
});
