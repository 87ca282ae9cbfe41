// A volumeMount's sub-path as the kubelet computes it at container creation (kubelet_pods.go
// makeMounts): subPathExpr expanded from the container's environment (container/helpers.go
// ExpandContainerVolumeMounts), then the result, or the plain subPath, checked to stay inside its
// volume. Validation checks the expression as written; only the expanded text can be trusted here,
// since a variable's value (`../..`) is not known until the container's environment is.
import type { VolumeMount } from "kubernetes-types/core/v1";
import { expandVars, type VarLookup } from "./expansion";

/** A mount's sub-path cannot be used: the container is not created (CreateContainerConfigError). */
export class SubPathError extends Error {}

/**
 * The sub-path of `m` in the volume ("" for the whole volume). subPathExpr is expanded with $(VAR)
 * from `env` ($$ escapes); as the kubelet, every variable it names must be set and non-empty, else
 * `missing value for A, B` (sorted), never a silent empty segment that would widen the mount to the
 * volume's root. An absolute result or one with a `..` segment is refused with the kubelet's messages.
 */
export function mountSubPath(m: Pick<VolumeMount, "subPath" | "subPathExpr">, env: ReadonlyMap<string, string>): string {
  let subPath = m.subPath ?? "";
  if (m.subPathExpr) {
    const missing = new Set<string>();
    // Every reference resolves (has → true), to "" when unset; the unset and empty ones are recorded.
    const lookup: VarLookup = {
      has: () => true,
      get: (name) => {
        const value = env.get(name) ?? "";
        if (value === "") missing.add(name);
        return value;
      },
    };
    subPath = expandVars(m.subPathExpr, lookup);
    if (missing.size > 0) throw new SubPathError(`missing value for ${[...missing].sort().join(", ")}`);
  }
  if (subPath === "") return "";
  if (subPath.startsWith("/")) throw new SubPathError(`error SubPath \`${subPath}\` must not be an absolute path`);
  // volumevalidation.ValidatePathNoBacksteps: any ".." element, whatever follows it.
  if (subPath.split("/").includes("..")) throw new SubPathError(`unable to provision SubPath \`${subPath}\`: must not contain '..'`);
  return subPath;
}
