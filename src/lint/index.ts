// src/lint owns `nodeagent staticpod lint`: the rules, file selection, the configuration file and the
// suppression annotation, parallel runs (worker threads) and the reporters (text, json, sarif, github,
// junit); it shares src/manifest's decoder and src/api's pod checks with the agent.
export { lintManifest, type ManifestLintOptions } from "./check-manifest";
export { applyConfig, CONFIG_FILE_NAME, ConfigError, findConfig, loadConfig, parseConfig, type LintConfig, type RuleSetting } from "./config";
export { InputError, isBackupName, selectInputs, type ManifestInput } from "./inputs";
export {
  FILES_PER_THREAD,
  jobsRequest,
  JOBS_BATCH,
  lintClaimed,
  lintInWorkers,
  mergeResponses,
  threadsFor,
  workerEntry,
  type JobFailure,
  type JobsRequest,
  type JobsResponse,
} from "./jobs";
export { isControlPlanePod } from "./practices";
export { formatResult, OUTPUT_FORMATS, type OutputFormat, type ReportOptions } from "./reporters";
export { isRuleId, ruleById, RULES, type Rule } from "./rules";
export { assembleResult, exitCodeFor, lintInput, runLint, type LintResult, type LintRunOptions } from "./run";
export { IGNORE_ANNOTATION } from "./suppress";
export { atLeast, SEVERITIES, type FileReport, type Finding, type PodIdentity, type Severity } from "./types";
