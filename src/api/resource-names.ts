// What kind of resource a name is (k/k pkg/apis/core/v1/helper): native (no domain, or in the
// kubernetes.io domain), hugepages, or extended (any other domain). Pod validation, the scheduler's
// fit check and the Node status all ask; one answer, so that they cannot disagree on a name.
import { isQualifiedName } from "./name-validation";

/** The quota prefix (core.DefaultResourceRequestsPrefix): "requests.x" names a quota on x, never a resource. */
const REQUESTS_PREFIX = "requests.";

/** hugepages-<size> (IsHugePageResourceName). */
export function isHugePageResourceName(name: string): boolean {
  return name.startsWith("hugepages-");
}

/**
 * A name in the kubernetes.io domain: one that contains "kubernetes.io/" anywhere, so
 * foo.kubernetes.io/x is native as kubernetes.io/x is (IsPrefixedNativeResource tests containment,
 * not the whole prefix).
 */
export function isPrefixedNativeResourceName(name: string): boolean {
  return name.includes("kubernetes.io/");
}

/** Native: no domain at all (cpu, memory, hugepages-2Mi) or a kubernetes.io one (IsNativeResource). */
export function isNativeResourceName(name: string): boolean {
  return !name.includes("/") || isPrefixedNativeResourceName(name);
}

/**
 * An extended resource (example.com/gpu): outside the kubernetes.io domain, not a quota name, and
 * still a qualified name once a quota prefixes it with "requests.", since extended resources may
 * be given a quota (IsExtendedResourceName).
 */
export function isExtendedResourceName(name: string): boolean {
  if (isNativeResourceName(name) || name.startsWith(REQUESTS_PREFIX)) return false;
  return isQualifiedName(`${REQUESTS_PREFIX}${name}`).length === 0;
}
