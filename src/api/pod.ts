// Facts about a Pod object that every layer asks: who it is (name, namespace, UID, and the
// namespace/name key), whether it has finished, the answer to a pushed pod, and the placeholder the
// agent's API puts in place of a secret-bearing value for an unauthenticated reader.
import type { Pod } from "kubernetes-types/core/v1";
import { CONFIG_MIRROR_ANNOTATION, CONFIG_SOURCE_ANNOTATION } from "./annotations";

/** A pod's identity: what the PLEG reports, what the agent labels runtime objects with. */
export interface PodRef {
  uid: string;
  name: string;
  namespace: string;
}

/**
 * The pod's identity, its namespace defaulted: an empty namespace is "default", as the API server and
 * the kubelet's static pod defaulting (applyDefaults) make it.
 */
export function podRef(pod: Pod): PodRef {
  return { name: pod.metadata?.name ?? "", namespace: pod.metadata?.namespace || "default", uid: pod.metadata?.uid ?? "" };
}

/**
 * namespace/name: the key a pod is known by to people and across sources (PodConfig's names, pushed
 * pods, the agent's API paths), and the one two instances of a static pod share; the kubelet's
 * kubecontainer.GetPodFullName says the same as name_namespace.
 */
export function podKey(pod: Pod): string {
  const r = podRef(pod);
  return `${r.namespace}/${r.name}`;
}

/**
 * A pod that did not come from the API server (kubetypes.IsStaticPod: its source annotation is there
 * and is not "api"): a file, URL or pushed pod.
 */
export function isStaticPod(pod: Pod): boolean {
  const source = pod.metadata?.annotations?.[CONFIG_SOURCE_ANNOTATION];
  return source !== undefined && source !== "api";
}

/** A mirror pod: the API server's copy of a static pod (kubetypes.IsMirrorPod: the mirror annotation is there). */
export function isMirrorPod(pod: Pod): boolean {
  return pod.metadata?.annotations?.[CONFIG_MIRROR_ANNOTATION] !== undefined;
}

/** Succeeded and Failed are terminal: a pod in either never runs again (the kubelet's IsPodPhaseTerminal). */
export function isTerminalPhase(phase: string | undefined): boolean {
  return phase === "Succeeded" || phase === "Failed";
}

/** The pod's status says it has finished. */
export function isPodTerminal(pod: Pod): boolean {
  return isTerminalPhase(pod.status?.phase);
}

/**
 * The answer to a pod pushed to the agent (POST /pods): the pod as admitted, or a refusal with the
 * HTTP status the API answers and why. The push source gives it, the HTTP server sends it.
 */
export type PushResult = { ok: true; pod: Pod } | { ok: false; status: number; message: string };

/**
 * What GET /pods shows an unauthenticated caller in place of a value that may be a secret (src/server
 * redact.ts). A client reading the agent's view (probe run) must never send it on as a real value.
 */
export const REDACTED = "<redacted: unauthenticated read>";
