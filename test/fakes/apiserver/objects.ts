// The minimal object shape the server handles generically, and deep copy.
import type { ObjectMeta } from "kubernetes-types/meta/v1";

/** What the store takes and gives: any kubernetes-types object (Pod, Node, Lease…) fits. */
export interface KubernetesObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
}

/**
 * What callers hand the store: a kubernetes-types object (Pod) or a @kubernetes/client-node one (V1Pod,
 * whose timestamps are Dates; they are stored as their JSON text).
 */
export interface ObjectInput {
  apiVersion?: string;
  kind?: string;
  metadata?: object;
}

/** The same object as generic code sees it: its other fields (spec, status…) by name. */
export type AnyObject = KubernetesObject & Record<string, unknown>;

export const clone = <T>(v: T): T => structuredClone(v);

/** A deep copy through JSON, as the object would cross the wire (Dates become RFC 3339 text). */
export const fromInput = (v: ObjectInput): AnyObject => JSON.parse(JSON.stringify(v));

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
