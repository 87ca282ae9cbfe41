// src/util owns what every module needs and nothing Kubernetes-specific: the clock (real and fake),
// durations, bounded queues and a mutex, logging, atomic state files, paths confined to a root, IP address
// classes as Go sees them, the bad-input error (ConfigError), "did you mean" suggestions, and the setting row
// (settings.ts: one row per flag and config field, its reader and parsers). It imports nothing else from src/.
export * from "./atomic-file";
export * from "./clock";
export * from "./confined-path";
export * from "./duration";
export * from "./errors";
export * from "./ip";
export * from "./log";
export * from "./queue";
export * from "./random";
export * from "./suggest";
export * from "./time";
// Settings declared once: the row type, the reader, the derivations, the generic parsers and field types.
export { defaultOf, defaultsOf, fieldTypes, flagDef, flagTable, setField, showFields, SettingsReader, type FileField, type FileFields, type FlagDef, type Flags, type Setting } from "./settings";
export {
  boolFlag, describe as describeSettingValue, durationText, fileBool, fileDuration, fileDurationOf, fileInt, fileMap, fileQuantityEntries, fileString,
  fileStringList, intAtLeast, Invalid, ipAddress, listFlag, mustBeDirectory, mustExist, nonNegativeDuration, oneOf, ownedFolder, positiveDuration, wholeNumber,
} from "./settings-parsers";
export { BOOL, DURATION, fieldPath, INT, isZeroValue, QUANTITIES, STRING, STRINGS, struct, typeProblems, type FieldType, type TypeProblem } from "./field-types";
export * from "./capped-body";
