// The in-process Kubernetes API server for tests (issue 7): pods (+status, +binding), nodes (+status),
// namespaces, core and events.k8s.io events, coordination.k8s.io leases, configmaps, secrets and
// serviceaccounts (+token, the TokenRequest API; issue 15), services (cluster IPs allocated, the master
// `kubernetes` service present from the start), over TLS with bearer tokens,
// with the apiserver's list/watch/patch/delete semantics and fault hooks. Test code only: imports
// src/api and kubernetes-types, never src/kube (which it is used to test).
import { writeFileSync } from "node:fs";
import { stringify } from "yaml";
import type { User } from "./auth";
import { ApiHandler, type FaultMatch, type RequestRecord } from "./handler";
import { Registry } from "./registry";
import { servingCert } from "./tls";
import { listen } from "../../../src/server/listener";
import { TestClientCA } from "../client-certs";
import { CertificateController } from "./certificates";
import { DEFAULT_ACCESS_POLICY, type AccessPolicy } from "./reviews";
import type { TokenIssuer } from "./token";
import { NodeLifecycleController, type NodeLifecycleOptions } from "./node-lifecycle";

export type { FaultMatch, RequestRecord } from "./handler";
export type { AnyObject, KubernetesObject, ObjectInput } from "./objects";
export { Registry } from "./registry";
export { MASTER_SERVICE, SERVICE_CIDR } from "./services";
export { decodeToken, type TokenClaims, type TokenIssuer } from "./token";
export { DEFAULT_ACCESS_POLICY, type AccessDecision, type AccessPolicy } from "./reviews";
export { NodeLifecycleController, type NodeLifecycleOptions } from "./node-lifecycle";

export interface TestApiServerOptions {
  /** Serve HTTPS with a fresh CA (default), or plain HTTP. */
  tls?: boolean;
  /** Period of BOOKMARK events on watches that allow them; the apiserver sends them about once a minute. */
  bookmarkIntervalMs?: number;
  /** The server's clock: creationTimestamps, deletion deadlines, tokens' iat and expiry. Default Date.now. */
  now?: () => number;
  /** How service-account tokens are issued (--service-account-issuer, --api-audiences, …). */
  tokenIssuer?: Partial<TokenIssuer>;
  /**
   * The certificates API's controllers and x509 client authentication (issue 18): a client CA whose
   * certificates authenticate (--client-ca-file), the csrsigning controller signing approved kubelet
   * requests with it for `days` (default 1), and, with autoApprove, the csrapproving controller.
   * Without it CertificateSigningRequests can be created but stay pending, as with no controller manager.
   */
  certificates?: { autoApprove?: boolean; days?: number };
  /**
   * kube-controller-manager's node lifecycle controller (node-lifecycle.ts): nodes whose Lease and Ready
   * heartbeat stop for the grace period go Unknown/NotReady and get the unreachable taints. Off by
   * default (no controller manager); `true` for 1.36's defaults (50 s grace, 5 s period), or shorter
   * periods for tests that run on real time. It runs while the server is up.
   */
  nodeLifecycle?: boolean | NodeLifecycleOptions;
}

/** kubeadm's defaults: the issuer is the in-cluster API URL, and it is also the only API audience. */
export const DEFAULT_ISSUER = "https://kubernetes.default.svc.cluster.local";

const randomToken = () => crypto.randomUUID().replaceAll("-", "");

export class TestApiServer {
  /** Direct access to the objects: the registry's semantics without authentication, authorization or admission. */
  readonly store: Registry;
  readonly adminToken = randomToken();
  readonly schedulerToken = randomToken();
  readonly caPem: string;
  private readonly users = new Map<string, User>();
  private readonly nodeTokens = new Map<string, string>();
  private readonly handler: ApiHandler;
  private accessPolicy: AccessPolicy = DEFAULT_ACCESS_POLICY;
  private server?: { stop(force: boolean): Promise<void>; port?: number };
  /** With the certificates option: the CA that signs CSRs and that client certificates must chain to. */
  readonly clientCA?: TestClientCA;
  private port = 0;
  /** With the nodeLifecycle option: the controller (tests on a fake clock call its monitor()). */
  readonly nodeLifecycle?: NodeLifecycleController;

