// Cgroup names as the kubelet keeps them (k/k@1.24.1 pkg/kubelet/cm/cgroup_manager_linux.go): a
// CgroupName is the list of its components, ["kubepods", "burstable", "pod<uid>"], and each cgroup
// driver spells it its own way:
//   cgroupfs  /kubepods/burstable/pod<uid>                                          (ToCgroupfs)
//   systemd   /kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod<u_i_d>.slice
//             each component with "-" written "_", joined with "-" into one slice name, which
//             systemd expands into the path of its parent slices (ToSystemd, runc's ExpandSlice).
// The driver's spelling is what the runtime gets as cgroup_parent, and also the folder's path below
// every hierarchy of /sys/fs/cgroup (systemd makes a slice's folder at its expanded path).
export type CgroupName = readonly string[];

export type CgroupDriver = "cgroupfs" | "systemd";

export const CGROUP_DRIVERS: readonly CgroupDriver[] = ["cgroupfs", "systemd"];

const SYSTEMD_SUFFIX = ".slice";

/** ParseCgroupfsToCgroupName: "/a/b" → ["a", "b"]; "/" → [] (the root). */
export function parseCgroupfsName(path: string): CgroupName {
  const parts = path.replace(/^\/+/, "").split("/");
  return parts.length === 1 && parts[0] === "" ? [] : parts;
}

/** NewCgroupName: the parent's components and then these. */
export function childName(parent: CgroupName, ...components: string[]): CgroupName {
  return [...parent, ...components];
}

/** ToCgroupfs: "/" + the components joined with "/". */
export function toCgroupfs(name: CgroupName): string {
  return `/${name.join("/")}`;
}

/** The systemd spelling of one component: "-" separates slices, so it is written "_" (escapeSystemdCgroupName). */
function escapeSystemd(component: string): string {
  return component.replaceAll("-", "_");
}

/**
 * runc's ExpandSlice: "a-b-c.slice" → "/a.slice/a-b.slice/a-b-c.slice"; "-.slice" is the root. An
 * empty component ("a--b", "-a") or a "/" is not a slice name.
 */
export function expandSlice(slice: string): string {
  if (slice.length < SYSTEMD_SUFFIX.length || !slice.endsWith(SYSTEMD_SUFFIX) || slice.includes("/")) {
    throw new Error(`invalid slice name: ${slice}`);
  }
  const name = slice.slice(0, -SYSTEMD_SUFFIX.length);
  if (name === "-") return "/";
  let path = "";
  let prefix = "";
  for (const component of name.split("-")) {
    if (component === "") throw new Error(`invalid slice name: ${slice}`);
    path += `/${prefix}${component}${SYSTEMD_SUFFIX}`;
    prefix += `${component}-`;
  }
  return path;
}

/** ToSystemd: the components escaped, joined with "-" and expanded into the slice's path; the root is "/". */
export function toSystemd(name: CgroupName): string {
  if (name.length === 0 || (name.length === 1 && name[0] === "")) return "/";
  return expandSlice(`${name.map(escapeSystemd).join("-")}${SYSTEMD_SUFFIX}`);
}

/** The cgroup manager's Name(): the driver's literal spelling of the name. */
export function driverName(name: CgroupName, driver: CgroupDriver): string {
  return driver === "systemd" ? toSystemd(name) : toCgroupfs(name);
}

/** ParseSystemdToCgroupName: the last slice of the path, "_" back to "-" in each component ("/a.slice/a-b_c.slice" → ["a", "b-c"]). */
export function parseSystemdName(path: string): CgroupName {
  const base = path.split("/").filter(Boolean).pop() ?? "";
  const name = base.endsWith(SYSTEMD_SUFFIX) ? base.slice(0, -SYSTEMD_SUFFIX.length) : base;
  return name === "" ? [] : name.split("-").map((part) => part.replaceAll("_", "-"));
}

/** The cgroup manager's CgroupName(): a name written in the driver's form, back to its components. */
export function parseDriverName(path: string, driver: CgroupDriver): CgroupName {
  return driver === "systemd" ? parseSystemdName(path) : parseCgroupfsName(path);
}

/**
 * Why `path` is not a clean absolute cgroupfs path (--cgroup-root, --kube-reserved-cgroup,
 * --system-reserved-cgroup), or undefined: it must start with "/" and be "/" itself or "/"-separated
 * plain names: no empty segment (a trailing or doubled "/"), no "." or "..", no NUL or newline. The
 * agent joins it under /sys/fs/cgroup and makes and removes folders there, so "/../../etc" would
 * leave the cgroup file system (issue 24). The kubelet takes the root as given.
 */
export function cgroupPathProblem(path: string): string | undefined {
  if (!path.startsWith("/")) return "must be an absolute cgroup path, e.g. /nodeagent";
  if (path.includes("\0") || path.includes("\n")) return "must not contain a NUL byte or a newline";
  if (path === "/") return undefined;
  for (const segment of path.slice(1).split("/")) {
    if (segment === "") return "must not have an empty segment (a trailing or doubled /): write it as /a/b";
    if (segment === "." || segment === "..")
      return `must not have a ${JSON.stringify(segment)} segment: a cgroup path names a cgroup below the root, e.g. /nodeagent`;
  }
  return undefined;
}
