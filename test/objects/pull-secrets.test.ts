import { describe, expect, test } from "bun:test";
import type { Pod, Secret } from "kubernetes-types/core/v1";
import type { AuthConfigInput } from "../../src/cri/types";
import { DockerConfigError, DockerKeyring, globMatch, imageRepository, parseDockerConfig } from "../../src/objects/docker-keyring";
import { makeDockerKeyring, podPullSecrets, pullWithCredentials } from "../../src/objects/pull-secrets";
import { FakeObjectSource } from "../fakes/object-source";
import { ALL_LEVELS, linesLog } from "../fakes/recording-log";

const b64 = (s: string) => Buffer.from(s).toString("base64");

function keyring(auths: Record<string, { username?: string; password?: string; auth?: string }>): DockerKeyring {
  const k = new DockerKeyring();
  k.add(parseDockerConfig(JSON.stringify({ auths }), true));
  return k;
}

function dockerSecret(name: string, auths: Record<string, unknown>, type = "kubernetes.io/dockerconfigjson"): Secret {
  const key = type === "kubernetes.io/dockercfg" ? ".dockercfg" : ".dockerconfigjson";
  const body = type === "kubernetes.io/dockercfg" ? auths : { auths };
  return { metadata: { name, namespace: "shop" }, type, data: { [key]: b64(JSON.stringify(body)) } };
}

describe("imageRepository (ParseNormalizedNamed(...).Name())", () => {
  test("Docker Hub names are completed; tags and digests dropped; a registry host is kept", () => {
    expect(imageRepository("busybox")).toBe("docker.io/library/busybox");
    expect(imageRepository("busybox:1.35")).toBe("docker.io/library/busybox");
    expect(imageRepository("me/app@sha256:abcd")).toBe("docker.io/me/app");
    expect(imageRepository("docker.io/busybox")).toBe("docker.io/library/busybox");
    expect(imageRepository("index.docker.io/me/app:1")).toBe("docker.io/me/app");
    expect(imageRepository("localhost:5000/app:v1")).toBe("localhost:5000/app");
    expect(imageRepository("localhost/app")).toBe("localhost/app");
    expect(imageRepository("quay.io/coreos/etcd:v3")).toBe("quay.io/coreos/etcd");
  });
});

describe("DockerKeyring", () => {
  test("an auth field (base64 user:pass, padded or not) overrides username and password", () => {
    const k = keyring({
      "a.example.com": { username: "ignored", password: "ignored", auth: b64("alice:pa:ss") },
      "b.example.com": { auth: b64("bob:x").replace(/=+$/, "") },
      "c.example.com": { username: "carol", password: "pw" },
    });
    expect(k.lookup("a.example.com/app")).toEqual([{ username: "alice", password: "pa:ss" }]);
    expect(k.lookup("b.example.com/app")).toEqual([{ username: "bob", password: "x" }]);
    expect(k.lookup("c.example.com/app")).toEqual([{ username: "carol", password: "pw" }]);
  });

  test("an auth field that is not base64(user:pass) makes the config invalid", () => {
    expect(() => parseDockerConfig(JSON.stringify({ auths: { r: { auth: b64("nocolon") } } }), true)).toThrow(
      "unable to parse auth field, must be formatted as base64(username:password)",
    );
    expect(() => parseDockerConfig(JSON.stringify({ auths: { r: { auth: "!!!" } } }), true)).toThrow(DockerConfigError);
    expect(() => parseDockerConfig("{not json", true)).toThrow(DockerConfigError);
  });

  test("every matching key, most specific first (reverse order), path as a prefix", () => {
    const k = keyring({ "quay.io": { username: "all" }, "quay.io/coreos": { username: "coreos" }, "https://quay.io/v2/other": { username: "other" } });
    expect(k.lookup("quay.io/coreos/etcd").map((c) => c.username)).toEqual(["coreos", "all"]);
    expect(k.lookup("quay.io/other/x").map((c) => c.username)).toEqual(["other", "all"]);
    expect(k.lookup("quay.io/someone/x").map((c) => c.username)).toEqual(["all"]);
    expect(k.lookup("gcr.io/x/y")).toEqual([]);
  });

  test("wildcard labels match one label each; ports must be equal", () => {
    const k = keyring({ "*.example.com": { username: "wild" }, "localhost:5000": { username: "local" } });
    expect(k.lookup("registry.example.com/app").map((c) => c.username)).toEqual(["wild"]);
    expect(k.lookup("a.b.example.com/app")).toEqual([]);
    expect(k.lookup("example.com/app")).toEqual([]);
    expect(k.lookup("localhost:5000/app").map((c) => c.username)).toEqual(["local"]);
    expect(k.lookup("localhost/app")).toEqual([]);
    expect(k.lookup("localhost:5001/app")).toEqual([]);
  });

  test("Docker Hub images fall back to the index.docker.io entry, whatever its spelling", () => {
    for (const key of ["https://index.docker.io/v1/", "index.docker.io", "https://index.docker.io/v2/"]) {
      const k = keyring({ [key]: { username: "hub" } });
      expect(k.lookup(imageRepository("busybox")).map((c) => c.username)).toEqual(["hub"]);
      expect(k.lookup(imageRepository("me/app:1")).map((c) => c.username)).toEqual(["hub"]);
      expect(k.lookup(imageRepository("quay.io/me/app"))).toEqual([]);
    }
  });

  test("filepath.Match globs", () => {
    expect(globMatch("reg?", "reg1")).toBe(true);
    expect(globMatch("reg[0-9]", "reg7")).toBe(true);
    expect(globMatch("reg[^0-9]", "reg7")).toBe(false);
    expect(globMatch("a.b", "axb")).toBe(false);
    expect(globMatch("[unclosed", "[unclosed")).toBe(false);
  });
});