  private constructor(private readonly opts: TestApiServerOptions) {
    this.users.set(this.adminToken, { name: "admin", groups: ["system:masters", "system:authenticated"] });
    this.users.set(this.schedulerToken, { name: "system:kube-scheduler", groups: ["system:authenticated"] });
    const now = opts.now ?? Date.now;
    this.store = new Registry(now);
    const tokenIssuer: TokenIssuer = {
      issuer: DEFAULT_ISSUER,
      audiences: [DEFAULT_ISSUER],
      maxExpirationSeconds: 0,
      extendExpiration: true,
      ...opts.tokenIssuer,
    };
    if (opts.certificates) this.clientCA = new TestClientCA("test-apiserver-client-ca");
    const certificates = this.clientCA
      ? new CertificateController(this.store, { ca: this.clientCA, autoApprove: opts.certificates?.autoApprove ?? false, days: opts.certificates?.days ?? 1 })
      : undefined;
    this.handler = new ApiHandler({
      registry: this.store,
      users: this.users,
      bookmarkIntervalMs: opts.bookmarkIntervalMs ?? 1000,
      tokenIssuer,
      now,
      accessPolicy: () => this.accessPolicy,
      certificates,
    });
    this.caPem = opts.tls === false ? "" : servingCert().caPem;
    if (opts.nodeLifecycle) this.nodeLifecycle = new NodeLifecycleController(this.store, now, opts.nodeLifecycle === true ? {} : opts.nodeLifecycle);
  }

  static async start(opts: TestApiServerOptions = {}): Promise<TestApiServer> {
    const api = new TestApiServer(opts);
    await api.up();
    return api;
  }

  get url(): string {
    return `${this.opts.tls === false ? "http" : "https"}://127.0.0.1:${this.port}`;
  }

  /** Every request answered so far, oldest first. */
  get requests(): RequestRecord[] {
    return this.handler.requests;
  }

  /** A token for user system:node:<name> in group system:nodes (one per name). */
  nodeToken(name: string): string {
    let token = this.nodeTokens.get(name);
    if (!token) {
      token = randomToken();
      this.nodeTokens.set(name, token);
      this.users.set(token, { name: `system:node:${name}`, groups: ["system:nodes", "system:authenticated"] });
    }
    return token;
  }

  /** A bearer token this server authenticates (API calls, TokenReviews) as `name` in `groups` (plus system:authenticated). */
  userToken(name: string, groups: string[] = []): string {
    const token = randomToken();
    this.users.set(token, { name, groups: [...groups, "system:authenticated"] });
    return token;
  }

  /**
   * A bootstrap token ("<id>.<secret>", the bootstrap token authenticator's format) for user
   * system:bootstrap:<id> in group system:bootstrappers, as kubeadm's join tokens are.
   */
  bootstrapToken(): string {
    const hex = () => crypto.randomUUID().replaceAll("-", "");
    const id = hex().slice(0, 6);
    const token = `${id}.${hex().slice(0, 16)}`;
    this.users.set(token, {
      name: `system:bootstrap:${id}`,
      groups: ["system:bootstrappers", "system:bootstrappers:kubeadm:default-node-token", "system:authenticated"],
    });
    return token;
  }

  /**
   * How SubjectAccessReviews are answered from now on (DEFAULT_ACCESS_POLICY: system:masters only).
   * allowKubeletApi is the usual one.
   */
  setAccessPolicy(policy: AccessPolicy): void {
    this.accessPolicy = policy;
  }

