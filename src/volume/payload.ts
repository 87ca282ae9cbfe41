// The kubelet's MakePayload (k/k@1.24.1 pkg/volume/{configmap,secret}/*.go), shared by the configMap
// and secret volumes and the projected volume's configMap and secret sources: an object's keys
// become files. Without `items` every key is a file named after it with defaultMode; with `items`
// only the listed keys are, at their `path`, with their own `mode` or defaultMode, and a listed key
// the object lacks is an error unless the source is optional (then the item is skipped).
import type { KeyToPath } from "kubernetes-types/core/v1";
import { ObjectNotFoundError } from "../objects";
import type { Payload } from "./types";

/** The API default of every defaultMode (Secret/ConfigMap/Projected/DownwardAPIVolumeSourceDefaultMode). */
export const DEFAULT_MODE = 0o644;

/** A key listed in `items` that the object does not have; the message is the plugin's. */
export class MissingKeyError extends Error {
  override name = "MissingKeyError";
}

/**
 * The files of one object. `data` holds every key's bytes (configMap data and binaryData, or a
 * secret's decoded data); `missingKey` words the error for a listed key that is absent.
 * @throws MissingKeyError
 */
export function makePayload(
  data: ReadonlyMap<string, Uint8Array>,
  items: readonly KeyToPath[] | undefined,
  defaultMode: number,
  optional: boolean,
  missingKey: (key: string) => string,
): Payload {
  const payload: Payload = new Map();
  if (!items || items.length === 0) {
    for (const [key, bytes] of data) payload.set(key, { data: bytes, mode: defaultMode });
    return payload;
  }
  for (const item of items) {
    const bytes = data.get(item.key);
    if (bytes === undefined) {
      if (optional) continue;
      throw new MissingKeyError(missingKey(item.key));
    }
    payload.set(item.path, { data: bytes, mode: item.mode ?? defaultMode });
  }
  return payload;
}

/**
 * The object a configMap or secret volume (or projection) names, or an empty one of that name when it
 * is missing and `optional` (the plugins' rule: an optional missing object is an empty volume).
 */
export async function objectOrEmpty<T extends { metadata?: { namespace?: string; name?: string } }>(
  get: () => Promise<T>,
  namespace: string,
  name: string,
  optional: boolean,
): Promise<T> {
  try {
    return await get();
  } catch (e) {
    if (optional && e instanceof ObjectNotFoundError) return { metadata: { namespace, name } } as T;
    throw e;
  }
}
