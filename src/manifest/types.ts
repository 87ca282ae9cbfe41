// Shared vocabulary of manifest loading: where a pod came from, and what loading it gave —
// a pod ready for PodConfig, or an error that names the file, line, column and field.
import type { Pod } from "kubernetes-types/core/v1";

/** The kubelet's config sources: file (static pod dir), http (manifest URL), api (push / API server). */
/**
 * Where a pod came from: the static pod directory, the manifest URL, the agent's own push API, or the
 * API server (the kubelet's "api" source). Only "api" pods have an API object; the others are static
 * pods, mirrored into the cluster when the agent is a node.
 */
export type PodSourceName = "file" | "http" | "push" | "api";

export interface PodOrigin {
  source: PodSourceName;
  /** The file path, URL, or "POST /pods" the pod came from; part of a static pod's UID hash. */
  location: string;
  /** The node's name: static pods are named <name>-<nodeName> and bound to it. */
  nodeName: string;
}

/** A problem in a manifest, positioned where a person can find it. Line and column are 1-based. */
export interface ManifestError {
  file: string;
  line: number;
  column: number;
  /** Field path such as spec.containers[0].image; "" for the document as a whole. */
  field: string;
  message: string;
}

export type LoadResult = { ok: true; pods: Pod[] } | { ok: false; errors: ManifestError[] };

/**
 * Turns a manifest's text into the pods the kubelet would run (decoded as YAML 1.1 or JSON, defaulted,
 * validated, named and annotated as a static pod), or says why not. A file gives one Pod; an http
 * source may serve a Pod or a PodList.
 */
export type PodLoader = (text: string, origin: PodOrigin) => LoadResult;

/** Formats an error as `file:line:col: field: message`, the way compilers and linters print them. */
export function formatManifestError(e: ManifestError): string {
  return `${e.file}:${e.line}:${e.column}: ${e.field ? `${e.field}: ` : ""}${e.message}`;
}
