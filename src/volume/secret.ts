// The secret volume plugin's content (k/k@1.24.1 pkg/volume/secret/secret.go SetUpAt and MakePayload):
// the Secret is read through the ObjectSource; a missing one is an error (`secret "x" not found`)
// unless the volume is optional, then the volume is mounted empty. Its files live on tmpfs (the
// plugin wraps a Memory emptyDir), so a secret never reaches the node's disk.
import type { Pod, Secret, SecretProjection, SecretVolumeSource } from "kubernetes-types/core/v1";
import { podRef } from "../api/pod";
import { DEFAULT_MODE, decodeBase64, makePayload, objectOrEmpty } from "./payload";
import type { ObjectSource, Payload } from "./types";

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

/** The kubelet's message for a listed key the Secret lacks. */
export function missingSecretKey(key: string): string {
  return `references non-existent secret key: ${key}`;
}

/**
 * The files of a secret volume (its `secretName`) or projected secret source (its `name`).
 * @throws ObjectNotFoundError, ObjectSourceError, MissingKeyError
 */
export async function secretPayload(pod: Pod, source: SecretVolumeSource | SecretProjection, objects: ObjectSource, defaultMode?: number): Promise<Payload> {
  const optional = source.optional === true;
  const name = ("secretName" in source ? source.secretName : undefined) ?? ("name" in source ? source.name : undefined) ?? "";
  const { namespace } = podRef(pod);
  const secret = await objectOrEmpty(() => objects.getSecret(namespace, name), namespace, name, optional);
  const mode = defaultMode ?? ("defaultMode" in source ? source.defaultMode : undefined) ?? DEFAULT_MODE;
  return makePayload(secretData(secret), source.items, mode, optional, missingSecretKey);
}
