// The downwardAPI volume plugin's content and projected downwardAPI sources: one file per item, its
// value the downward API's (src/objects/downward-api.ts, shared with container env as the kubelet
// shares pkg/fieldpath between makeEnvironmentVariables and the downwardAPI plugin).
import type { Container, DownwardAPIVolumeFile, Pod } from "kubernetes-types/core/v1";
import { DownwardAPIError, metadataFieldValue, resourceFieldValue, type ResourceList } from "../objects";
import type { Payload } from "./types";

/** The container a volume's resourceFieldRef names (validation requires containerName there). */
function findContainer(pod: Pod, name: string | undefined): Container {
  const all = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])];
  const c = all.find((x) => x.name === name);
  if (!c) throw new DownwardAPIError(`container ${name ?? ""} not found`);
  return c;
}

/**
 * The files of a downwardAPI volume or projected downwardAPI source (the plugin's CollectData): one
 * file per item, its mode the item's or defaultMode. Every item is tried; the errors are joined as
 * the kubelet's aggregate error ("[a, b]" when there are several).
 * @throws DownwardAPIError
 */
export function downwardAPIPayload(pod: Pod, items: readonly DownwardAPIVolumeFile[], defaultMode: number, allocatable?: ResourceList): Payload {
  const payload: Payload = new Map();
  const errors: string[] = [];
  for (const item of items) {
    try {
      let value: string;
      if (item.fieldRef) value = metadataFieldValue(pod, item.fieldRef.fieldPath);
      else if (item.resourceFieldRef) value = resourceFieldValue(findContainer(pod, item.resourceFieldRef.containerName), item.resourceFieldRef, allocatable);
      else continue;
      payload.set(item.path, { data: new TextEncoder().encode(value), mode: item.mode ?? defaultMode });
    } catch (e) {
      errors.push(e instanceof Error ? e.message : String(e));
    }
  }
  if (errors.length) throw new DownwardAPIError(aggregateMessage(errors));
  return payload;
}

/** utilerrors.NewAggregate(...).Error(): one message alone, several deduplicated in "[a, b]". */
export function aggregateMessage(messages: readonly string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? unique[0]! : `[${unique.join(", ")}]`;
}
