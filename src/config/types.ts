// What pod sources deliver and PodConfig emits: the kubelet's PodUpdate operations per source.
import type { Pod } from "kubernetes-types/core/v1";
import type { ManifestError, PodSourceName } from "../manifest";

/** The kubelet's kubetypes.PodOperation. */
export type PodOperation = "ADD" | "UPDATE" | "DELETE" | "REMOVE" | "RECONCILE";

export interface PodUpdate {
  op: PodOperation;
  source: PodSourceName;
  pods: Pod[];
}

/** The full set of pods a source has now, with the errors of the manifests it could not load. */
export interface SourceSnapshot {
  source: PodSourceName;
  pods: Pod[];
  errors: ManifestError[];
}

/**
 * A snapshot as the sources in this module emit it. `complete: false` says the source could not read
 * its set at all yet (unreadable directory, unreachable URL before its first answer): the kubelet sends
 * no SET then, so the source does not count as seen and orphan cleanup stays gated. Absent means true.
 */
export interface SourceReport extends SourceSnapshot {
  complete?: boolean;
}

// The kubelet's config annotations live in src/api (annotations.ts), where src/manifest can reach them
// too; re-exported here for the sources that spell them from this file.

/**
 * A pod source as the agent runs it (the kubelet's config sources): it sends its full set of pods to
 * `feed` whenever it changes, from start() until stop(). The file, URL, push and API server sources on
 * a node; a fake in the agent's tests.
 */
export interface PodSource {
  readonly name: PodSourceName;
  start(feed: (report: SourceReport) => void): void;
  stop(): void | Promise<void>;
  /** What keeps the source from reading its pods right now (shown on /healthz?verbose); none when healthy. */
  problems?(): string[];
}
