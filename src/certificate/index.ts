// The kubelet's certificates (issue 18, node.md §10.1): TLS bootstrap of the client certificate with
// --bootstrap-kubeconfig, rotation of the client certificate (rotateCertificates) and the serving
// certificate requested from the cluster (serverTLSBootstrap), through certificates.k8s.io/v1.
export { bootstrapClientCertificate, digestedName, BOOTSTRAP_WAIT_MS, type BootstrapOptions, type BootstrapResult } from "./bootstrap";
export { CertificateManager, rotationDeadline, type CertificateManagerOptions, type CertificateTemplate } from "./certificate-manager";
export { CertificateStore, parsePair, pairTimestamp, type CertificatePair } from "./certificate-store";
export { certificateRequestPem, createCertificateRequest, newPrivateKey, privateKeyPem, type CsrOptions, type CsrSubject } from "./csr";
export { KUBELET_CLIENT_SIGNER, KUBELET_SERVING_SIGNER, requestCertificate, waitForCertificate, type CsrApi } from "./csr-client";
export { servingTemplate, startClientCertificateRotation, startServingCertificateRotation, storedServingCertificate } from "./node-certificates";
export { CLIENT_USAGES, SERVING_USAGES, nodeSubject } from "./usages";
