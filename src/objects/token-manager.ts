// The kubelet's token manager (k/k@1.24.1 pkg/kubelet/token/token_manager.go): service-account tokens
// for projected volumes, requested through the TokenRequest API and cached.
//
// - Key: service account name, namespace, audiences, expirationSeconds and the bound object
//   (keyFunc), so each pod has its own token per audience and lifetime.
// - A cached token is handed out until it requires a refresh (requiresRefresh): older than
//   maxTTL = 24 h minus a jitter, or within 20 % of its lifetime (plus the jitter) of its expiry, i.e.
//   once 80 % of it has passed. Issued-at is computed as the kubelet does, expirationTimestamp minus
//   the spec.expirationSeconds the server answered (which it may have shortened).
// - A refresh that fails hands out the old token while it is still valid (logged), and fails only once
//   it has expired: `token <key> expired and refresh failed: <err>`; with nothing cached:
//   `failed to fetch token: <err>`.
// - Expired tokens are dropped every gcPeriod = 1 min (cleanup); a gone pod's tokens at once
//   (DeleteServiceAccountToken).
// Past the kubelet: the kubelet only notices a refresh is due when a pod resync asks again (≈1 min);
// here a timer at the refresh time calls `onRefreshDue`, so the owner can rewrite the token file then.
// Concurrent requests for one key share one API call.
import type { TokenRequest } from "kubernetes-types/authentication/v1";
import { type Clock, errorMessage, type Logger, type Timer } from "../util";

/** maxTTL, gcPeriod, maxJitter of token_manager.go. */
export const MAX_TOKEN_TTL_MS = 24 * 3600_000;
export const TOKEN_GC_PERIOD_MS = 60_000;
export const MAX_TOKEN_JITTER_MS = 10_000;

/** POST /api/v1/namespaces/<namespace>/serviceaccounts/<name>/token: the TokenRequest the server answered. */
export type RequestToken = (namespace: string, name: string, req: TokenRequest) => Promise<TokenRequest>;

export interface TokenManagerOptions {
  request: RequestToken;
  clock: Clock;
  log: Logger;
  /** The refresh jitter in ms, 0 to MAX_TOKEN_JITTER_MS (the kubelet: whole seconds, at random). */
  jitter?: () => number;
  /** A cached token's refresh time has come (the token of this pod, for this service account). */
  onRefreshDue?: (due: { namespace: string; serviceAccount: string; podUID: string }) => void;
}

interface Entry {
  namespace: string;
  name: string;
  tr: TokenRequest;
  refreshTimer?: Timer;
}

export class TokenManager {
  private readonly cache = new Map<string, Entry>();
  private readonly inFlight = new Map<string, Promise<TokenRequest>>();
  private readonly jitter: () => number;
  private gcTimer?: Timer;
  private closed = false;

  constructor(private readonly o: TokenManagerOptions) {
    this.jitter = o.jitter ?? (() => Math.floor(Math.random() * (MAX_TOKEN_JITTER_MS / 1000)) * 1000);
    this.scheduleCleanup();
  }