  /**
   * SubjectAccessReviews allow `users` (names or groups) on the kubelet API: resource nodes, the given
   * subresources ("*" for all) and verbs; everyone else is denied, with a reason, as RBAC's "no
   * RBAC policy matched" answer is no opinion (allowed false, no reason). system:masters stays allowed.
   */
  allowKubeletApi(users: string[], subresources: string[] | "*" = "*", verbs: string[] | "*" = "*"): void {
    this.setAccessPolicy((spec) => {
      if ((spec.groups ?? []).includes("system:masters")) return { allowed: true, reason: "system:masters" };
      const ra = spec.resourceAttributes;
      const who = [spec.user ?? "", ...(spec.groups ?? [])];
      const ok =
        !!ra &&
        ra.resource === "nodes" &&
        who.some((u) => users.includes(u)) &&
        (subresources === "*" || subresources.includes(ra.subresource ?? "")) &&
        (verbs === "*" || verbs.includes(ra.verb ?? ""));
      return ok ? { allowed: true, reason: "allowed by the test's policy" } : { allowed: false };
    });
  }

  /** A kubeconfig with this server, its CA and the token, for loadKubeClient or the compiled binary. */
  writeKubeconfig(path: string, token: string): void {
    const cluster: Record<string, string> = { server: this.url };
    if (this.caPem) cluster["certificate-authority-data"] = Buffer.from(this.caPem).toString("base64");
    writeFileSync(
      path,
      stringify({
        apiVersion: "v1",
        kind: "Config",
        clusters: [{ name: "test", cluster }],
        users: [{ name: "test-user", user: { token } }],
        contexts: [{ name: "test", context: { cluster: "test", user: "test-user" } }],
        "current-context": "test",
      }),
    );
  }

  /**
   * The next `times` requests matching `match` are answered `code` (a watch with 410: an ERROR event);
   * a 429 carries Retry-After (1 s unless `retryAfterSeconds` says), as the API server's 429s do.
   */
  failNext(match: FaultMatch, code: number, times = 1, retryAfterSeconds?: number): void {
    this.handler.failNext(match, code, times, retryAfterSeconds);
  }

  /** The watch streams open now (resource, namespace, query with the field selector, user). */
  watching(): RequestRecord[] {
    return this.handler.watching();
  }

  /** Ends every open watch stream; clients must watch again (from their last resourceVersion). */
  dropWatches(): void {
    this.handler.dropWatches();
  }

  /** Forgets the change history: a watch from any older resourceVersion gets 410 Expired. */
  compact(): void {
    this.store.compact();
  }

  /** Stops listening and cuts every connection: clients see "connection refused" until up(). */
  async down(): Promise<void> {
    this.nodeLifecycle?.stop();
    this.handler.dropWatches();
    await this.server?.stop(true);
    this.server = undefined;
  }

  /** Listens again, on the same port as before. */
  async up(): Promise<void> {
    if (this.server) return;
    this.nodeLifecycle?.start();
    const cert = this.opts.tls === false ? undefined : servingCert();
    if (cert && this.clientCA) {
      // Bun.serve cannot show a handler the client's certificate; the agent's own listener (node:tls)
      // can, and verifies it against the client CA as the API server's --client-ca-file does.
      const noTimeout = { timeout: () => undefined };
      const l = await listen({
        address: "127.0.0.1",
        port: this.port,
        tls: { cert: cert.certPem, key: cert.keyPem, clientCA: this.clientCA.caPem },
        handle: (req, conn) => this.handler.handle(req, noTimeout, conn.peer),
        onError: () => undefined,
      });
      this.port = l.port;
      this.server = { stop: () => l.close(), port: l.port };
      return;
    }
    this.server = Bun.serve({
      hostname: "127.0.0.1",
      port: this.port,
      idleTimeout: 60,
      tls: cert ? { cert: cert.certPem, key: cert.keyPem } : undefined,
      fetch: (req, server) => this.handler.handle(req, server),
    });
    this.port = this.server.port ?? 0;
  }

  async stop(): Promise<void> {
    await this.down();
    this.clientCA?.cleanup();
  }
}
