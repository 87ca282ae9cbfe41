// src/certificate owns the kubelet's certificates (node.md §10.1): TLS bootstrap of the client certificate
// (--bootstrap-kubeconfig), and rotation of the client and serving certificates through certificates.k8s.io/v1.
export type { BootstrapOptions, BootstrapResult } from "./bootstrap";
export { CertificateManager, rotationDeadline, type CertificateManagerOptions, type CertificateTemplate } from "./certificate-manager";
export { CertificateStore, parsePair, pairTimestamp, type CertificatePair } from "./certificate-store";
export { certificateRequestPem, createCertificateRequest, newPrivateKey, privateKeyPem, type CsrOptions, type CsrSubject } from "./csr";
export { KUBELET_CLIENT_SIGNER, KUBELET_SERVING_SIGNER, requestCertificate, waitForCertificate, type CsrApi } from "./csr-client";
export { servingTemplate, startClientCertificateRotation, startServingCertificateRotation, storedServingCertificate } from "./node-certificates";
export { CLIENT_USAGES, SERVING_USAGES, nodeSubject } from "./usages";
export { loadBootstrap } from "./lazy";
