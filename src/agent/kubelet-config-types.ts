// The Go types of the KubeletConfiguration (kubelet.config.k8s.io/v1beta1) fields nodeagent reads,
// nested blocks included (k8s.io/kubelet/config/v1beta1/types.go), so that a --config file is
// type-checked as the kubelet's JSON decoding checks it, field by field, before any value is used:
// `authentication: []`, `authentication.x509: 5` or `evictionHard: {memory.available: [1]}` are
// errors naming the file, line and field path (issue 24: they were taken silently, and a field a
// flag overrode was not looked at). Every field is checked whether or not a flag overrides it.
//
// Only types here; the values (ranges, durations, IPs, paths) are checked by agent-config.ts. A null
// is accepted anywhere, as Go's JSON decoding leaves the field at its zero value.

/** A field's type, as JSON decoding into the Go type would accept it. */
export type FieldType = (
  | { kind: "string" | "bool" | "int" }
  /** map[string]string of quantities or thresholds: nodeagent also takes a YAML number (cpu: 1), as it always has. */
  | { kind: "quantityMap" }
  | { kind: "list"; of: FieldType }
  | { kind: "map"; of: FieldType }
  | { kind: "struct"; fields: Readonly<Record<string, FieldType>> }
) & {
  /** What the message says is expected, when more telling than the kind ("a duration such as \"20s\""). */
  expected?: string;
};

const STRING: FieldType = { kind: "string" };
const BOOL: FieldType = { kind: "bool" };
const INT: FieldType = { kind: "int" };
/** metav1.Duration: a string such as "20s" (its value is checked where it is used). */
const DURATION: FieldType = { kind: "string", expected: 'a duration such as "20s"' };
const STRINGS: FieldType = { kind: "list", of: STRING, expected: "a list of strings" };
const QUANTITIES: FieldType = { kind: "quantityMap" };
const struct = (fields: Record<string, FieldType>): FieldType => ({ kind: "struct", fields });

/** The types of the fields nodeagent implements (agent-config.ts CONFIG_FILE_FIELDS; a unit test keeps them in step). */
export const KUBELET_CONFIG_TYPES: Readonly<Record<string, FieldType>> = {
  staticPodPath: STRING,
  staticPodURL: STRING,
  staticPodURLHeader: { kind: "map", of: STRINGS },
  fileCheckFrequency: DURATION,
  httpCheckFrequency: DURATION,
  syncFrequency: DURATION,
  address: STRING,
  port: INT,
  tlsCertFile: STRING,
  tlsPrivateKeyFile: STRING,
  rotateCertificates: BOOL,
  serverTLSBootstrap: BOOL,
  containerRuntimeEndpoint: STRING,
  runtimeRequestTimeout: DURATION,
  maxPods: INT,
  podLogsDir: STRING,
  cgroupRoot: STRING,
  cgroupDriver: STRING,
  cgroupsPerQOS: BOOL,
  enforceNodeAllocatable: STRINGS,
  systemReservedCgroup: STRING,
  kubeReservedCgroup: STRING,
  podInfraContainerImage: STRING,
  clusterDNS: STRINGS,
  clusterDomain: STRING,
  resolvConf: STRING,
  nodeStatusUpdateFrequency: DURATION,
  kubeReserved: QUANTITIES,
  systemReserved: QUANTITIES,
  registerWithTaints: { kind: "list", of: struct({ key: STRING, value: STRING, effect: STRING, timeAdded: STRING }) },
  allowedUnsafeSysctls: STRINGS,
  evictionHard: QUANTITIES,
  evictionSoft: QUANTITIES,
  evictionSoftGracePeriod: QUANTITIES,
  evictionMinimumReclaim: QUANTITIES,
  evictionPressureTransitionPeriod: DURATION,
  evictionMaxPodGracePeriod: INT,
  imageGCHighThresholdPercent: INT,
  imageGCLowThresholdPercent: INT,
  imageMinimumGCAge: DURATION,
  containerLogMaxSize: STRING,
  containerLogMaxFiles: INT,
  shutdownGracePeriod: DURATION,
  shutdownGracePeriodCriticalPods: DURATION,
  shutdownGracePeriodByPodPriority: { kind: "list", of: struct({ priority: INT, shutdownGracePeriodSeconds: INT }) },
  // KubeletAuthentication and KubeletAuthorization.
  authentication: struct({
    x509: struct({ clientCAFile: STRING }),
    webhook: struct({ enabled: BOOL, cacheTTL: DURATION }),
    anonymous: struct({ enabled: BOOL }),
  }),
  authorization: struct({
    mode: STRING,
    webhook: struct({ cacheAuthorizedTTL: DURATION, cacheUnauthorizedTTL: DURATION }),
  }),
};

/** One place in a value: its path below the field (["x509"], [0, "key"]), and what is wrong there, or that the key is unknown. */
export interface TypeProblem {
  path: Array<string | number>;
  message: string;
  /** A key its struct does not have (warned about, not an error: the kubelet decodes leniently). */
  unknown?: boolean;
}

export const describeValue = (v: unknown): string =>
  Array.isArray(v) ? "a list" : v !== null && typeof v === "object" ? "a mapping" : typeof v === "string" ? `the string ${JSON.stringify(v)}` : String(v);

const EXPECTED: Record<FieldType["kind"], string> = {
  string: "a string",
  bool: "true or false",
  int: "a whole number",
  quantityMap: "a mapping of names to quantities",
  list: "a list",
  map: "a mapping",
  struct: "a mapping",
};

const isMapping = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** Every place in `value` (a field's value as YAML 1.1 decodes it) that does not have its type. */
export function typeProblems(type: FieldType, value: unknown, path: Array<string | number> = []): TypeProblem[] {
  if (value === null || value === undefined) return [];
  const wrong = (): TypeProblem[] => [{ path, message: `expected ${type.expected ?? EXPECTED[type.kind]}, got ${describeValue(value)}` }];
  switch (type.kind) {
    case "string":
      return typeof value === "string" ? [] : wrong();
    case "bool":
      return typeof value === "boolean" ? [] : wrong();
    case "int":
      return typeof value === "number" && Number.isInteger(value) ? [] : wrong();
    case "quantityMap":
      if (!isMapping(value)) return wrong();
      return Object.entries(value).flatMap(([k, v]) =>
        v === null || typeof v === "string" || typeof v === "number" ? [] : [{ path: [...path, k], message: `expected a quantity (a string such as "100Mi" or "10%"), got ${describeValue(v)}` }],
      );
    case "list":
      if (!Array.isArray(value)) return wrong();
      return value.flatMap((v, i) => typeProblems(type.of, v, [...path, i]));
    case "map":
      if (!isMapping(value)) return wrong();
      return Object.entries(value).flatMap(([k, v]) => typeProblems(type.of, v, [...path, k]));
    case "struct":
      if (!isMapping(value)) return wrong();
      return Object.entries(value).flatMap(([k, v]) => {
        const field = type.fields[k];
        return field ? typeProblems(field, v, [...path, k]) : [{ path: [...path, k], message: "unknown field", unknown: true }];
      });
  }
}

/** "authentication.x509.clientCAFile", "registerWithTaints[0].key". */
export function fieldPath(name: string, path: ReadonlyArray<string | number>): string {
  return path.reduce<string>((s, p) => (typeof p === "number" ? `${s}[${p}]` : `${s}.${p}`), name);
}
