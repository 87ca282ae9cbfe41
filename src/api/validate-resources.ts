// A container's resources as ValidateResourceRequirements checks them: resource names (standard,
// hugepages, native or extended), non-negative quantities, integer extended resources, requests
// within limits (equal to them where overcommit is not allowed), hugepages with cpu or memory.
import type { ResourceRequirements } from "kubernetes-types/core/v1";
import { Quantity, tryParseQuantity } from "./quantity";
import { child, type FieldError, forbidden, invalid, key, required } from "./field-error";
import { isQualifiedName } from "./name-validation";
import { isExtendedResourceName, isHugePageResourceName, isNativeResourceName } from "./resource-names";

const STANDARD_CONTAINER_RESOURCES = new Set(["cpu", "memory", "ephemeral-storage"]);

/** Only native, non-hugepages resources may be overcommitted (requests < limits). */
const isOvercommitAllowed = (name: string): boolean => isNativeResourceName(name) && !isHugePageResourceName(name);

function validateResourceName(name: string, path: string, errs: FieldError[]): void {
  for (const m of isQualifiedName(name)) errs.push(invalid(path, name, m));
  if (!name.includes("/")) {
    if (!STANDARD_CONTAINER_RESOURCES.has(name) && !isHugePageResourceName(name)) errs.push(invalid(path, name, "must be a standard resource for containers"));
  } else if (!isNativeResourceName(name) && !isExtendedResourceName(name)) {
    errs.push(invalid(path, name, "doesn't follow extended resource name standard"));
  }
}

/** A quantity as the API server holds it after SetDefaults_ResourceList: rounded up to milli-units. */
function defaultedQuantity(v: unknown): Quantity | undefined {
  if (typeof v !== "string" && typeof v !== "number") return undefined;
  const q = tryParseQuantity(v);
  return q instanceof Quantity ? q.roundUp(-3) : undefined;
}

function hugePageDivisible(name: string, q: Quantity): boolean {
  const size = defaultedQuantity(name.slice("hugepages-".length));
  if (!size || size.sign() <= 0 || size.milli() % 1000 !== 0) return false;
  return q.value() % size.value() === 0;
}

function validateQuantityValue(name: string, q: Quantity, path: string, errs: FieldError[]): void {
  if (q.sign() < 0) errs.push(invalid(path, q.toString(), "must be greater than or equal to 0"));
  // Extended resources are counted in whole units (IsIntegerResourceName).
  if (isExtendedResourceName(name) && q.milli() % 1000 !== 0) errs.push(invalid(path, q, "must be an integer"));
}

export function validateResources(res: ResourceRequirements | undefined, path: string, errs: FieldError[]): void {
  const limPath = child(path, "limits");
  const reqPath = child(path, "requests");
  const limits = res?.limits ?? {};
  const requests = res?.requests ?? {};
  let cpuOrMemory = false;
  let hugePages = false;
  const parsedLimits = new Map<string, Quantity>();
  for (const name of Object.keys(limits).sort()) {
    const p = key(limPath, name);
    validateResourceName(name, p, errs);
    const q = defaultedQuantity(limits[name]);
    if (!q) {
      errs.push(invalid(p, String(limits[name]), quantityErrorDetail(limits[name])));
      continue;
    }
    parsedLimits.set(name, q);
    validateQuantityValue(name, q, p, errs);
    if (isHugePageResourceName(name)) {
      hugePages = true;
      if (!hugePageDivisible(name, q)) errs.push(invalid(p, q.toString(), `${q} is not positive integer multiple of ${name}`));
    }
    if (name === "cpu" || name === "memory") cpuOrMemory = true;
  }
  for (const name of Object.keys(requests).sort()) {
    const p = key(reqPath, name);
    validateResourceName(name, p, errs);
    const q = defaultedQuantity(requests[name]);
    if (!q) {
      errs.push(invalid(p, String(requests[name]), quantityErrorDetail(requests[name])));
      continue;
    }
    validateQuantityValue(name, q, p, errs);
    const limit = parsedLimits.get(name);
    if (limit) {
      // Not-overcommittable resources must request exactly their limit. Upstream reports both at
      // the requests map, not at the key.
      if (q.cmp(limit) !== 0 && !isOvercommitAllowed(name)) {
        errs.push(invalid(reqPath, q.toString(), `must be equal to ${name} limit of ${limit}`));
      } else if (q.cmp(limit) > 0) {
        errs.push(invalid(reqPath, q.toString(), `must be less than or equal to ${name} limit of ${limit}`));
      }
    } else if (!(name in limits) && !isOvercommitAllowed(name)) {
      errs.push(required(limPath, "Limit must be set for non overcommitable resources"));
    }
    if (isHugePageResourceName(name)) {
      hugePages = true;
      if (!hugePageDivisible(name, q)) errs.push(invalid(p, q.toString(), `${q} is not positive integer multiple of ${name}`));
    }
    if (name === "cpu" || name === "memory") cpuOrMemory = true;
  }
  if (hugePages && !cpuOrMemory) errs.push(forbidden(path, "HugePages require cpu or memory"));
}

function quantityErrorDetail(v: unknown): string {
  if (typeof v !== "string" && typeof v !== "number") return "must be a quantity";
  const q = tryParseQuantity(v);
  return q instanceof Quantity ? "must be a quantity" : q.message;
}