describe("makeDockerKeyring", () => {
  test("dockerconfigjson and legacy dockercfg secrets go into one keyring; other types are ignored", () => {
    const k = makeDockerKeyring([
      dockerSecret("json", { "reg.example.com": { auth: b64("json:1") } }),
      dockerSecret("cfg", { "reg.example.com/team": { username: "cfg", password: "2" } }, "kubernetes.io/dockercfg"),
      {
        metadata: { name: "opaque" },
        type: "Opaque",
        data: { ".dockerconfigjson": b64(JSON.stringify({ auths: { "reg.example.com": { username: "no" } } })) },
      },
    ]);
    expect(k.lookup("reg.example.com/team/app")).toEqual([
      { username: "cfg", password: "2" },
      { username: "json", password: "1" },
    ]);
  });

  test("a docker config secret whose content does not parse fails", () => {
    const bad: Secret = { metadata: { name: "bad" }, type: "kubernetes.io/dockerconfigjson", data: { ".dockerconfigjson": b64("{") } };
    expect(() => makeDockerKeyring([bad])).toThrow(DockerConfigError);
  });
});

describe("podPullSecrets", () => {
  test("reads each named secret; a missing one is logged and the others are kept", async () => {
    const o = new FakeObjectSource();
    o.putSecret("shop", "there", { ".dockerconfigjson": "{}" }, "kubernetes.io/dockerconfigjson");
    const pod: Pod = {
      metadata: { name: "web", namespace: "shop" },
      spec: { containers: [], imagePullSecrets: [{ name: "gone" }, { name: "" }, { name: "there" }] },
    };
    const { log, lines } = linesLog(ALL_LEVELS);
    const secrets = await podPullSecrets(pod, o, log);
    expect(secrets.map((s) => s.metadata?.name)).toEqual(["there"]);
    expect(o.reads).toEqual(["Secret/shop/gone", "Secret/shop/there"]);
    expect(lines).toEqual([
      'warn Unable to retrieve pull secret, the image pull may not succeed. pod=shop/web secret=shop/gone err="secret \\"gone\\" not found"',
    ]);
  });
});

describe("pullWithCredentials", () => {
  test("no matching credentials: one pull without auth", async () => {
    const calls: (AuthConfigInput | undefined)[] = [];
    const ref = await pullWithCredentials("busybox", new DockerKeyring(), async (auth) => (calls.push(auth), "sha256:1"));
    expect(ref).toBe("sha256:1");
    expect(calls).toEqual([undefined]);
  });

  test("each matching credential in turn until a pull succeeds", async () => {
    const k = keyring({ "quay.io": { username: "old", password: "1" }, "quay.io/team": { username: "new", password: "2" } });
    const calls: (AuthConfigInput | undefined)[] = [];
    const ref = await pullWithCredentials("quay.io/team/app:v1", k, async (auth) => {
      calls.push(auth);
      if (auth?.username === "new") throw new Error("401 Unauthorized");
      return "sha256:2";
    });
    expect(ref).toBe("sha256:2");
    expect(calls).toEqual([
      { username: "new", password: "2" },
      { username: "old", password: "1" },
    ]);
  });

  test("when every try fails, the distinct errors are aggregated", async () => {
    const k = keyring({ "quay.io": { username: "a" }, "quay.io/team": { username: "b" }, "quay.io/team/app": { username: "c" } });
    const errs = ["denied", "unauthorized", "denied"];
    let i = 0;
    const p = pullWithCredentials("quay.io/team/app", k, async () => {
      throw new Error(errs[i++]);
    });
    await expect(p).rejects.toThrow("[denied, unauthorized]");
    expect(i).toBe(3);
  });

  test("a single failed try rejects with its own error", async () => {
    const k = keyring({ "quay.io": { username: "a" } });
    const err = new Error("denied");
    await expect(pullWithCredentials("quay.io/x", k, async () => Promise.reject(err))).rejects.toBe(err);
  });
});
