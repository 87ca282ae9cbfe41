// The TLS bootstrap and the client certificate's rotation against the test API server with the
// certificates API (its approver and signer as kube-controller-manager's): the bootstrap token's user
// gets a node client certificate, the written kubeconfig authenticates as system:node:<name> by it,
// and the certificate manager renews it at its jittered deadline on a fake clock, the client
// switching to the new certificate without being made again.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { lstatSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CertificateSigningRequest } from "kubernetes-types/certificates/v1";
import { bootstrapClientCertificate } from "../../src/certificate/bootstrap";
import { CertificateStore } from "../../src/certificate/certificate-store";
import { CertificateManager, rotationDeadline } from "../../src/certificate/certificate-manager";
import { KUBELET_CLIENT_SIGNER } from "../../src/certificate/csr-client";
import { CLIENT_USAGES, nodeSubject } from "../../src/certificate/usages";
import { loadKubeClient } from "../../src/kube/client";
import { FakeClock, RealClock } from "../../src/util/clock";
import { createLogger } from "../../src/util/log";
import { TestApiServer } from "../fakes/apiserver";

const log = createLogger("text", -1);
let api: TestApiServer;
let dir: string;

beforeAll(async () => {
  api = await TestApiServer.start({ certificates: { autoApprove: true, days: 2 } });
  dir = mkdtempSync(join(tmpdir(), "cert-bootstrap-"));
});
afterAll(async () => {
  await api?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Moves the fake clock a second at a time (the CSR poll period) until `done`, letting real time pass
 * between steps for the test API server's controllers (an HTTP round trip and an openssl run away).
 */
async function advanceUntil(clock: FakeClock, done: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 300 && !done(); i++) {
    await clock.advance(1000);
    await Bun.sleep(10);
  }
  if (!done()) throw new Error(`gave up waiting for ${what}`);
}

/** A fresh folder with a bootstrap kubeconfig holding a new bootstrap token, and where the rest goes. */
async function bootstrapSetup(name: string): Promise<{ d: string; boot: string; kubeconfig: string; certDir: string }> {
  const d = join(dir, name);
  rmSync(d, { recursive: true, force: true });
  const boot = join(d, "bootstrap.kubeconfig");
  await Bun.write(boot, "");
  api.writeKubeconfig(boot, api.bootstrapToken());
  return { d, boot, kubeconfig: join(d, "kubelet.kubeconfig"), certDir: join(d, "pki") };
}

const csrs = () => api.store.list("certificatesigningrequests") as unknown as CertificateSigningRequest[];

describe("TLS bootstrap", () => {
  test("a bootstrap token gets a node client certificate: CSR as the kubelet's, auto-approved, stored 0600 with the -current symlink, kubeconfig written", async () => {
    const { boot, kubeconfig, certDir } = await bootstrapSetup("a");
    const result = await bootstrapClientCertificate({ kubeconfig, bootstrapKubeconfig: boot, certDir, nodeName: "node-a", clock: new RealClock(), log });
    expect(result).toBe("issued");

    const csr = csrs().find((c) => c.spec.username?.startsWith("system:bootstrap:"))!;
    expect(csr.metadata?.name).toMatch(/^node-csr-/);
    expect(csr.spec.signerName).toBe(KUBELET_CLIENT_SIGNER);
    expect(csr.spec.usages).toEqual(["digital signature", "key encipherment", "client auth"]);
    expect(csr.spec.groups).toContain("system:bootstrappers");
    expect(csr.status?.conditions?.[0]).toMatchObject({
      type: "Approved",
      reason: "AutoApproved",
      message: "Auto approving kubelet client certificate after SubjectAccessReview.",
    });

    const current = join(certDir, "kubelet-client-current.pem");
    expect(lstatSync(current).isSymbolicLink()).toBe(true);
    const target = readlinkSync(current);
    expect(target).toMatch(/^kubelet-client-\d{4}-\d\d-\d\d-\d\d-\d\d-\d\d\.pem$/);
    expect(statSync(join(certDir, target)).mode & 0o777).toBe(0o600);
    expect(statSync(kubeconfig).mode & 0o777).toBe(0o600);
    expect(existsSync(join(certDir, "kubelet-client.key.tmp"))).toBe(false);
    const pem = readFileSync(current, "utf8");
    expect(pem).toContain("-----BEGIN CERTIFICATE-----");
    expect(pem).toContain("-----BEGIN EC PRIVATE KEY-----");

    // The kubeconfig authenticates by the certificate: the Node is registered as system:node:node-a.
    const client = await loadKubeClient(kubeconfig);
    await client.core.createNode({ body: { metadata: { name: "node-a" } } });
    const created = api.requests.find((r) => r.resource === "nodes" && r.verb === "create")!;
    expect(created.user).toBe("system:node:node-a");
    expect(created.code).toBe(201);
    expect(created.certificate).toMatch(/^[0-9A-F:]+$/);

    // Started again: nothing to do.
    expect(await bootstrapClientCertificate({ kubeconfig, bootstrapKubeconfig: boot, certDir, nodeName: "node-a", clock: new RealClock(), log })).toBe(
      "kubeconfig-valid",
    );
    // The kubeconfig lost: written again for the stored certificate, no new request.
    const before = csrs().length;
    rmSync(kubeconfig);
    expect(await bootstrapClientCertificate({ kubeconfig, bootstrapKubeconfig: boot, certDir, nodeName: "node-a", clock: new RealClock(), log })).toBe(
      "stored-certificate",
    );
    expect(csrs().length).toBe(before);
    // Expired (the clock a year on): a new request.
    const later = new FakeClock(Date.now() + 365 * 86400_000);
    const slow = bootstrapClientCertificate({ kubeconfig, bootstrapKubeconfig: boot, certDir, nodeName: "node-a", clock: later, log, waitMs: 60_000 });
    // It polls on the fake clock: advance until it is issued.
    await advanceUntil(later, () => Bun.peek.status(slow) !== "pending", "the new certificate");
    expect(await slow).toBe("issued");
    expect(csrs().length).toBe(before + 1);
  }, 30_000);

  test("refused to create, or denied: the error names the request and the reason", async () => {
    const d = join(dir, "b");
    const boot = join(d, "bootstrap.kubeconfig");
    rmSync(d, { recursive: true, force: true });
    await Bun.write(boot, "");
    // A plain user, not a bootstrapper: may create no request.
    api.writeKubeconfig(boot, api.userToken("jane"));
    const clock = new FakeClock(Date.now());
    await expect(
      bootstrapClientCertificate({ kubeconfig: join(d, "k"), bootstrapKubeconfig: boot, certDir: join(d, "pki"), nodeName: "node-b", clock, log }),
    ).rejects.toThrow(
      /cannot create the certificate signing request: certificatesigningrequests.certificates.k8s.io is forbidden: User "jane" cannot create resource/,
    );
    // A cluster without the approver: the request stays pending until an admin denies it.
    const manual = await TestApiServer.start({ certificates: {} });
    try {
      manual.writeKubeconfig(boot, manual.bootstrapToken());
      const outcome = bootstrapClientCertificate({
        kubeconfig: join(d, "k"),
        bootstrapKubeconfig: boot,
        certDir: join(d, "pki"),
        nodeName: "node-b",
        clock,
        log,
      }).then(
        () => "issued",
        (e: Error) => e.message,
      );
      const pending = () => manual.store.list("certificatesigningrequests") as unknown as CertificateSigningRequest[];
      for (let i = 0; i < 200 && pending().length === 0; i++) await Bun.sleep(5);
      const o = pending()[0]!;
      await clock.advance(30_000);
      expect(o.status?.conditions ?? []).toEqual([]);
      manual.store.update(
        "certificatesigningrequests",
        { ...o, status: { conditions: [{ type: "Denied", status: "True", reason: "NotOurs", message: "not a node of this cluster" }] } } as never,
        "approval",
      );
      await advanceUntil(clock, () => Bun.peek.status(outcome) !== "pending", "the denial");
      expect(await outcome).toBe(`certificate signing request ${o.metadata?.name} is denied, reason: NotOurs, message: not a node of this cluster`);
    } finally {
      await manual.stop();
    }
  }, 30_000);

  test("not issued in time: the error says it is still pending", async () => {
    const manual = await TestApiServer.start({ certificates: {} });
    const d = join(dir, "t");
    try {
      await Bun.write(join(d, "boot"), "");
      manual.writeKubeconfig(join(d, "boot"), manual.bootstrapToken());
      const clock = new FakeClock(Date.now());
      const outcome = bootstrapClientCertificate({
        kubeconfig: join(d, "k"),
        bootstrapKubeconfig: join(d, "boot"),
        certDir: join(d, "pki"),
        nodeName: "node-t",
        clock,
        log,
        waitMs: 10_000,
      }).then(
        () => "issued",
        (e: Error) => e.message,
      );
      for (let i = 0; i < 200 && manual.store.list("certificatesigningrequests").length === 0; i++) await Bun.sleep(5);
      await advanceUntil(clock, () => Bun.peek.status(outcome) !== "pending", "the timeout");
      expect(await outcome).toMatch(
        /^timed out after 10s waiting for certificate signing request node-csr-\S+ to be approved and issued \(still pending approval\)$/,
      );
      // The key is kept for the next try, so the same request is found again.
      expect(existsSync(join(d, "pki", "kubelet-client.key.tmp"))).toBe(true);
    } finally {
      await manual.stop();
    }
  }, 30_000);
});

describe("client certificate rotation", () => {
  test("the deadline is 70–90 % of the lifetime after notBefore", () => {
    const pair = { notBefore: 1000, notAfter: 1000 + 100_000 };
    expect(rotationDeadline(pair, () => 0)).toBe(1000 + 70_000);
    expect(rotationDeadline(pair, () => 0.5)).toBe(1000 + 80_000);
    expect(rotationDeadline(pair, () => 0.999999)).toBeLessThanOrEqual(1000 + 90_000);
  });

  test("renewed at the deadline with the current certificate (selfnodeclient), the client switches to the new one", async () => {
    const { boot, kubeconfig, certDir } = await bootstrapSetup("c");
    await bootstrapClientCertificate({ kubeconfig, bootstrapKubeconfig: boot, certDir, nodeName: "node-c", clock: new RealClock(), log });
    const client = await loadKubeClient(kubeconfig);
    const store = new CertificateStore(certDir, "kubelet-client");
    const first = store.current()!;
    const clock = new FakeClock(Date.now());
    let rotated = 0;
    const manager = new CertificateManager({
      store,
      signerName: KUBELET_CLIENT_SIGNER,
      usages: CLIENT_USAGES,
      template: () => nodeSubject("node-c"),
      api: () => client,
      clock,
      log,
      what: "client",
      random: () => 0.5,
      onRotated: async () => {
        rotated++;
        await client.reloadCredentials();
      },
    });
    manager.start();
    expect(manager.nextDeadline).toBe(rotationDeadline(first, () => 0.5));
    const seen = () => api.requests.filter((r) => r.user === "system:node:node-c" && r.certificate).map((r) => r.certificate);
    await client.core.readNamespace({ name: "default" }).catch(() => undefined);
    const firstPrint = seen().at(-1);
    expect(firstPrint).toBe(first.cert.fingerprint256);

    // Not yet: a minute before the deadline nothing was asked.
    const before = csrs().length;
    await clock.advance(manager.nextDeadline! - clock.now() - 60_000);
    expect(csrs().length).toBe(before);
    await clock.advance(60_000);
    await advanceUntil(clock, () => rotated > 0, "the rotation");
    manager.stop();
    expect(rotated).toBe(1);
    const renewal = csrs().find((c) => c.spec.username === "system:node:node-c")!;
    expect(renewal.metadata?.name).toMatch(/^csr-/);
    expect(renewal.spec.username).toBe("system:node:node-c");
    expect(renewal.status?.conditions?.[0]?.message).toBe("Auto approving self kubelet client certificate after SubjectAccessReview.");
    const second = store.current()!;
    expect(second.cert.fingerprint256).not.toBe(first.cert.fingerprint256);
    expect(manager.current()?.cert.fingerprint256).toBe(second.cert.fingerprint256);
    // The same client object now authenticates with the new certificate.
    await Bun.sleep(50);
    await client.core.readNamespace({ name: "default" }).catch(() => undefined);
    expect(seen().at(-1)).toBe(second.cert.fingerprint256);
  }, 30_000);
});
