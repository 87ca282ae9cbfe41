// The kubelet's authenticator: x509 (CN = user, O = groups), the push token, the TokenReview webhook
// with its cache, anonymous only when nothing was presented.
import { describe, expect, test } from "bun:test";
import type { TokenReview } from "kubernetes-types/authentication/v1";
import { ANONYMOUS_USER, AuthenticationError, Authenticator, bearerToken, PUSH_TOKEN_USER, x509User, type PeerCertificate } from "../../src/server/authn";
import { FakeClock } from "../../src/util/clock";

const goodPeer: PeerCertificate = {
  verified: true,
  commonName: "system:kube-apiserver-kubelet-client",
  organizations: ["kubeadm:cluster-admins", "ops"],
  extKeyUsage: ["1.3.6.1.5.5.7.3.2"],
};

/** A TokenReviewer that knows one token, counting its calls. */
class FakeReviewer {
  calls = 0;
  constructor(
    private readonly known: Record<string, { username: string; groups?: string[] }>,
    private readonly fail = false,
  ) {}
  async createTokenReview(r: TokenReview): Promise<TokenReview> {
    this.calls++;
    if (this.fail) throw new Error("connection refused");
    const u = this.known[r.spec.token ?? ""];
    return { ...r, status: u ? { authenticated: true, user: u } : { authenticated: false } };
  }
}

describe("x509", () => {
  test("CN is the user, every O a group", () => {
    expect(x509User(goodPeer)).toEqual({ name: "system:kube-apiserver-kubelet-client", groups: ["kubeadm:cluster-admins", "ops"] });
    expect(x509User(undefined)).toBeUndefined();
    // No CN: no opinion (CommonNameUserConversion), not an error.
    expect(x509User({ ...goodPeer, commonName: undefined })).toBeUndefined();
    // No EKU extension: any usage, as Go's x509 treats it.
    expect(x509User({ ...goodPeer, extKeyUsage: undefined })?.name).toBe("system:kube-apiserver-kubelet-client");
  });
  test("a certificate not signed by the client CA, or for servers only, is an error", () => {
    expect(() => x509User({ ...goodPeer, verified: false, verifyError: "UNABLE_TO_VERIFY_LEAF_SIGNATURE" })).toThrow(
      "verifying certificate failed: UNABLE_TO_VERIFY_LEAF_SIGNATURE",
    );
    expect(() => x509User({ ...goodPeer, extKeyUsage: ["1.3.6.1.5.5.7.3.1"] })).toThrow("incompatible key usage");
  });
});

test("bearerToken reads the header as bearertoken.Authenticator does", () => {
  expect(bearerToken("Bearer abc")).toBe("abc");
  expect(bearerToken("bearer abc")).toBe("abc");
  expect(bearerToken("  Bearer abc  ")).toBe("abc");
  expect(bearerToken("Basic abc")).toBeUndefined();
  expect(bearerToken("Bearer")).toBeUndefined();
  expect(bearerToken(null)).toBeUndefined();
});

describe("Authenticator", () => {
  const clock = new FakeClock();

  test("the push token; system:authenticated added to every authenticated user", async () => {
    const a = new Authenticator({ pushToken: "s3cret", x509: true, anonymous: false, clock });
    expect(await a.authenticate({ authorization: "Bearer s3cret" })).toEqual(PUSH_TOKEN_USER);
    expect(await a.authenticate({ authorization: null, peer: goodPeer })).toEqual({
      name: "system:kube-apiserver-kubelet-client",
      groups: ["kubeadm:cluster-admins", "ops", "system:authenticated"],
    });
  });

  test("nothing presented: unauthenticated, or system:anonymous with --anonymous-auth", async () => {
    expect(await new Authenticator({ pushToken: "s3cret", anonymous: false, clock }).authenticate({ authorization: null })).toBeUndefined();
    expect(await new Authenticator({ pushToken: "s3cret", anonymous: true, clock }).authenticate({ authorization: null })).toEqual(ANONYMOUS_USER);
  });

  test("a wrong token or a bad certificate is an error even with --anonymous-auth (never anonymous)", async () => {
    const a = new Authenticator({ pushToken: "s3cret", x509: true, anonymous: true, clock });
    await expect(a.authenticate({ authorization: "Bearer nope" })).rejects.toThrow(AuthenticationError);
    await expect(a.authenticate({ authorization: null, peer: { ...goodPeer, verified: false } })).rejects.toThrow("verifying certificate failed");
    // A bad certificate does not stop a good token (the union tries every authenticator).
    expect(await a.authenticate({ authorization: "Bearer s3cret", peer: { ...goodPeer, verified: false } })).toEqual(PUSH_TOKEN_USER);
  });

  test("TokenReview: answers (yes and no) kept for cacheTTL, errors not kept", async () => {
    const clock = new FakeClock();
    const reviewer = new FakeReviewer({ "sa-token": { username: "system:serviceaccount:monitoring:prometheus", groups: ["system:serviceaccounts"] } });
    const a = new Authenticator({ webhook: { reviewer, cacheTTLMs: 120_000 }, anonymous: false, clock });
    const sa = { name: "system:serviceaccount:monitoring:prometheus", groups: ["system:serviceaccounts", "system:authenticated"] };
    expect(await a.authenticate({ authorization: "Bearer sa-token" })).toEqual(sa);
    await expect(a.authenticate({ authorization: "Bearer unknown" })).rejects.toThrow("invalid bearer token");
    expect(reviewer.calls).toBe(2);
    await clock.advance(119_999);
    expect(await a.authenticate({ authorization: "Bearer sa-token" })).toEqual(sa);
    await expect(a.authenticate({ authorization: "Bearer unknown" })).rejects.toThrow("invalid bearer token");
    expect(reviewer.calls).toBe(2);
    await clock.advance(1);
    await a.authenticate({ authorization: "Bearer sa-token" });
    expect(reviewer.calls).toBe(3);

    const down = new FakeReviewer({}, true);
    const b = new Authenticator({ webhook: { reviewer: down, cacheTTLMs: 120_000 }, anonymous: true, clock });
    await expect(b.authenticate({ authorization: "Bearer x" })).rejects.toThrow("connection refused");
    await expect(b.authenticate({ authorization: "Bearer x" })).rejects.toThrow("connection refused");
    expect(down.calls).toBe(2);
  });
});
