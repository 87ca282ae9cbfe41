// The node's cgroup settings (the kubelet's --cgroup-root, --cgroup-driver, --cgroups-per-qos,
// --enforce-node-allocatable and the reserved cgroups), declared once as rows (util/settings.ts)
// and resolved here as the kubelet checks them (pkg/kubelet/apis/config/validation and
// cmd/kubelet/app/server.go).
import { BOOL, boolFlag, fileBool, fileString, fileStringList, Invalid, listFlag, oneOf, type Setting, type SettingsReader, STRING, STRINGS } from "../util";
import { CGROUP_DRIVERS, cgroupPathProblem, type CgroupDriver } from "./cgroup-name";
import { ENFORCEMENT_KEYS, type EnforcementKey } from "./node-allocatable";

/** The node's cgroups as AgentConfig holds them. */
export interface CgroupSettings {
  /** --cgroup-driver: how cgroup names are spelled (and, on the runtime's side, who makes them). */
  driver: CgroupDriver;
  /** --cgroups-per-qos: the kubepods / QoS / pod<uid> hierarchy; false: <cgroup-root>/pod<uid>. */
  perQOS: boolean;
  /** --enforce-node-allocatable, without "none". */
  enforceNodeAllocatable: EnforcementKey[];
  systemReservedCgroup?: string;
  kubeReservedCgroup?: string;
}

/** What the rows show in /configz: the cgroups and the pods' cgroup root. */
export interface CgroupView {
  cgroups: CgroupSettings;
  cgroupRoot: string;
}

export const CGROUP_SETTINGS: ReadonlyArray<Setting<CgroupView>> = [
  {
    flag: "cgroup-root",
    field: "cgroupRoot",
    fieldType: STRING,
    valueHint: "path",
    default: "/nodeagent",
    show: (v) => v.cgroupRoot,
    doc: "cgroupfs path every pod's cgroup is below (kubepods/… or, without --cgroups-per-qos, pod<uid>); made when missing",
  },
  {
    flag: "cgroup-driver",
    field: "cgroupDriver",
    fieldType: STRING,
    kind: "enum",
    options: ["cgroupfs", "systemd"],
    default: "cgroupfs",
    show: (v) => v.cgroups.driver,
    doc: "How pod cgroups are named, as the runtime's (containerd SystemdCgroup): cgroupfs paths or systemd slices (needs systemd as init)",
  },
  {
    flag: "cgroups-per-qos",
    field: "cgroupsPerQOS",
    fieldType: BOOL,
    kind: "boolean",
    default: "true",
    show: (v) => v.cgroups.perQOS,
    doc: "The kubelet's kubepods, kubepods/burstable, kubepods/besteffort cgroups with a cgroup per pod and its limits; false: <cgroup-root>/pod<uid> only",
  },
  {
    flag: "enforce-node-allocatable",
    field: "enforceNodeAllocatable",
    fieldType: STRINGS,
    valueHint: "pods,system-reserved,kube-reserved",
    default: "pods",
    show: (v) => v.cgroups.enforceNodeAllocatable,
    doc: "pods: kubepods is capped at capacity − kube-reserved − system-reserved; system-reserved, kube-reserved: those cgroups at what is reserved; empty or none: nothing",
  },
  {
    flag: "system-reserved-cgroup",
    field: "systemReservedCgroup",
    fieldType: STRING,
    valueHint: "path",
    show: (v) => v.cgroups.systemReservedCgroup,
    doc: "The existing cgroup held to --system-reserved with --enforce-node-allocatable=system-reserved",
  },
  {
    flag: "kube-reserved-cgroup",
    field: "kubeReservedCgroup",
    fieldType: STRING,
    valueHint: "path",
    show: (v) => v.cgroups.kubeReservedCgroup,
    doc: "The existing cgroup held to --kube-reserved with --enforce-node-allocatable=kube-reserved",
  },
];

/** --cgroup-root and the reserved cgroups: a clean absolute cgroup path (cgroup-name.ts). */
export function cgroupPath(path: string): string {
  const problem = cgroupPathProblem(path);
  if (problem) throw new Invalid(problem);
  return path;
}

/** --cgroup-root / cgroupRoot; undefined when wrong (the mistake is collected) or unset. */
export function resolveCgroupRoot(s: SettingsReader): string | undefined {
  return s.get("cgroup-root", cgroupPath, (v) => cgroupPath(fileString(v)));
}

/**
 * The driver, --cgroups-per-qos, and --enforce-node-allocatable, whose system-reserved and
 * kube-reserved need the cgroup to hold to what is reserved.
 */
export function resolveCgroups(s: SettingsReader): CgroupSettings {
  const driver = (s.get(
    "cgroup-driver",
    (t) => oneOf(t, CGROUP_DRIVERS),
    (v) => oneOf(fileString(v), CGROUP_DRIVERS),
  ) ?? "cgroupfs") as CgroupDriver;
  const perQOS = s.get("cgroups-per-qos", boolFlag, fileBool) ?? true;
  const keys = [...ENFORCEMENT_KEYS, "none"];
  const checkKeys = (list: string[]): string[] => {
    for (const k of list)
      if (!keys.includes(k)) throw new Invalid(`invalid option ${JSON.stringify(k)}: valid options are ${keys.map((x) => JSON.stringify(x)).join(", ")}`);
    if (list.includes("none") && list.length > 1) throw new Invalid(`may not contain additional enforcements when "none" is specified`);
    return list.filter((k) => k !== "none");
  };
  const enforce = (s.get(
    "enforce-node-allocatable",
    (t) => checkKeys(listFlag(t)),
    (v) => checkKeys(fileStringList(v)),
  ) ?? ["pods"]) as EnforcementKey[];
  const systemReservedCgroup = s.string("system-reserved-cgroup", cgroupPath);
  const kubeReservedCgroup = s.string("kube-reserved-cgroup", cgroupPath);
  if (enforce.length && !perQOS)
    s.fail(
      "--enforce-node-allocatable is not supported unless --cgroups-per-qos is turned on: give --enforce-node-allocatable= (empty) with --cgroups-per-qos=false",
    );
  if (enforce.includes("system-reserved") && !systemReservedCgroup)
    s.fail(`--system-reserved-cgroup must be specified when "system-reserved" is in --enforce-node-allocatable (the cgroup held to --system-reserved)`);
  if (enforce.includes("kube-reserved") && !kubeReservedCgroup)
    s.fail(`--kube-reserved-cgroup must be specified when "kube-reserved" is in --enforce-node-allocatable (the cgroup held to --kube-reserved)`);
  return {
    driver,
    perQOS,
    enforceNodeAllocatable: enforce,
    ...(systemReservedCgroup ? { systemReservedCgroup } : {}),
    ...(kubeReservedCgroup ? { kubeReservedCgroup } : {}),
  };
}
