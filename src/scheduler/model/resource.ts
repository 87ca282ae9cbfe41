// Resources as the scheduler counts them (pkg/scheduler/framework types.go Resource, and
// k8s.io/component-helpers/resource PodRequests): CPU in millicores, everything else in units,
// as plain numbers (exact up to 2^53, i.e. 8 PiB of memory). A pod's request is the sum of its
// containers and sidecars, or the largest init container plus the sidecars started before it,
// whichever is larger, plus the pod overhead.
import type { Container, Pod } from "kubernetes-types/core/v1";
import { aggregateContainers, parseQuantity } from "../../api";

export type ResourceList = Readonly<Record<string, string | number>>;

/** schedutil.DefaultMilliCPURequest: 0.1 core, counted for containers that request no CPU. */
export const DEFAULT_MILLI_CPU_REQUEST = 100;
/** schedutil.DefaultMemoryRequest: 200 MiB, counted for containers that request no memory. */
export const DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024;

const quantityCache = new Map<string, { milli: number; value: number }>();

/** A quantity's value (milli for CPU), rounded up as Quantity.MilliValue/Value do; memoised. */
export function quantityValue(q: string | number, milli: boolean): number {
  const key = typeof q === "number" ? `#${q}` : q;
  let v = quantityCache.get(key);
  if (!v) {
    const parsed = parseQuantity(q);
    v = { milli: parsed.milli(), value: parsed.value() };
    if (quantityCache.size < 10_000) quantityCache.set(key, v);
  }
  return milli ? v.milli : v.value;
}

const NATIVE = new Set(["cpu", "memory", "ephemeral-storage", "pods", "storage"]);

/**
 * schedutil.IsScalarResourceName: extended resources (example.com/gpu), hugepages-*,
 * attachable-volumes-* and kubernetes.io/-prefixed native resources; not cpu, memory, storage, pods.
 */
export function isScalarResourceName(name: string): boolean {
  if (NATIVE.has(name)) return false;
  if (name.startsWith("hugepages-") || name.startsWith("attachable-volumes-")) return true;
  if (name.startsWith("requests.")) return false;
  return name.includes("/");
}

export class Resource {
  milliCPU = 0;
  memory = 0;
  ephemeralStorage = 0;
  allowedPodNumber = 0;
  scalar: Map<string, number> | undefined;

  static from(rl: ResourceList | undefined): Resource {
    const r = new Resource();
    r.add(rl);
    return r;
  }

  /** Resource.Add: pods counts into allowedPodNumber, unknown non-scalar names are ignored. */
  add(rl: ResourceList | undefined): void {
    if (!rl) return;
    for (const name in rl) {
      const q = rl[name]!;
      switch (name) {
        case "cpu":
          this.milliCPU += quantityValue(q, true);
          break;
        case "memory":
          this.memory += quantityValue(q, false);
          break;
        case "pods":
          this.allowedPodNumber += quantityValue(q, false);
          break;
        case "ephemeral-storage":
          this.ephemeralStorage += quantityValue(q, false);
          break;
        default:
          if (isScalarResourceName(name)) this.addScalar(name, quantityValue(q, false));
      }
    }
  }

  addScalar(name: string, v: number): void {
    (this.scalar ??= new Map()).set(name, (this.scalar.get(name) ?? 0) + v);
  }

  getScalar(name: string): number {
    return this.scalar?.get(name) ?? 0;
  }

  /** Adds (sign 1) or subtracts (sign -1) another Resource, scalars included. */
  addResource(o: Resource, sign: 1 | -1 = 1): void {
    this.milliCPU += sign * o.milliCPU;
    this.memory += sign * o.memory;
    this.ephemeralStorage += sign * o.ephemeralStorage;
    if (o.scalar) for (const [k, v] of o.scalar) this.addScalar(k, sign * v);
  }

  clone(): Resource {
    const r = new Resource();
    r.milliCPU = this.milliCPU;
    r.memory = this.memory;
    r.ephemeralStorage = this.ephemeralStorage;
    r.allowedPodNumber = this.allowedPodNumber;
    if (this.scalar) r.scalar = new Map(this.scalar);
    return r;
  }

  isZero(): boolean {
    if (this.milliCPU !== 0 || this.memory !== 0 || this.ephemeralStorage !== 0) return false;
    if (this.scalar) for (const v of this.scalar.values()) if (v !== 0) return false;
    return true;
  }
}

/** A request vector keyed by resource name, CPU in millicores. */
type Requests = Map<string, number>;

function containerRequests(c: Container, nonMissing: boolean): Requests {
  const out: Requests = new Map();
  const rl = c.resources?.requests;
  if (rl) for (const name in rl) out.set(name, quantityValue(rl[name]!, name === "cpu"));
  if (nonMissing) {
    if (!out.has("cpu")) out.set("cpu", DEFAULT_MILLI_CPU_REQUEST);
    if (!out.has("memory")) out.set("memory", DEFAULT_MEMORY_REQUEST);
  }
  return out;
}

/**
 * resourcehelper.PodRequests. With nonMissing, every container that requests no CPU or no memory
 * counts the scheduler's defaults (100m, 200Mi) instead: the "non-zero" requests used for scoring.
 */
export function podRequests(pod: Pod, nonMissing = false): Requests {
  const reqs = aggregateContainers(pod, (c) => containerRequests(c, nonMissing));
  const overhead = pod.spec?.overhead;
  if (overhead) for (const name in overhead) reqs.set(name, (reqs.get(name) ?? 0) + quantityValue(overhead[name]!, name === "cpu"));
  return reqs;
}

/** The Resource of a request vector (Resource.SetMaxResource on an empty Resource). */
export function resourceOfRequests(reqs: Requests): Resource {
  const r = new Resource();
  for (const [name, v] of reqs) {
    switch (name) {
      case "cpu":
        r.milliCPU = v;
        break;
      case "memory":
        r.memory = v;
        break;
      case "ephemeral-storage":
        r.ephemeralStorage = v;
        break;
      default:
        if (isScalarResourceName(name)) (r.scalar ??= new Map()).set(name, v);
    }
  }
  return r;
}

/** Formats a value of the named resource for people: 1500m, 2, 512Mi, 3 (extended). */
export function formatResourceValue(name: string, v: number): string {
  if (name === "cpu") return v % 1000 === 0 ? String(v / 1000) : `${v}m`;
  if (name === "memory" || name === "ephemeral-storage" || name.startsWith("hugepages-")) {
    for (const [suffix, unit] of [
      ["Gi", 2 ** 30],
      ["Mi", 2 ** 20],
      ["Ki", 2 ** 10],
    ] as const) {
      if (Math.abs(v) >= unit && v % unit === 0) return `${v / unit}${suffix}`;
    }
    if (Math.abs(v) >= 2 ** 30) return `${(v / 2 ** 30).toFixed(2)}Gi`;
    if (Math.abs(v) >= 2 ** 20) return `${(v / 2 ** 20).toFixed(1)}Mi`;
  }
  return String(v);
}
