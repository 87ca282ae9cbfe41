// The bytes of a Secret or ConfigMap as the API's JSON carries them: []byte as base64. Shared by the
// container environment, the pull-secret keyring and the secret and configMap volume plugins.
import type { Secret } from "kubernetes-types/core/v1";

/** A base64 value of an object's data or binaryData, as the API's JSON carries []byte. */
export function decodeBase64(value: string): Uint8Array {
  return new Uint8Array(Buffer.from(value, "base64"));
}

/**
 * A Secret's keys as bytes: `data` base64-decoded. `stringData` is write-only in the API (the API
 * server merges it into data, stringData winning); a Secret from --local-objects may still carry it,
 * so it is merged the same way.
 */
export function secretData(secret: Secret): Map<string, Uint8Array> {
  const data = new Map<string, Uint8Array>();
  for (const [k, v] of Object.entries(secret.data ?? {})) data.set(k, decodeBase64(v));
  const enc = new TextEncoder();
  for (const [k, v] of Object.entries(secret.stringData ?? {})) data.set(k, enc.encode(v));
  return data;
}
