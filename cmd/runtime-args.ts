// Flags shared by every command that talks to the container runtime, with the kubelet's names: the
// runtime's setting rows (src/cri/settings.ts) and --root-dir, typed here for citty (a default makes a flag a string).
import { ROOT_DIR_SETTING } from "../src/agent";
import { RUNTIME_SETTINGS } from "../src/cri";
import { defaultOf, type Setting } from "../src/util";

const ROWS: readonly Setting[] = [...RUNTIME_SETTINGS, ROOT_DIR_SETTING];
const row = (flag: string): Setting => ROWS.find((r) => r.flag === flag)!;
const stringFlag = (flag: string) => ({ type: "string" as const, valueHint: row(flag).valueHint, description: row(flag).doc });
const withDefault = (flag: string) => ({ ...stringFlag(flag), default: defaultOf(ROWS, flag) });

export const runtimeArgs = {
  "runtime-endpoint": stringFlag("runtime-endpoint"),
  "root-dir": withDefault("root-dir"),
  "pod-infra-container-image": withDefault("pod-infra-container-image"),
  "runtime-request-timeout": withDefault("runtime-request-timeout"),
};
