// src/util owns what every module needs and nothing Kubernetes-specific: the clock (real and fake),
// durations, queues, the structured logger, atomic files, paths confined to a root, IP classes as Go
// sees them, bad-input errors, "did you mean", and the setting row every subsystem declares its settings in.
export * from "./atomic-file";
export * from "./clock";
export * from "./confined-path";
export * from "./duration";
export * from "./errors";
export * from "./ip";
export * from "./log";
export * from "./pod-records";
export * from "./queue";
export * from "./random";
export * from "./suggest";
export * from "./time";
// Settings declared once: the row type, the reader, the derivations, the generic parsers and field types.
export {
  defaultOf,
  defaultsOf,
  fieldTypes,
  flagDef,
  flagTable,
  setField,
  showFields,
  SettingsReader,
  type FileField,
  type FileFields,
  type FlagDef,
  type Flags,
  type Setting,
} from "./settings";
export {
  boolFlag,
  describe as describeSettingValue,
  durationText,
  fileBool,
  fileDuration,
  fileDurationOf,
  fileInt,
  fileMap,
  fileQuantityEntries,
  fileString,
  fileStringList,
  intAtLeast,
  Invalid,
  ipAddress,
  listFlag,
  mustBeDirectory,
  mustExist,
  nonNegativeDuration,
  oneOf,
  ownedFolder,
  positiveDuration,
  wholeNumber,
} from "./settings-parsers";
export {
  BOOL,
  DURATION,
  fieldPath,
  INT,
  isZeroValue,
  QUANTITIES,
  STRING,
  STRINGS,
  struct,
  typeProblems,
  type FieldType,
  type TypeProblem,
} from "./field-types";
export * from "./capped-body";
export { bitString, boolean, explicit, integer, ipBytes, octetString, oid, pemBlock, sequence, set, time, tlv, utf8String } from "./der";
export { ExpiringCache } from "./expiring-cache";
export { AGENT_JIT_POLICY, useNormalJitPolicy } from "./jit-policy";
export { streamLines } from "./lines";
export { describe } from "./settings-parsers";
