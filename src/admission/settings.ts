// The sysctl admission's setting (--allowed-unsafe-sysctls / allowedUnsafeSysctls), declared once as
// a row (util/settings.ts) and resolved here.
import { errorMessage, fileStringList, Invalid, listFlag, type Setting, type SettingsReader, STRINGS } from "../util";
import { SysctlAllowlist } from "./sysctls";

export const SYSCTL_SETTINGS: ReadonlyArray<Setting<{ allowedUnsafeSysctls: string[] }>> = [
  {
    flag: "allowed-unsafe-sysctls",
    field: "allowedUnsafeSysctls",
    fieldType: STRINGS,
    valueHint: "name|prefix*,…",
    show: (c) => (c.allowedUnsafeSysctls.length ? c.allowedUnsafeSysctls : undefined),
    doc: "Sysctls pods may set beyond the safe set (kernel.shm_rmid_forced, net.ipv4.ip_local_port_range, …), each namespaced (kernel.shm*, kernel.msg*, kernel.sem, fs.mqueue.*, net.*); others are refused SysctlForbidden",
  },
];

/** The patterns, each checked as the kubelet's NewAllowlist checks it (malformed, or not namespaced: it refuses to start). */
export function resolveAllowedUnsafeSysctls(s: SettingsReader): string[] {
  const patterns = (list: string[]): string[] => {
    try {
      new SysctlAllowlist(list);
    } catch (e) {
      throw new Invalid(errorMessage(e));
    }
    return list;
  };
  return (
    s.get(
      "allowed-unsafe-sysctls",
      (t) => patterns(listFlag(t)),
      (v) => patterns(fileStringList(v)),
    ) ?? []
  );
}
