// The secret volume plugin's content (k/k@1.24.1 pkg/volume/secret/secret.go SetUpAt and MakePayload):
// the Secret is read through the ObjectSource; a missing one is an error (`secret "x" not found`)
// unless the volume is optional, then the volume is mounted empty. Its files live on tmpfs (the
// plugin wraps a Memory emptyDir), so a secret never reaches the node's disk.
import type { Pod, SecretProjection, SecretVolumeSource } from "kubernetes-types/core/v1";
import { podRef } from "../api";
import { type ObjectSource, secretData } from "../objects";
import { DEFAULT_MODE, makePayload, objectOrEmpty } from "./payload";
import type { Payload } from "./types";

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
