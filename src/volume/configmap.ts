// The configMap volume plugin's content (k/k@1.24.1 pkg/volume/configmap/configmap.go SetUpAt and
// MakePayload): the ConfigMap is read through the ObjectSource; a missing one is an error
// (`configmap "x" not found`, passed on verbatim into FailedMount) unless the volume is optional,
// then the volume is mounted empty. Both `data` and `binaryData` become files. The volume itself
// lives on disk (the plugin wraps a disk emptyDir), unlike secrets.
import type { ConfigMap, ConfigMapProjection, ConfigMapVolumeSource, Pod } from "kubernetes-types/core/v1";
import { podRef } from "../api";
import { decodeBase64, type ObjectSource } from "../objects";
import { DEFAULT_MODE, makePayload, objectOrEmpty } from "./payload";
import type { Payload } from "./types";

/** A ConfigMap's keys as bytes: data (UTF-8) then binaryData (base64-decoded). */
export function configMapData(cm: ConfigMap): Map<string, Uint8Array> {
  const data = new Map<string, Uint8Array>();
  const enc = new TextEncoder();
  for (const [k, v] of Object.entries(cm.data ?? {})) data.set(k, enc.encode(v));
  for (const [k, v] of Object.entries(cm.binaryData ?? {})) if (!data.has(k)) data.set(k, decodeBase64(v));
  return data;
}

/** The kubelet's message for a listed key the ConfigMap lacks. */
export function missingConfigMapKey(key: string): string {
  return `configmap references non-existent config key: ${key}`;
}

/**
 * The files of a configMap volume or projected configMap source.
 * @throws ObjectNotFoundError, ObjectSourceError, MissingKeyError
 */
export async function configMapPayload(
  pod: Pod,
  source: ConfigMapVolumeSource | ConfigMapProjection,
  objects: ObjectSource,
  defaultMode?: number,
): Promise<Payload> {
  const optional = source.optional === true;
  const { namespace } = podRef(pod);
  const name = source.name ?? "";
  const cm = await objectOrEmpty(() => objects.getConfigMap(namespace, name), namespace, name, optional);
  const mode = defaultMode ?? ("defaultMode" in source ? source.defaultMode : undefined) ?? DEFAULT_MODE;
  return makePayload(configMapData(cm), source.items, mode, optional, missingConfigMapKey);
}
