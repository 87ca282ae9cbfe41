// A certificate that renews itself: client-go's certificate manager (k/k@1.24.1
// staging/src/k8s.io/client-go/util/certificate/certificate_manager.go), used by the kubelet for its
// client certificate (rotateCertificates) and its serving certificate (serverTLSBootstrap).
//
// The loop:
//   current pair (from the store)    none, or expired → request one now
//        │
//   deadline = notBefore + lifetime × jitter(0.7–0.9)   (nextRotationDeadline / jitteryDuration:
//        │                                                a random point in the last 30–10 % of its
//        │                                                life, so a fleet issued together does not
//        │                                                renew together)
//   sleep until the deadline (the clock's timer)
//        │
//   rotate: a new P-256 key, a CSR (generateName csr-, the manager's signer and usages), created with
//   the API client of the moment (for the client certificate: authenticated by the certificate being
//   replaced, as a node renewing itself — the csrapprover's selfnodeclient case), wait for it to be
//   issued, store the pair (-current.pem moves), tell onRotated (the API client reloads its TLS
//   credentials, the HTTPS server its certificate), compute the next deadline.
//        │
//   on failure: log the reason, try again after a backoff (2 s doubling to 5 min; client-go retries
//   with an exponential backoff too), never past the certificate's expiry without saying so.
import type { Clock, Logger, Timer } from "../util";
import type { CertificatePair, CertificateStore } from "./certificate-store";
import { certificateRequestPem, newPrivateKey, privateKeyPem, type CsrSubject } from "./csr";
import { requestCertificate, waitForCertificate, type CsrApi } from "./csr-client";

export interface CertificateTemplate extends CsrSubject {
  dnsNames?: string[];
  ipAddresses?: string[];
}

export interface CertificateManagerOptions {
  store: CertificateStore;
  signerName: string;
  usages: readonly string[];
  /** The request's subject and names, asked each time (the serving names can change). */
  template: () => CertificateTemplate;
  /** The API client to send the request with, asked each time (it may have rotated itself). */
  api: () => CsrApi;
  clock: Clock;
  log: Logger;
  /** Called with each newly issued pair. */
  onRotated?: (pair: CertificatePair) => void | Promise<void>;
  /** [0,1): the jitter's source (Math.random). */
  random?: () => number;
  /** How long one request may wait to be issued (client-go: 15 min for a rotation). */
  waitMs?: number;
  /** What the certificate is, for the log ("client", "serving"). */
  what: string;
}

const MIN_BACKOFF_MS = 2000;
const MAX_BACKOFF_MS = 5 * 60_000;
const ROTATION_WAIT_MS = 15 * 60_000;

/** When to renew: notBefore + total × (0.7 + 0.2 × r), client-go's jitteryDuration. */
export function rotationDeadline(pair: Pick<CertificatePair, "notBefore" | "notAfter">, random: () => number): number {
  const total = pair.notAfter - pair.notBefore;
  return pair.notBefore + Math.floor(total * (0.7 + 0.2 * random()));
}

export class CertificateManager {
  private pair?: CertificatePair;
  private timer?: Timer;
  private stopped = true;
  private backoffMs = MIN_BACKOFF_MS;
  private readonly abort = new AbortController();
  /** The deadline the loop sleeps towards (for tests and the log). */
  nextDeadline?: number;

  constructor(private readonly o: CertificateManagerOptions) {
    try {
      this.pair = o.store.current();
    } catch (err) {
      o.log.warn("stored certificate not usable; requesting a new one", { certificate: o.what, err });
    }
  }

  /** The pair in use, if any. */
  current(): CertificatePair | undefined {
    return this.pair;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
    this.abort.abort(new Error("stopped"));
  }

  private schedule(delayMs?: number): void {
    if (this.stopped) return;
    const now = this.o.clock.now();
    const pair = this.pair;
    const deadline = delayMs !== undefined ? now + delayMs : pair && now < pair.notAfter ? rotationDeadline(pair, this.o.random ?? Math.random) : now;
    this.nextDeadline = deadline;
    if (delayMs === undefined && pair)
      this.o.log.info("certificate rotation deadline set", { certificate: this.o.what, notAfter: new Date(pair.notAfter), deadline: new Date(deadline) });
    this.timer = this.o.clock.setTimer(Math.max(0, deadline - now), () => void this.rotate());
  }

  /** One rotation attempt, then the next deadline (or a retry after the backoff). */
  private async rotate(): Promise<void> {
    if (this.stopped) return;
    try {
      const pair = await this.requestPair();
      this.pair = pair;
      this.backoffMs = MIN_BACKOFF_MS;
      this.o.log.info("certificate rotated", { certificate: this.o.what, notBefore: new Date(pair.notBefore), notAfter: new Date(pair.notAfter) });
      try {
        await this.o.onRotated?.(pair);
      } catch (err) {
        this.o.log.error("certificate rotated but not taken into use", { certificate: this.o.what, err });
      }
      this.schedule();
    } catch (err) {
      if (this.stopped) return;
      const expired = this.pair && this.o.clock.now() >= this.pair.notAfter ? true : undefined;
      this.o.log.error("failed to rotate the certificate", { certificate: this.o.what, expired, err, retryIn: `${Math.round(this.backoffMs / 1000)}s` });
      const wait = this.backoffMs;
      this.backoffMs = Math.min(this.backoffMs * 2, MAX_BACKOFF_MS);
      this.schedule(wait);
    }
  }

  private async requestPair(): Promise<CertificatePair> {
    const key = newPrivateKey();
    const t = this.o.template();
    const requestPem = certificateRequestPem({ ...t, privateKey: key });
    const api = this.o.api();
    const csr = await requestCertificate(api, { requestPem, signerName: this.o.signerName, usages: [...this.o.usages] });
    this.o.log.info("certificate signing request created", { certificate: this.o.what, csr: csr.name });
    const certPem = await waitForCertificate(api, csr, this.o.clock, this.o.waitMs ?? ROTATION_WAIT_MS, this.abort.signal);
    return this.o.store.update(certPem, privateKeyPem(key), this.o.clock.now());
  }
}