  /**
   * The token for this request: cached, or requested (GetServiceAccountToken).
   * @throws Error with the kubelet's message when there is no usable token.
   */
  async getServiceAccountToken(namespace: string, name: string, req: TokenRequest): Promise<TokenRequest> {
    const key = tokenKey(name, namespace, req);
    const cached = this.cache.get(key);
    if (cached && !this.requiresRefresh(cached.tr)) return cached.tr;
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = this.o.request(namespace, name, req);
      this.inFlight.set(key, pending);
      const clear = () => this.inFlight.delete(key);
      pending.then(clear, clear);
    }
    let tr: TokenRequest;
    try {
      tr = await pending;
    } catch (e) {
      const now = this.cache.get(key);
      if (!now) throw new Error(`failed to fetch token: ${errorMessage(e)}`);
      if (this.expired(now.tr)) throw new Error(`token ${key} expired and refresh failed: ${errorMessage(e)}`);
      this.o.log.error("couldn't update token; the current one is still valid", { token: key, validUntil: now.tr.status?.expirationTimestamp, err: e });
      return now.tr;
    }
    if (!this.closed) this.set(key, namespace, name, tr);
    return tr;
  }

  /** The pod is gone: its tokens are forgotten (DeleteServiceAccountToken). */
  deleteServiceAccountToken(podUID: string): void {
    for (const [key, e] of this.cache) if (e.tr.spec.boundObjectRef?.uid === podUID) this.drop(key);
  }

  /** How many tokens are cached (for tests and /metrics-style reporting). */
  get size(): number {
    return this.cache.size;
  }

  close(): void {
    this.closed = true;
    this.gcTimer?.cancel();
    for (const key of [...this.cache.keys()]) this.drop(key);
  }

  private set(key: string, namespace: string, name: string, tr: TokenRequest): void {
    this.cache.get(key)?.refreshTimer?.cancel();
    const entry: Entry = { namespace, name, tr };
    const due = this.refreshAt(tr);
    const podUID = tr.spec.boundObjectRef?.uid;
    if (due !== undefined && podUID && this.o.onRefreshDue) {
      const notify = this.o.onRefreshDue;
      // requiresRefresh is strictly after the threshold: the notice comes a second past it, so the get
      // it prompts does refresh.
      entry.refreshTimer = this.o.clock.setTimer(due + 1000 - this.o.clock.now(), () => {
        if (this.cache.get(key) === entry) notify({ namespace, serviceAccount: name, podUID });
      });
    }
    this.cache.set(key, entry);
  }

  private drop(key: string): void {
    this.cache.get(key)?.refreshTimer?.cancel();
    this.cache.delete(key);
  }

  private scheduleCleanup(): void {
    this.gcTimer = this.o.clock.setTimer(TOKEN_GC_PERIOD_MS, () => {
      if (this.closed) return;
      for (const [key, e] of this.cache) if (this.expired(e.tr)) this.drop(key);
      this.scheduleCleanup();
    });
  }

  private expired(tr: TokenRequest): boolean {
    return this.o.clock.now() > Date.parse(tr.status?.expirationTimestamp ?? "");
  }

  /**
   * The earliest time requiresRefresh says yes, without the jitter: iat + 24 h, or exp − 20 % of the TTL.
   * Undefined when the answer carries no expirationSeconds (the kubelet then never refreshes, and logs).
   */
  private refreshAt(tr: TokenRequest): number | undefined {
    const seconds = tr.spec.expirationSeconds;
    if (seconds === undefined) return undefined;
    const exp = Date.parse(tr.status?.expirationTimestamp ?? "");
    const iat = exp - seconds * 1000;
    return Math.min(iat + MAX_TOKEN_TTL_MS, exp - Math.floor((seconds * 20) / 100) * 1000);
  }

  /** requiresRefresh: older than 24 h, or 80 % of the lifetime gone, each less a jitter. */
  private requiresRefresh(tr: TokenRequest): boolean {
    const seconds = tr.spec.expirationSeconds;
    if (seconds === undefined) {
      this.o.log.error("expiration seconds was nil for a token request", { request: `${tr.metadata?.namespace}/${tr.metadata?.name}` });
      return false;
    }
    const now = this.o.clock.now();
    const exp = Date.parse(tr.status?.expirationTimestamp ?? "");
    const iat = exp - seconds * 1000;
    const jitter = this.jitter();
    if (now > iat + MAX_TOKEN_TTL_MS - jitter) return true;
    return now > exp - Math.floor((seconds * 20) / 100) * 1000 - jitter;
  }
}

/** keyFunc: nonconfidential, safe to log: "name"/"namespace"/[audiences]/expirationSeconds/{bound object}. */
export function tokenKey(name: string, namespace: string, req: TokenRequest): string {
  const ref = req.spec.boundObjectRef ?? {};
  return `${JSON.stringify(name)}/${JSON.stringify(namespace)}/${JSON.stringify(req.spec.audiences ?? [])}/${req.spec.expirationSeconds ?? 0}/${JSON.stringify({ kind: ref.kind ?? "", apiVersion: ref.apiVersion ?? "", name: ref.name ?? "", uid: ref.uid ?? "" })}`;
}
