// The kubelet's token manager rules on a FakeClock: cache key, refresh at 80 % of the lifetime and at
// 24 h, an old token served while a refresh fails until it expires, the kubelet's messages, cleanup.
import { describe, expect, test } from "bun:test";
import type { TokenRequest } from "kubernetes-types/authentication/v1";
import { FakeClock } from "../../src/util/clock";
import { createLogger } from "../../src/util/log";
import { TokenManager, tokenKey } from "../../src/objects/token-manager";

const log = createLogger("text", -1);

const request = (uid: string, expirationSeconds = 3600, audiences: string[] = []): TokenRequest => ({
  spec: { audiences, expirationSeconds, boundObjectRef: { apiVersion: "v1", kind: "Pod", name: `pod-${uid}`, uid } },
});

/** A fake TokenRequest API on the clock: token-<n>, expiring after the (optionally capped) seconds asked. */
function fakeApi(clock: FakeClock, capSeconds?: number) {
  const calls: Array<{ namespace: string; name: string; req: TokenRequest }> = [];
  let fail: Error | undefined;
  const fn = async (namespace: string, name: string, req: TokenRequest): Promise<TokenRequest> => {
    calls.push({ namespace, name, req });
    if (fail) throw fail;
    const seconds = Math.min(req.spec.expirationSeconds ?? 3600, capSeconds ?? Infinity);
    return {
      ...req,
      spec: { ...req.spec, expirationSeconds: seconds },
      status: { token: `token-${calls.length}`, expirationTimestamp: new Date(clock.now() + seconds * 1000).toISOString() },
    };
  };
  return { fn, calls, failWith: (e: Error | undefined) => (fail = e) };
}

describe("TokenManager", () => {
  test("a token is cached per key and requested again once 80 % of its lifetime has passed", async () => {
    const clock = new FakeClock();
    const api = fakeApi(clock);
    const due: string[] = [];
    const tm = new TokenManager({
      request: api.fn,
      clock,
      log,
      jitter: () => 0,
      onRefreshDue: (d) => due.push(`${d.namespace}/${d.serviceAccount}/${d.podUID}`),
    });
    const first = await tm.getServiceAccountToken("ns", "sa", request("u1"));
    expect(first.status?.token).toBe("token-1");
    expect(api.calls[0]).toMatchObject({ namespace: "ns", name: "sa" });
    // Another pod, another audience or another lifetime is another token.
    await tm.getServiceAccountToken("ns", "sa", request("u2"));
    await tm.getServiceAccountToken("ns", "sa", request("u1", 3600, ["vault"]));
    await tm.getServiceAccountToken("ns", "sa", request("u1", 7200));
    expect(api.calls.length).toBe(4);

    await clock.advance(2880_000); // exactly 80 % of 3600 s: not yet
    expect((await tm.getServiceAccountToken("ns", "sa", request("u1"))).status?.token).toBe("token-1");
    expect(due).toEqual([]);
    await clock.advance(1000);
    // The owner is told the three 3600 s tokens are due (to rewrite the files at once, not at the next resync).
    expect(due).toEqual(["ns/sa/u1", "ns/sa/u2", "ns/sa/u1"]);
    const renewed = await tm.getServiceAccountToken("ns", "sa", request("u1"));
    expect(renewed.status?.token).toBe("token-5");
    expect(api.calls.length).toBe(5);
    tm.close();
  });

  test("the jitter brings the refresh up to 10 s earlier", async () => {
    const clock = new FakeClock();
    const api = fakeApi(clock);
    const tm = new TokenManager({ request: api.fn, clock, log, jitter: () => 10_000 });
    await tm.getServiceAccountToken("ns", "sa", request("u1"));
    await clock.advance(2880_000 - 9_000);
    await tm.getServiceAccountToken("ns", "sa", request("u1"));
    expect(api.calls.length).toBe(2);
    tm.close();
  });

  test("a token older than 24 h is refreshed even when its lifetime is longer", async () => {
    const clock = new FakeClock();
    const api = fakeApi(clock);
    const tm = new TokenManager({ request: api.fn, clock, log, jitter: () => 0 });
    const week = 7 * 24 * 3600;
    await tm.getServiceAccountToken("ns", "sa", request("u1", week));
    await clock.advance(24 * 3600_000);
    await tm.getServiceAccountToken("ns", "sa", request("u1", week));
    expect(api.calls.length).toBe(1);
    await clock.advance(1000);
    await tm.getServiceAccountToken("ns", "sa", request("u1", week));
    expect(api.calls.length).toBe(2);
    tm.close();
  });

  test("the lifetime the server answered (shortened) is the one refreshed on", async () => {
    const clock = new FakeClock();
    const api = fakeApi(clock, 1000);
    const tm = new TokenManager({ request: api.fn, clock, log, jitter: () => 0 });
    await tm.getServiceAccountToken("ns", "sa", request("u1", 3600));
    await clock.advance(801_000);
    await tm.getServiceAccountToken("ns", "sa", request("u1", 3600));
    expect(api.calls.length).toBe(2);
    tm.close();
  });

  test("a failed refresh serves the old token until it expires, then fails with the kubelet's message", async () => {
    const clock = new FakeClock();
    const api = fakeApi(clock);
    const tm = new TokenManager({ request: api.fn, clock, log, jitter: () => 0 });
    api.failWith(new Error('serviceaccounts "sa" not found'));
    await expect(tm.getServiceAccountToken("ns", "sa", request("u1"))).rejects.toThrow('failed to fetch token: serviceaccounts "sa" not found');
    api.failWith(undefined);
    await tm.getServiceAccountToken("ns", "sa", request("u1"));
    api.failWith(new Error("connection refused"));
    await clock.advance(3000_000);
    expect((await tm.getServiceAccountToken("ns", "sa", request("u1"))).status?.token).toBe("token-2");
    await clock.advance(601_000);
    const key = tokenKey("sa", "ns", request("u1"));
    await expect(tm.getServiceAccountToken("ns", "sa", request("u1"))).rejects.toThrow(`token ${key} expired and refresh failed: connection refused`);
    tm.close();
  });

  test("concurrent gets share one request; a gone pod's tokens are dropped; expired ones are collected every minute", async () => {
    const clock = new FakeClock();
    const api = fakeApi(clock);
    const tm = new TokenManager({ request: api.fn, clock, log, jitter: () => 0 });
    const [a, b] = await Promise.all([tm.getServiceAccountToken("ns", "sa", request("u1")), tm.getServiceAccountToken("ns", "sa", request("u1"))]);
    expect(a.status?.token).toBe(b.status?.token!);
    expect(api.calls.length).toBe(1);
    await tm.getServiceAccountToken("ns", "sa", request("u2", 600));
    expect(tm.size).toBe(2);
    tm.deleteServiceAccountToken("u1");
    expect(tm.size).toBe(1);
    await clock.advance(660_000);
    expect(tm.size).toBe(0);
    tm.close();
  });
});
