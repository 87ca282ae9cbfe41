// PodInfo (pkg/scheduler/framework types.go): a pod with what the plugins read over and over parsed
// once: its priority, its inter-pod (anti-)affinity terms, its requests (real and "non-zero") and its
// host ports.
import type { Pod, PodAffinityTerm, WeightedPodAffinityTerm } from "kubernetes-types/core/v1";
import { errorMessage } from "../../util";
import { labelSelectorAsSelector, NO_LABELS, type Selector, type Labels } from "./labels";
import { DEFAULT_MEMORY_REQUEST, DEFAULT_MILLI_CPU_REQUEST, podRequests, type Resource, resourceOfRequests } from "./resource";

/** A parsed PodAffinityTerm (fwk.AffinityTerm). */
export interface AffinityTerm {
  namespaces: ReadonlySet<string>;
  /** Nothing when the term has no namespaceSelector. */
  namespaceSelector: Selector;
  selector: Selector;
  topologyKey: string;
}

export interface WeightedAffinityTerm extends AffinityTerm {
  weight: number;
}

/**
 * AffinityTerm.Matches: the pod is in one of the term's namespaces (or its namespace's labels match
 * the namespaceSelector) and its labels match the selector.
 */
export function termMatches(term: AffinityTerm, pod: PodInfo, nsLabels: Labels): boolean {
  if (term.namespaces.has(pod.namespace) || term.namespaceSelector.matches(nsLabels)) return term.selector.matches(pod.labels);
  return false;
}

function newAffinityTerm(ns: string, t: PodAffinityTerm): AffinityTerm {
  // getNamespacesFromPodAffinityTerm: no namespaces and no namespaceSelector means the pod's own.
  const namespaces = new Set((t.namespaces ?? []).length === 0 && !t.namespaceSelector ? [ns] : (t.namespaces ?? []));
  return {
    namespaces,
    namespaceSelector: labelSelectorAsSelector(t.namespaceSelector),
    selector: labelSelectorAsSelector(t.labelSelector),
    topologyKey: t.topologyKey,
  };
}

function terms(ns: string, list: readonly PodAffinityTerm[] | undefined, errors: string[]): AffinityTerm[] {
  try {
    return (list ?? []).map((t) => newAffinityTerm(ns, t));
  } catch (e) {
    errors.push(errorMessage(e));
    return [];
  }
}

function weightedTerms(ns: string, list: readonly WeightedPodAffinityTerm[] | undefined, errors: string[]): WeightedAffinityTerm[] {
  try {
    return (list ?? []).map((w) => ({ ...newAffinityTerm(ns, w.podAffinityTerm), weight: w.weight }));
  } catch (e) {
    errors.push(errorMessage(e));
    return [];
  }
}

export interface HostPort {
  ip: string;
  protocol: string;
  port: number;
}

export interface PodResource {
  requests: Resource;
  /** Non-zero CPU (millicores) and memory, with the scheduler's defaults for containers that request none. */
  nonZeroCPU: number;
  nonZeroMemory: number;
}

export class PodInfo {
  readonly uid: string;
  readonly namespace: string;
  readonly name: string;
  readonly labels: Labels;
  /** corev1helpers.PodPriority: spec.priority, 0 when unset. */
  readonly priority: number;
  readonly requiredAffinityTerms: readonly AffinityTerm[];
  readonly requiredAntiAffinityTerms: readonly AffinityTerm[];
  readonly preferredAffinityTerms: readonly WeightedAffinityTerm[];
  readonly preferredAntiAffinityTerms: readonly WeightedAffinityTerm[];
  /** Why some affinity terms could not be parsed (their list is then empty), as NewPodInfo reports. */
  readonly parseError: string | undefined;
  private cachedResource: PodResource | undefined;
  private cachedPorts: HostPort[] | undefined;

  constructor(readonly pod: Pod) {
    const md = pod.metadata ?? {};
    this.uid = md.uid ?? "";
    this.namespace = md.namespace || "default";
    this.name = md.name ?? "";
    this.labels = md.labels ?? NO_LABELS;
    this.priority = pod.spec?.priority ?? 0;
    const a = pod.spec?.affinity;
    const errors: string[] = [];
    this.requiredAffinityTerms = terms(this.namespace, a?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution, errors);
    this.requiredAntiAffinityTerms = terms(this.namespace, a?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution, errors);
    this.preferredAffinityTerms = weightedTerms(this.namespace, a?.podAffinity?.preferredDuringSchedulingIgnoredDuringExecution, errors);
    this.preferredAntiAffinityTerms = weightedTerms(this.namespace, a?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution, errors);
    this.parseError = errors.length > 0 ? errors.join("; ") : undefined;
  }

  get key(): string {
    return `${this.namespace}/${this.name}`;
  }

  /** Any (anti-)affinity term, required or preferred: the pod goes into NodeInfo.podsWithAffinity. */
  hasAffinity(): boolean {
    const a = this.pod.spec?.affinity;
    return !!a && (!!a.podAffinity || !!a.podAntiAffinity);
  }

  /** Terminating pods are not counted by topology spreading (k/k #87621). */
  isTerminating(): boolean {
    return !!this.pod.metadata?.deletionTimestamp;
  }

  /** PodInfo.CalculateResource, computed once. */
  resource(): PodResource {
    if (!this.cachedResource) {
      const requests = resourceOfRequests(podRequests(this.pod));
      const nonZero = podRequests(this.pod, true);
      this.cachedResource = {
        requests,
        nonZeroCPU: nonZero.get("cpu") ?? DEFAULT_MILLI_CPU_REQUEST,
        nonZeroMemory: nonZero.get("memory") ?? DEFAULT_MEMORY_REQUEST,
      };
    }
    return this.cachedResource;
  }

  /** The host ports the pod's containers (and init containers) ask for. */
  hostPorts(): readonly HostPort[] {
    if (!this.cachedPorts) {
      const out: HostPort[] = [];
      for (const c of [...(this.pod.spec?.initContainers ?? []), ...(this.pod.spec?.containers ?? [])]) {
        for (const p of c.ports ?? []) {
          if (!p.hostPort || p.hostPort <= 0) continue;
          out.push({ ip: p.hostIP || "0.0.0.0", protocol: p.protocol || "TCP", port: p.hostPort });
        }
      }
      this.cachedPorts = out;
    }
    return this.cachedPorts;
  }

  /**
   * The same pod with another object (the assumed copy with spec.nodeName set, a status update):
   * parsed terms are recomputed, the resource sums are kept when the containers are the same.
   */
  withPod(pod: Pod): PodInfo {
    const pi = new PodInfo(pod);
    if (
      pod.spec?.containers === this.pod.spec?.containers &&
      pod.spec?.initContainers === this.pod.spec?.initContainers &&
      pod.spec?.overhead === this.pod.spec?.overhead
    ) {
      pi.cachedResource = this.cachedResource;
      pi.cachedPorts = this.cachedPorts;
    }
    return pi;
  }

  /** status.startTime in ms, or undefined (util.GetPodStartTime treats that as now). */
  startTime(): number | undefined {
    const s = this.pod.status?.startTime;
    return s ? Date.parse(s) : undefined;
  }
}
