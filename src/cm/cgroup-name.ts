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
